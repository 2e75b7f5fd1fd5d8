import { fsp } from "../../../util/fs-promises.ts";
import { fileFilter, globOverride } from "./file-filter.ts";
import { canMatchNewline, requiredLiteral, translateRegex } from "./regex.ts";
import { type GrepEngine, type GrepLine, type GrepQuery, invalidRegexMessage } from "./types.ts";
import { walk } from "./walk.ts";

/** Files larger than this are skipped by the built-in engine, which reads a file whole (ripgrep streams). */
const MAX_FILE_BYTES = 64 * 1024 * 1024;

const READ_CONCURRENCY = 48;
const PENDING_HIGH = 4096;
const PENDING_LOW = 1024;

/** Line starts of `text`; a trailing newline does not start a line. */
function lineStarts(text: string): number[] {
  const starts = [0];
  let i = text.indexOf("\n");
  while (i !== -1 && i + 1 < text.length) {
    starts.push(i + 1);
    i = text.indexOf("\n", i + 1);
  }
  return starts;
}

function lineIndexOf(starts: number[], pos: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= pos) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

type Scan = { matched: number[]; starts: number[] | null; count: number };

/**
 * Matching lines of one file, by line index. Line mode scans the whole buffer once with an `m` regex
 * and confirms a line on its own only when the match crossed a newline (ripgrep never matches across
 * lines without multiline).
 */
function scan(text: string, re: RegExp, lineRe: RegExp, q: GrepQuery, needLines: boolean, countMatches: boolean): Scan {
  const firstOnly = q.mode === "files_with_matches";
  const matched: number[] = [];
  let starts: number[] | null = null;
  let count = 0;
  let lastLine = -1;
  // A trailing newline ends the last line; it does not start an empty one.
  const phantom = text.length === 0 || text.endsWith("\n");
  const end = text.endsWith("\n") ? text.length - 1 : text.length;
  re.lastIndex = 0;
  for (;;) {
    const m = re.exec(text);
    if (!m) break;
    const idx = m.index;
    if (idx >= text.length && phantom) break;
    if (q.multiline) {
      starts ??= lineStarts(text);
      const first = lineIndexOf(starts, idx);
      const last = m[0].length ? lineIndexOf(starts, Math.min(idx + m[0].length - 1, end)) : first;
      for (let l = Math.max(first, lastLine + 1); l <= last; l++) {
        matched.push(l);
        if (!countMatches) count++;
      }
      if (countMatches) count++;
      lastLine = Math.max(lastLine, last);
      if (firstOnly) break;
      re.lastIndex = m[0].length ? idx + m[0].length : idx + 1;
      continue;
    }
    const lineStart = text.lastIndexOf("\n", idx - 1) + 1;
    let lineEnd = text.indexOf("\n", idx);
    if (lineEnd === -1) lineEnd = text.length;
    const ok = !m[0].includes("\n") || lineRe.test(text.slice(lineStart, lineEnd));
    if (ok) {
      count++;
      if (firstOnly) break;
      if (needLines) {
        starts ??= lineStarts(text);
        matched.push(lineIndexOf(starts, lineStart));
      }
    }
    re.lastIndex = lineEnd + 1;
    if (lineEnd >= text.length) break;
  }
  return { matched, starts, count };
}

/**
 * Match and context lines of one file, the first `maxLines` of them kept; `entries` counts them all plus
 * the `--` gaps the listing puts between groups (`gaps`), so a file of a million matches costs one page.
 */
function withContext(
  text: string,
  s: Scan,
  q: Pick<GrepQuery, "before" | "after" | "maxLines">,
  only: RegExp | null,
): { lines: GrepLine[]; entries: number } {
  const starts = s.starts!;
  const total = starts.length;
  // `matched` is ascending and lines are visited in ascending order: a pointer instead of a Set of every match.
  let mi = 0;
  const isMatch = (i: number) => {
    while (mi < s.matched.length && s.matched[mi]! < i) mi++;
    return s.matched[mi] === i;
  };
  const gaps = q.before > 0 || q.after > 0;
  const out: GrepLine[] = [];
  let entries = 0;
  let prevN = -1;
  const push = (n: number, lineText: () => string, match: boolean) => {
    if (gaps && prevN !== -1 && n > prevN + 1) entries++;
    entries++;
    prevN = n;
    if (out.length < q.maxLines) out.push({ n, text: lineText(), match });
  };
  let next = 0;
  for (const l of s.matched) {
    const from = Math.max(l - q.before, next);
    const to = Math.min(l + q.after, total - 1);
    for (let i = from; i <= to; i++) {
      const a = starts[i]!;
      let b = i + 1 < total ? starts[i + 1]! - 1 : text.length;
      if (b > a && i + 1 >= total && text[b - 1] === "\n") b--;
      if (only && isMatch(i)) {
        only.lastIndex = 0;
        // Empty matches (e.g. `x*`) carry nothing to show; both engines drop them.
        for (const m of text.slice(a, b).matchAll(only)) if (m[0]) push(i + 1, () => m[0], true);
      } else push(i + 1, () => text.slice(a, b), isMatch(i));
    }
    next = Math.max(next, to + 1);
  }
  return { lines: out, entries };
}

/**
 * Searches with a JavaScript RegExp: same walk rules as `rg --hidden --glob !.git` (ignore files,
 * `.git` skipped, symlinks not followed), binary files (a NUL byte) skipped.
 */
export const builtinEngine: GrepEngine = async (q, onFile) => {
  let re: RegExp;
  try {
    re = translateRegex(q.pattern, { ignoreCase: q.ignoreCase, multiline: q.multiline });
  } catch (err) {
    throw new Error(invalidRegexMessage(q.pattern, (err as Error).message));
  }
  const lineRe = new RegExp(re.source, re.flags.replace("g", ""));
  const filter = fileFilter(q.globs, q.type);
  const literal = q.multiline ? null : requiredLiteral(q.pattern, q.ignoreCase);
  const needle = literal ? Buffer.from(literal) : null;
  const needLines = q.mode === "content";
  // ripgrep's count in multiline mode: matches when the pattern can span lines, otherwise lines.
  const countMatches = q.multiline && canMatchNewline(q.pattern, true);

  const pending: string[] = [];
  let walking = true;
  let active = 0;
  let wake: () => void = () => {};
  // The walk outruns the reads on a big tree: past PENDING_HIGH paths it waits for them (issue 20.5).
  let drained: Array<() => void> = [];

  const searchFile = async (abs: string) => {
    let buf: Buffer;
    let mtimeMs: number;
    try {
      // Only regular files of a bounded size: a symlink to a FIFO blocks, one to /dev/zero never ends (issue 20.5).
      const st = await fsp().stat(abs);
      if (!st.isFile() || st.size > MAX_FILE_BYTES) return;
      mtimeMs = st.mtimeMs;
      buf = await fsp().readFile(abs);
    } catch {
      return;
    }
    if (q.signal.aborted) return;
    if (needle && buf.indexOf(needle) === -1) return;
    if (buf.indexOf(0) !== -1) return;
    const text = buf.toString("utf8");
    const s = scan(text, re, lineRe, q, needLines, countMatches);
    if (!s.count) return;
    if (!needLines) return onFile({ path: abs, count: s.count, lines: [], mtimeMs });
    const { lines, entries } = withContext(text, s, q, q.onlyMatching ? re : null);
    onFile({ path: abs, count: s.count, lines, entries, mtimeMs });
  };

  const done = new Promise<void>((resolve, reject) => {
    const pump = () => {
      if (q.signal.aborted) return reject(q.signal.reason ?? new Error("aborted"));
      if (pending.length < PENDING_LOW && drained.length) {
        for (const go of drained.splice(0)) go();
      }
      while (active < READ_CONCURRENCY && pending.length) {
        const f = pending.pop()!;
        active++;
        searchFile(f).finally(() => {
          active--;
          pump();
        });
      }
      if (!walking && active === 0 && pending.length === 0) resolve();
    };
    wake = pump;
  });
  done.catch(() => {});
  // Answer an abort at once; reads already started finish in the background and are dropped.
  const onAbort = () => {
    for (const go of drained.splice(0)) go();
    wake();
  };
  q.signal.addEventListener("abort", onAbort, { once: true });
  try {
    if (q.rootIsFile) {
      pending.push(q.root);
    } else {
      await walk({
        root: q.root,
        signal: q.signal,
        forceInclude: globOverride(q.globs),
        onFile: (e) => {
          if (filter && !filter(e.rel)) return;
          pending.push(e.abs);
          if (active < READ_CONCURRENCY) wake();
          if (pending.length >= PENDING_HIGH) return new Promise<void>((go) => drained.push(go));
        },
      });
    }
    walking = false;
    wake();
    await done;
  } finally {
    q.signal.removeEventListener("abort", onAbort);
  }
};
