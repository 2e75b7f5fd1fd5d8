/**
 * Translates ripgrep (Rust regex) syntax into a JavaScript RegExp for the built-in engine.
 * Covered: leading inline flags `(?i)` `(?s)` `(?m)` `(?x)`, `(?P<name>…)`, `\A`, `\z`, `\Z`, POSIX
 * classes like `[[:alpha:]]`. Everything else is passed to RegExp as is (with the
 * `u` flag when the pattern allows it, so `\p{L}` works).
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
  src = src
    .replace(/\(\?P<([A-Za-z_][A-Za-z0-9_]*)>/g, "(?<$1>")
    .replace(/\\A/g, "^")
    .replace(/\\[zZ]/g, "$")
    .replace(/\[:(\^?)([a-z]+):\]/g, (whole, neg: string, name: string) => {
      const set = POSIX[name];
      if (!set) return whole;
      return neg ? whole : set;
    });
  src = lineTerminatorsAsRipgrep(src, flags.includes("s"));
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

/**
 * ripgrep ends lines only at \n; JavaScript's `^` `$` (with m) and `.` also stop at \r, U+2028 and U+2029.
 * Rewrites them outside character classes to \n-only forms.
 */
function lineTerminatorsAsRipgrep(src: string, dotAll: boolean): string {
  let out = "";
  let inClass = false;
  for (let i = 0; i < src.length; i++) {
    const c = src[i]!;
    if (c === "\\") {
      out += c + (src[i + 1] ?? "");
      i++;
      continue;
    }
    if (inClass) {
      if (c === "]") inClass = false;
      out += c;
      continue;
    }
    if (c === "[") {
      inClass = true;
      out += c;
      if (src[i + 1] === "^") out += src[++i];
      if (src[i + 1] === "]") out += src[++i];
      continue;
    }
    if (c === "^") out += "(?<![^\\n])";
    else if (c === "$") out += "(?![^\\n])";
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
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    const next = pattern[i + 1];
    const optional = next === "?" || next === "*" || next === "{";
    if (c === "|" && depth === 0) return null;
    if (c === "(") {
      depth++;
      flush();
      continue;
    }
    if (c === ")") {
      depth--;
      flush();
      continue;
    }
    if (depth > 0) continue;
    if (c === "[") {
      flush();
      const close = pattern.indexOf("]", i + 2);
      if (close < 0) return null;
      i = close;
      continue;
    }
    if (c === "\\") {
      const e = pattern[i + 1];
      if (e && /[.*+?^${}()|[\]\\/\-]/.test(e)) {
        const after = pattern[i + 2];
        if (after === "?" || after === "*" || after === "{") flush();
        else run += e;
        i++;
        continue;
      }
      flush();
      i++;
      continue;
    }
    if (".^$*+?{}".includes(c)) {
      flush();
      continue;
    }
    if (optional) {
      flush();
      continue;
    }
    run += c;
  }
  flush();
  if (/[^\x20-\x7e]/.test(best)) return null;
  return best.length >= 3 ? best : null;
}
