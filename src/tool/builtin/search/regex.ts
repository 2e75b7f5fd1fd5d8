/**
 * Translates ripgrep (Rust regex) syntax into a JavaScript RegExp for the built-in engine.
 * Covered: leading inline flags `(?i)` `(?s)` `(?m)` `(?x)`, `(?P<name>…)`, `\A`, `\z`, `\x{…}`, `\U…`,
 * `\pL`, POSIX classes like `[[:alpha:]]`, escaped punctuation; escapes Rust rejects are rejected.
 * The rest is passed to RegExp as is (with the `u` flag when the pattern allows it, so `\p{L}` works).
 */

const POSIX: Record<string, string> = {
  alnum: "0-9A-Za-z",
  alpha: "A-Za-z",
  ascii: "\\x00-\\x7F",
  blank: "\\t ",
  cntrl: "\\x00-\\x1F\\x7F",
  digit: "0-9",
  graph: "!-~",
  lower: "a-z",
  print: " -~",
  punct: "!-\\/:-@\\[-`{-~",
  space: "\\t\\n\\v\\f\\r ",
  upper: "A-Z",
  word: "0-9A-Za-z_",
  xdigit: "0-9A-Fa-f",
};


/** Letters and digits that start an escape in Rust's regex syntax (backreferences are refused earlier). */
const RUST_LETTER_ESCAPES = "aftnrvxuUdDsSwWbBApPz";
/** Characters that keep their backslash in a JavaScript `u` regex. */
const JS_SYNTAX = "^$\\.*+?()[]{}|/";

/** Throws an Error with the reason when the pattern is not a valid regex in either dialect. */
export function translateRegex(pattern: string, opts: { ignoreCase: boolean; multiline: boolean }): RegExp {
  // ripgrep's default engine has neither; refusing them keeps both engines' answers the same.
  if (/\(\?<?[=!]/.test(pattern)) throw new Error("look-around is not supported");
  if (/(^|[^\\])(\\\\)*\\[1-9]/.test(pattern)) throw new Error("backreferences are not supported");
  let src = pattern;
  let flags = "gm";
  if (opts.ignoreCase) flags += "i";
  if (opts.multiline) flags += "s";
  const lead = /^\(\?([imsx]+)\)/.exec(src);
  if (lead) {
    src = src.slice(lead[0].length);
    for (const f of lead[1]!) if (f !== "x" && f !== "m" && !flags.includes(f)) flags += f;
  }
  src = toJavaScript(src, flags.includes("s"), opts.multiline);
  try {
    return new RegExp(src, `${flags}u`);
  } catch {
    try {
      return new RegExp(src, flags);
    } catch (err) {
      throw new Error((err as Error).message.replace(/^Invalid regular expression: /, ""));
    }
  }
}

/** Index of the last character of the escape whose backslash is at `i` (`\n`, `\x41`, `\x{41}`, `\pL`, `\p{Lu}`). */
function escapeEnd(src: string, i: number): number {
  const e = src[i + 1];
  const braced = src[i + 2] === "{";
  const close = () => {
    const j = src.indexOf("}", i + 3);
    return j < 0 ? src.length - 1 : j;
  };
  if (e === "x" || e === "u" || e === "U") {
    if (braced) return close();
    return Math.min(src.length - 1, i + 1 + (e === "x" ? 2 : e === "u" ? 4 : 8));
  }
  if (e === "p" || e === "P") return braced ? close() : Math.min(src.length - 1, i + 2);
  return Math.min(src.length - 1, i + 1);
}

/** Index of the `]` closing the class opened at `i` (a leading `]` is literal; classes nest, as in Rust), or -1. */
function classEnd(src: string, i: number): number {
  let j = i + 1;
  if (src[j] === "^") j++;
  if (src[j] === "]") j++;
  for (let depth = 1; j < src.length; j++) {
    const c = src[j];
    if (c === "\\") j = escapeEnd(src, j);
    else if (c === "[") depth++;
    else if (c === "]" && --depth === 0) return j;
  }
  return -1;
}

/**
 * Rewrites Rust syntax that JavaScript spells differently, in one pass that keeps escapes whole (so
 * `\\A` stays a backslash and an A) and tracks character classes: `(?P<n>`, `\A` `\z`, `\x{…}`
 * `\U…`, `\pL`, POSIX classes, a leading `]` in a class. ripgrep ends lines only at \n, while
 * JavaScript's `^` `$` (with m) and `.` also stop at \r, U+2028 and U+2029, so those become \n-only
 * forms. `\A` and `\z` anchor each line, as ripgrep searches line by line, or the whole file in
 * multiline mode.
 */
function toJavaScript(src: string, dotAll: boolean, wholeFile: boolean): string {
  const lineStart = "(?<![^\\n])";
  const lineEnd = "(?![^\\n])";
  let out = "";
  let inClass = false;
  for (let i = 0; i < src.length; i++) {
    const c = src[i]!;
    if (c === "\\") {
      const end = escapeEnd(src, i);
      const e = src[i + 1] ?? "";
      const body = src.slice(i + 2, end + 1);
      i = end;
      if (e === "x" || e === "u" || e === "U") out += body.startsWith("{") || e === "U" ? `\\u{${body.replace(/[{}]/g, "")}}` : `\\${e}${body}`;
      else if ((e === "p" || e === "P") && body && !body.startsWith("{")) out += `\\${e}{${body}}`;
      else if (!inClass && e === "A") out += wholeFile ? "(?<![^])" : lineStart;
      else if (!inClass && e === "z") out += wholeFile ? "(?![^])" : lineEnd;
      else if (e === "a") out += "\\x07";
      // JavaScript would read an unknown letter escape (\Q, \y) as the bare letter; ripgrep rejects it.
      else if (/[A-Za-z0-9]/.test(e) && !RUST_LETTER_ESCAPES.includes(e)) throw new Error(`unrecognized escape sequence \\${e}`);
      // Escaped punctuation is itself; spelled so the u flag accepts it (it refuses \# or \- outside a class).
      else if (/[!-/:-@[-`{-~]/.test(e) && !JS_SYNTAX.includes(e) && !(inClass && e === "-")) out += e;
      else out += `\\${e}${body}`;
      continue;
    }
    if (inClass) {
      const posix = c === "[" ? /^\[:([a-z]+):\]/.exec(src.slice(i, i + 12)) : null;
      if (posix && POSIX[posix[1]!]) {
        out += POSIX[posix[1]!];
        i += posix[0].length - 1;
        continue;
      }
      if (c === "]") inClass = false;
      out += c;
      continue;
    }
    if (c === "[") {
      inClass = true;
      out += c;
      if (src[i + 1] === "^") out += src[++i];
      if (src[i + 1] === "]") {
        out += "\\]";
        i++;
      }
      continue;
    }
    if (src.startsWith("(?P<", i)) {
      out += "(?<";
      i += 3;
    } else if (c === "^") out += lineStart;
    else if (c === "$") out += lineEnd;
    else if (c === ".") out += dotAll ? "[^]" : "[^\\n]";
    else out += c;
  }
  return out;
}

/**
 * Whether a pattern may match a newline (approximating ripgrep's analysis): ripgrep searches line by
 * line when it cannot, even with multiline on, and then counts lines rather than matches.
 */
export function canMatchNewline(pattern: string, dotAll: boolean): boolean {
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === "\\") {
      const e = pattern[++i];
      if (e && "nsWDpPx".includes(e)) return true;
      continue;
    }
    if (c === "." && dotAll) return true;
    if (c === "[" && pattern[i + 1] === "^") return true;
  }
  return false;
}

/**
 * A literal every match must contain, for a fast Buffer.indexOf prefilter; null when none is found
 * (alternation, case folding, or no run of ≥3 plain characters).
 */
export function requiredLiteral(pattern: string, ignoreCase: boolean): string | null {
  if (ignoreCase || pattern.startsWith("(?")) return null;
  let best = "";
  let run = "";
  let depth = 0;
  const flush = () => {
    if (run.length > best.length) best = run;
    run = "";
  };
  // A character followed by one of these may be absent from a match.
  const optional = (next: string | undefined) => next === "?" || next === "*" || next === "{";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === "\\") {
      const end = escapeEnd(pattern, i);
      const e = pattern[i + 1];
      // Only an escaped metacharacter stands for itself; \x41, \pL, \d … are not literal text.
      if (depth === 0 && end === i + 1 && e && /[.*+?^${}()|[\]\\/\-]/.test(e) && !optional(pattern[end + 1])) run += e;
      else flush();
      i = end;
      continue;
    }
    if (c === "[") {
      const end = classEnd(pattern, i);
      if (end < 0) return null;
      flush();
      i = end;
      continue;
    }
    if (c === "(" || c === ")") {
      depth += c === "(" ? 1 : -1;
      flush();
      continue;
    }
    if (c === "|" && depth === 0) return null;
    if (depth > 0) continue;
    if (".^$*+?{}".includes(c) || optional(pattern[i + 1])) {
      flush();
      continue;
    }
    run += c;
  }
  flush();
  if (/[^\x20-\x7e]/.test(best)) return null;
  return best.length >= 3 ? best : null;
}
