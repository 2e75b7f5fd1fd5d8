export type GrepMode = "content" | "files_with_matches" | "count";

/** One search, already resolved: absolute root, context merged, globs split. */
export type GrepQuery = {
  pattern: string;
  /** Absolute path of a directory or a single file. */
  root: string;
  rootIsFile: boolean;
  /** ripgrep-style globs; `!` excludes. A glob without `/` matches the file name at any depth. */
  globs: string[];
  type?: string;
  mode: GrepMode;
  before: number;
  after: number;
  ignoreCase: boolean;
  multiline: boolean;
  /** Content mode: one line per match holding only the matched text (rg -o). */
  onlyMatching: boolean;
  /** Content mode: lines of one file kept at most; the rest are counted in `entries` (issue 20.5). */
  maxLines: number;
  signal: AbortSignal;
};

export type GrepLine = { n: number; text: string; match: boolean };

/**
 * Hits in one file. `lines` (match and context lines, ascending) is filled only in content mode, at most
 * `maxLines` of them; `entries` then says how many lines and `--` gaps the whole file had.
 */
export type FileHits = { path: string; count: number; lines: GrepLine[]; mtimeMs?: number; entries?: number };

/**
 * A search engine: hands each file with at least one match to `onFile`, complete, in any order, and
 * resolves when the search is over. Holds no more than one file's hits itself.
 * Rejects with an Error whose message is worded for the model (bad regex, unknown type) or on abort.
 */
export type GrepEngine = (q: GrepQuery, onFile: (h: FileHits) => void) => Promise<void>;

/** Longest line text shown; both engines' lines are cut here, so their output agrees. */
export const MAX_LINE_CHARS = 500;

export function invalidRegexMessage(pattern: string, reason: string): string {
  return `Invalid regular expression ${JSON.stringify(pattern)}: ${reason.trim()}. Grep uses ripgrep regex syntax: escape special characters (for example \\( \\[ \\{ \\. \\*) to match them literally, then call Grep again.`;
}
