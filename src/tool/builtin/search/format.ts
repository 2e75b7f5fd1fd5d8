import { type Collected, MAX_KEPT_ENTRIES, MAX_UNLIMITED_PAGE } from "./collect.ts";
import { type GrepMode, MAX_LINE_CHARS } from "./types.ts";

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

/**
 * Renders collected hits the ripgrep way (`path:N:text`, `path-N-text` for context, `--` between groups) and
 * pages them. The totals are the collector's counts of the whole search; only the kept hits are listed.
 */
export function formatHits(c: Collected, o: FormatOptions): { text: string; details: GrepDetails } {
  const hits = c.hits;
  const total = c.entries;
  const start = Math.min(o.offset, total);
  const end = Math.min(start + (o.headLimit > 0 ? o.headLimit : MAX_UNLIMITED_PAGE), total, Math.max(start, c.keep));
  let entries: string[];
  if (o.mode === "files_with_matches") entries = hits.slice(0, end).map((h) => h.path);
  else if (o.mode === "count") entries = hits.slice(0, end).map((h) => `${h.path}:${h.count}`);
  else {
    entries = [];
    for (const h of hits) {
      if (entries.length >= end) break;
      let prev = -1;
      for (const l of h.lines) {
        if (o.withContext && entries.length && l.n > prev + 1) entries.push("--");
        const sep = l.match ? ":" : "-";
        entries.push(o.lineNumbers ? `${h.path}${sep}${l.n}${sep}${cut(l.text)}` : `${h.path}${sep}${cut(l.text)}`);
        prev = l.n;
      }
    }
  }
  const page = entries.slice(start, end);
  const details: GrepDetails = {
    mode: o.mode,
    numFiles: c.files,
    filenames: o.mode === "files_with_matches" ? page : hits.map((h) => h.path),
  };
  if (o.mode === "content") details.numLines = page.length;
  if (o.mode === "count") details.numMatches = c.matches;
  if (end < total) details.appliedLimit = o.headLimit;
  if (start > 0) details.appliedOffset = start;

  if (total === 0) return { text: o.mode === "files_with_matches" ? "No files found" : "No matches found", details };
  if (page.length === 0) {
    const why =
      start >= MAX_KEPT_ENTRIES
        ? `Grep pages through the first ${MAX_KEPT_ENTRIES} of its ${total} results only. Narrow the search (a more specific pattern, path, glob or type) to reach the rest.`
        : `No results at offset ${o.offset}: there are only ${total}. Call Grep again with a smaller offset.`;
    return { text: why, details };
  }
  let text = page.join("\n");
  if (o.mode === "count") {
    text += `\n\nFound ${c.matches} matching line${c.matches === 1 ? "" : "s"} in ${c.files} file${c.files === 1 ? "" : "s"}.`;
  }
  if (end < total) {
    const next =
      end >= MAX_KEPT_ENTRIES
        ? `Grep pages through the first ${MAX_KEPT_ENTRIES} only: narrow the search (a more specific pattern, path, glob or type) to see the rest.`
        : o.headLimit > 0
          ? `Call Grep again with offset: ${end} to see the next ones, or narrow the search.`
          : `head_limit 0 shows at most ${MAX_UNLIMITED_PAGE} at a time: call Grep again with offset: ${end} to see the next ones, or narrow the search.`;
    text += `\n\n[Showing results ${start + 1}-${end} of ${total}. ${next}]`;
  }
  if (o.mode === "content") details.content = text;
  return { text, details };
}
