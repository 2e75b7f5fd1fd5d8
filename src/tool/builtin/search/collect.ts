import { statSync } from "node:fs";
import { type FileHits, type GrepMode, MAX_LINE_CHARS } from "./types.ts";

/**
 * Grep's memory bound (issue 20.5): a search may match millions of files or lines, but the model is shown
 * one page of the newest-first order. The collector keeps only the files that can reach that page (the
 * newest ones, up to `keep` entries) and counts the rest, so memory grows with the page, not with the tree.
 */

/** Most entries (paths, counts or lines) a search keeps: `offset + head_limit` is clamped here. */
export const MAX_KEPT_ENTRIES = 200_000;

/** The page size of `head_limit: 0` ("no limit"): the result is cut at 100,000 characters anyway. */
export const MAX_UNLIMITED_PAGE = 20_000;

/** Entries to keep for a page at `offset` of `headLimit` (0 = no limit), within MAX_KEPT_ENTRIES. Pure. */
export function keepFor(offset: number, headLimit: number): number {
  const page = headLimit > 0 ? headLimit : MAX_UNLIMITED_PAGE;
  return Math.min(offset + page, MAX_KEPT_ENTRIES);
}

/** Lines and `--` gaps one file adds to the content listing (the `--` before it not counted). Pure. */
export function entriesOf(h: FileHits, mode: GrepMode, withContext: boolean): number {
  if (mode !== "content") return 1;
  if (h.entries !== undefined) return h.entries;
  let n = h.lines.length;
  if (withContext) for (let i = 1; i < h.lines.length; i++) if (h.lines[i]!.n > h.lines[i - 1]!.n + 1) n++;
  return n;
}

/** A line as kept: one character past the shown cut, so the formatter still knows it was cut. */
export const keptLine = (text: string) => (text.length > MAX_LINE_CHARS + 1 ? text.slice(0, MAX_LINE_CHARS + 1) : text);

/** Newest first, ties by path in code-unit order: the order of search/mtime.ts's byMtimeDesc. */
const newestFirst = (a: FileHits, b: FileHits) => b.mtimeMs! - a.mtimeMs! || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

export type Collected = {
  /** The kept files, newest first: at least `keep` entries' worth when there were that many. */
  hits: FileHits[];
  files: number;
  /** Entries the full listing would have (content mode: lines plus `--` separators). */
  entries: number;
  /** Sum of the files' counts (count mode's "Found N matching lines"). */
  matches: number;
  /** Entries kept at most: pages past this are not served. */
  keep: number;
};

export type Collector = {
  /** One file's hits, complete. A file `hide` covers is dropped uncounted. */
  add(h: FileHits): void;
  /** Entries held right now (for tests of the bound). */
  held(): number;
  done(): Collected;
};

export function createCollector(o: { mode: GrepMode; withContext: boolean; keep: number; hide?: (path: string) => boolean }): Collector {
  const keep = Math.max(1, o.keep);
  let kept: FileHits[] = [];
  let held = 0;
  let files = 0;
  let entries = 0;
  let matches = 0;
  const sep = o.mode === "content" && o.withContext ? 1 : 0;

  const mtime = (h: FileHits) => {
    if (h.mtimeMs !== undefined) return h.mtimeMs;
    try {
      const s = statSync(h.path);
      return s.isFile() ? s.mtimeMs : 0;
    } catch {
      return 0;
    }
  };

  /** Sorts and drops the files past the first `keep` entries; they stay counted. */
  const compact = () => {
    kept.sort(newestFirst);
    let sum = 0;
    let i = 0;
    while (i < kept.length && sum < keep) sum += entriesOf(kept[i++]!, o.mode, o.withContext) + sep;
    kept = kept.slice(0, i);
    held = sum;
  };

  return {
    add(h) {
      if (o.hide?.(h.path)) return;
      const n = entriesOf(h, o.mode, o.withContext);
      files++;
      entries += n + (files > 1 ? sep : 0);
      matches += h.count;
      // A file's lines past `keep` can never be shown, whatever its place in the order.
      if (h.lines.length > keep) {
        h.entries = n;
        h.lines = h.lines.slice(0, keep);
      }
      for (const l of h.lines) l.text = keptLine(l.text);
      h.mtimeMs = mtime(h);
      kept.push(h);
      held += Math.min(n, keep) + sep;
      if (held > 2 * keep + 1024) compact();
    },
    held: () => held,
    done() {
      compact();
      return { hits: kept, files, entries, matches, keep };
    },
  };
}
