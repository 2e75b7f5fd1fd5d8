import { byMtimeDesc, mtimesOf } from "./mtime.ts";
import { type FileHits, type GrepMode, MAX_LINE_CHARS } from "./types.ts";

/**
 * The one file order both engines share: newest modification time first, ties by path (code-unit order).
 * Never rejects; a file that vanished sorts as oldest.
 */
export async function sortHits(hits: FileHits[]): Promise<FileHits[]> {
  const times = await mtimesOf(hits.filter((h) => h.mtimeMs === undefined).map((h) => h.path));
  for (const h of hits) if (h.mtimeMs !== undefined) times.set(h.path, h.mtimeMs);
  const cmp = byMtimeDesc(times);
  return hits.sort((a, b) => cmp(a.path, b.path));
}

const cut = (text: string) =>
  text.length > MAX_LINE_CHARS ? `${text.slice(0, MAX_LINE_CHARS)} [... line truncated]` : text;

export type FormatOptions = {
  mode: GrepMode;
  lineNumbers: boolean;
  withContext: boolean;
  headLimit: number;
  offset: number;
};

export type GrepDetails = {
  mode: GrepMode;
  numFiles: number;
  filenames: string[];
  content?: string;
  numLines?: number;
  numMatches?: number;
  appliedLimit?: number;
  appliedOffset?: number;
};

/** Renders sorted hits the ripgrep way (`path:N:text`, `path-N-text` for context, `--` between groups) and pages them. */
export function formatHits(hits: FileHits[], o: FormatOptions): { text: string; details: GrepDetails } {
  let entries: string[];
  if (o.mode === "files_with_matches") entries = hits.map((h) => h.path);
  else if (o.mode === "count") entries = hits.map((h) => `${h.path}:${h.count}`);
  else {
    entries = [];
    for (const h of hits) {
      let prev = -1;
      for (const l of h.lines) {
        if (o.withContext && entries.length && l.n > prev + 1) entries.push("--");
        const sep = l.match ? ":" : "-";
        entries.push(o.lineNumbers ? `${h.path}${sep}${l.n}${sep}${cut(l.text)}` : `${h.path}${sep}${cut(l.text)}`);
        prev = l.n;
      }
    }
  }
  const total = entries.length;
  const start = Math.min(o.offset, total);
  const end = o.headLimit > 0 ? Math.min(start + o.headLimit, total) : total;
  const page = entries.slice(start, end);
  const numMatches = hits.reduce((n, h) => n + h.count, 0);
  const details: GrepDetails = {
    mode: o.mode,
    numFiles: hits.length,
    filenames: o.mode === "files_with_matches" ? page : hits.map((h) => h.path),
  };
  if (o.mode === "content") details.numLines = page.length;
  if (o.mode === "count") details.numMatches = numMatches;
  if (end < total) details.appliedLimit = o.headLimit;
  if (start > 0) details.appliedOffset = start;

  if (total === 0) return { text: o.mode === "files_with_matches" ? "No files found" : "No matches found", details };
  if (page.length === 0) {
    return {
      text: `No results at offset ${o.offset}: there are only ${total}. Call Grep again with a smaller offset.`,
      details,
    };
  }
  let text = page.join("\n");
  if (o.mode === "count") {
    text += `\n\nFound ${numMatches} matching line${numMatches === 1 ? "" : "s"} in ${hits.length} file${hits.length === 1 ? "" : "s"}.`;
  }
  if (end < total) {
    text += `\n\n[Showing results ${start + 1}-${end} of ${total}. Call Grep again with offset: ${end} to see the next ones, or narrow the search.]`;
  }
  if (o.mode === "content") details.content = text;
  return { text, details };
}
