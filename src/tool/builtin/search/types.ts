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
  signal: AbortSignal;
};

export type GrepLine = { n: number; text: string; match: boolean };

/** Hits in one file. `lines` (match and context lines, ascending) is filled only in content mode. */
export type FileHits = { path: string; count: number; lines: GrepLine[]; mtimeMs?: number };

/**
 * A search engine: resolves to the files with at least one match, in any order.
 * Rejects with an Error whose message is worded for the model (bad regex, unknown type) or on abort.
 */
export type GrepEngine = (q: GrepQuery) => Promise<FileHits[]>;

/**
 * Most content-mode lines (matches plus context) a search may collect before it gives up: results are
 * sorted before paging, so everything is held in memory; past this the model must narrow the search.
 */
export const MAX_CONTENT_LINES = 200_000;

export const tooManyLinesMessage = () =>
  `The search matched more than ${MAX_CONTENT_LINES} lines, too many to sort and page. Narrow it (a more specific pattern, path, glob or type), or use output_mode "files_with_matches" or "count" first.`;

/** Longest line text shown; both engines' lines are cut here, so their output agrees. */
export const MAX_LINE_CHARS = 500;

export function invalidRegexMessage(pattern: string, reason: string): string {
  return `Invalid regular expression ${JSON.stringify(pattern)}: ${reason.trim()}. Grep uses ripgrep regex syntax: escape special characters (for example \\( \\[ \\{ \\. \\*) to match them literally, then call Grep again.`;
}
