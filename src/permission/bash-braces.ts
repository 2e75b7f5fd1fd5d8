// Brace expansion as bash does it before any other expansion (issue 16 red-team: `cat {".env",x}`, `{"r",}m`):
// over a pattern where quoted characters are backslash-escaped, so a quoted `,` or `{` never splits. Pure.

/** Characters a quoted part escapes in a word's pattern: braces, commas, glob metas and the escape itself. */
const SPECIAL = /[{},*?[\]\\]/g;
export const escapeQuoted = (s: string): string => s.replace(SPECIAL, "\\$&");

/** The pattern with its backslash escapes removed: the word's value. */
export const unescapePattern = (s: string): string => s.replace(/\\(.)/gs, "$1");

type Found = { start: number; end: number; alts: string[] };

function sequence(inner: string, limit: number): string[] | undefined | null {
  const m = /^(-?\d+|[a-zA-Z])\.\.(-?\d+|[a-zA-Z])(?:\.\.(-?\d+))?$/.exec(inner);
  if (!m) return null;
  const [, a, b, stepText] = m as unknown as [string, string, string, string | undefined];
  const step = Math.abs(Number(stepText ?? 1)) || 1;
  const numeric = /\d/.test(a) && /\d/.test(b);
  if (!numeric && (/\d/.test(a) || /\d/.test(b))) return null;
  const from = numeric ? Number(a) : a.charCodeAt(0);
  const to = numeric ? Number(b) : b.charCodeAt(0);
  if (Math.abs(to - from) / step > limit) return undefined;
  const width = numeric && (/^-?0\d/.test(a) || /^-?0\d/.test(b)) ? Math.max(a.replace("-", "").length, b.replace("-", "").length) : 0;
  const out: string[] = [];
  for (let v = from; from <= to ? v <= to : v >= to; v += from <= to ? step : -step) {
    if (!numeric) out.push(String.fromCharCode(v));
    else out.push(v < 0 ? `-${String(-v).padStart(width, "0")}` : String(v).padStart(width, "0"));
  }
  return out;
}

/** The first `{...}` that expands (a top-level comma or a sequence), or undefined; null when a sequence is too long. */
function firstBrace(str: string, limit: number): Found | undefined | null {
  for (let i = 0; i < str.length; i++) {
    if (str[i] === "\\") {
      i++;
      continue;
    }
    if (str[i] !== "{") continue;
    let depth = 0;
    const commas: number[] = [];
    let j = i + 1;
    for (; j < str.length; j++) {
      const c = str[j];
      if (c === "\\") j++;
      else if (c === "{") depth++;
      else if (c === "}") {
        if (depth === 0) break;
        depth--;
      } else if (c === "," && depth === 0) commas.push(j);
    }
    if (j >= str.length) continue;
    if (commas.length) {
      const alts: string[] = [];
      let from = i + 1;
      for (const c of [...commas, j]) {
        alts.push(str.slice(from, c));
        from = c + 1;
      }
      return { start: i, end: j, alts };
    }
    const seq = sequence(str.slice(i + 1, j), limit);
    if (seq === undefined) return null;
    if (seq) return { start: i, end: j, alts: seq };
  }
  return undefined;
}

/**
 * Every word a pattern brace-expands to (still escaped), or undefined when there are more than `limit`.
 * `{a,b}` → a b; `x{1..3}` → x1 x2 x3; nested braces and several groups multiply; a lone `{` or `{a}` stays.
 */
export function braceExpand(pattern: string, limit = 256): string[] | undefined {
  const out: string[] = [];
  const go = (s: string): boolean => {
    const f = firstBrace(s, limit);
    if (f === null) return false;
    if (!f) {
      out.push(s);
      return out.length <= limit;
    }
    for (const alt of f.alts) if (!go(s.slice(0, f.start) + alt + s.slice(f.end + 1))) return false;
    return true;
  };
  return go(pattern) ? out : undefined;
}

/** Whether a pattern holds a brace expansion at all. */
export const hasBraces = (pattern: string): boolean => {
  const f = firstBrace(pattern, 0);
  return f !== undefined;
};
