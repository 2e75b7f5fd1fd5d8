/**
 * The YAML library, loaded the first time a frontmatter block is more than flat `key: value` lines (quickYaml below
 * reads those): a start whose files are all flat never loads it (issue 21: peak memory and CPU of a one-turn run).
 * require, not import(): parseFrontmatter is synchronous; the bundler keeps the package out of the start's chunks.
 */
let yamlLib: typeof import("yaml") | undefined;
const yaml = (): typeof import("yaml") => (yamlLib ??= require("yaml") as typeof import("yaml"));

/**
 * The one frontmatter reader (issue 11 point 6): instruction files and rules, memory files, agents, and the
 * skills and commands that come next all split their `---` block here. A BOM and CRLF line ends are taken
 * as they come. Never throws.
 */
export type Frontmatter = {
  /** Whether the text starts with a complete `---` … `---` block. */
  present: boolean;
  /** The fields, or null (no block, YAML that is not a mapping, or YAML that could not be read). */
  data: Record<string, unknown> | null;
  /** The text after the block (the whole text when there is none). */
  body: string;
  /** Why the YAML could not be read, with its line in the file (1-based) when the parser knows it. */
  error?: { message: string; line?: number };
};

export type FrontmatterOptions = {
  /** false: only split, do not parse the YAML (cheaper; `data` is null). Default true. */
  parse?: boolean;
  /**
   * Read `key: value` lines as strings when strict YAML refuses them (agent files in the wild have
   * `description: Use this when: …`, which Claude Code still loads). Default false.
   */
  loose?: boolean;
  /**
   * Read flat `key: value` / `- item` blocks without the YAML library (~0.1 ms a call saved per file), with the
   * library's exact values (`maxTurns: 5` gives 5, `tools: null` null); anything more goes to the library. Default false.
   */
  fast?: boolean;
};

const BLOCK = /^---[ \t]*\r?\n([\s\S]*?)\r?\n?---[ \t]*(?:\r?\n|$)/;

export function parseFrontmatter(text: string, opts: FrontmatterOptions = {}): Frontmatter {
  const t = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (!t.startsWith("---")) return { present: false, data: null, body: text };
  if (opts.fast && opts.parse !== false) {
    const simple = simpleBlock(t);
    if (simple) return simple;
  }
  const m = BLOCK.exec(t);
  if (!m) return { present: false, data: null, body: text };
  const body = t.slice(m[0].length);
  if (opts.parse === false) return { present: true, data: null, body };
  const src = m[1] ?? "";
  const quick = opts.fast ? quickYaml(src) : null;
  if (quick) return { present: true, data: quick, body };
  try {
    const v = yaml().parse(src);
    if (v === null || v === undefined) return { present: true, data: {}, body };
    if (typeof v !== "object" || Array.isArray(v)) return { present: true, data: null, body, error: { message: "the frontmatter must be a mapping of fields" } };
    return { present: true, data: v as Record<string, unknown>, body };
  } catch (e) {
    const loose = opts.loose ? looseYaml(src) : null;
    if (loose) return { present: true, data: loose, body };
    // +1: the opening `---` line.
    const line = e instanceof yaml().YAMLParseError && e.linePos ? e.linePos[0].line + 1 : undefined;
    const message = `invalid YAML frontmatter: ${(e as Error).message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "")}`;
    return { present: true, data: null, body, error: { message, ...(line ? { line } : {}) } };
  }
}

/**
 * `{ data, body }` only, string values read the fast way: for instruction files, rules and memory files, which
 * ignore unreadable YAML (it is still stripped from the body).
 */
export function splitFrontmatter(text: string, parse = true): { data: Record<string, unknown> | null; body: string } {
  const f = parseFrontmatter(text, { parse, fast: true });
  return { data: f.data, body: f.body };
}

/**
 * The commonest block in one native match: `key: value` lines only (LF or CRLF), each value plain text the YAML library
 * reads as a string or as one of its true/false/null spellings: not starting with a space, an indicator, a quote, a
 * digit, a sign, a dot or `~`; no ` #` comment, no `---` (which would end the block early) and no whitespace but spaces
 * and tabs in it. At start-up the JIT is held back (build.ts: jitPolicy), so what each skill and command file costs
 * is what the interpreter runs: one match and one split per file instead of a match and checks per line (issue 14
 * point 7, the first start). Anything else is left to flatYaml and quickYaml (null), which read these lines alike.
 */
const SIMPLE_BLOCK =
  /^---[ \t]*\r?\n((?:[A-Za-z_][\w-]*:[ \t]+(?![ \t[\]{},#&*!|>%@`?:"'0-9+\-.~])(?:[^\s-]|-(?!--)|[ \t](?!#))+\r?\n)+)---[ \t]*(?:\r?\n|$)/;
/** One line of a SIMPLE_BLOCK, for a split: key and value (trailing blanks left out) as captures, nothing between. */
const SIMPLE_LINE = /([A-Za-z_][\w-]*):[ \t]+([^\r\n]*?)[ \t]*\r?\n/;
/** A value with `: ` (or a colon at its end) in a SIMPLE_BLOCK: the library refuses the block, so it is read loosely. */
const REFUSED_LINE = /^[A-Za-z_][\w-]*:[ \t]+[^\r\n]*:(?:[ \t]|\r?$)/m;
/** The values plainValue does not read as text. */
export const KEYWORDS: Readonly<Record<string, boolean | null>> = Object.assign(Object.create(null), {
  null: null, Null: null, NULL: null, true: true, True: true, TRUE: true, false: false, False: false, FALSE: false,
});

/**
 * A SIMPLE_BLOCK at the top of t (BOM already off), split: `parts[i]` a key and `parts[i + 1]` its value (as written,
 * trimmed) for i = 1, 4, 7…; `loose` when a value has `: ` in it (every value is then text, as looseYaml reads it:
 * else true/false/null in KEYWORDS' spellings are typed); the body starts at `end`. Null when t starts otherwise.
 * Keys may repeat: the caller says no to that (the library refuses the block, and the loose reading decides).
 */
export function simpleLines(t: string): { parts: string[]; loose: boolean; end: number } | null {
  const m = SIMPLE_BLOCK.exec(t);
  if (!m) return null;
  const src = m[1]!;
  return { parts: src.split(SIMPLE_LINE), loose: REFUSED_LINE.test(src), end: m[0].length };
}

/** A SIMPLE_BLOCK at the top of t (BOM already off) read as flatYaml reads it, or null. Exported for its tests. */
export function simpleBlock(t: string): Frontmatter | null {
  const s = simpleLines(t);
  if (!s) return null;
  const { parts, loose } = s;
  const data: Record<string, unknown> = {};
  for (let i = 1; i < parts.length; i += 3) {
    const k = parts[i]!;
    // A key twice is the library's (and then the loose reading's) to say, and so is a `__proto__` key (an own field
    // there): `in`, not hasOwn, finds both (`__proto__` is inherited); a key such as `constructor` takes the longer way.
    if (k in data) return null;
    const v = parts[i + 1]!;
    data[k] = loose || !(v in KEYWORDS) ? v : KEYWORDS[v];
  }
  return { present: true, data, body: t.slice(s.end) };
}

/** First characters that make a YAML value more than a plain or simply quoted string (YAML's indicators). */
const SPECIAL = new Set(["[", "]", "{", "}", ",", "#", "&", "*", "!", "|", ">", "%", "@", "`", "?", ":"]);

/** What plainValue says when the YAML library must read the value. */
const LIBRARY = Symbol("library");
/** What plainValue says of an unquoted value with `: ` in it, which the library refuses: the block is read loosely. */
const REFUSED = Symbol("refused");

/**
 * A value as the YAML library reads it (its default, YAML 1.2's core schema), when that is plain: unquoted text, a
 * boolean or null in the schema's spellings, a decimal integer, or text in matching quotes with no escapes; LIBRARY when
 * the library must decide (a flow collection, an anchor, a block scalar, a comment, an escape, any other number).
 */
function plainValue(v: string): unknown {
  if (SPECIAL.has(v[0]!) || v.includes(" #") || v.includes("\t#")) return LIBRARY;
  const q = v[0];
  if (q === '"' || q === "'") {
    if (v.length < 2 || v[v.length - 1] !== q) return LIBRARY;
    const inner = v.slice(1, -1);
    // `\"` escapes and `''` are the parser's to read.
    return inner.includes(q) || (q === '"' && inner.includes("\\")) ? LIBRARY : inner;
  }
  if (MAPPING_IN_VALUE.test(v)) return REFUSED;
  const c = v.charCodeAt(0);
  // A leading digit, sign, dot or ~ covers every number, .inf, .nan and ~: decimal integers are read here, the rest
  // (floats, 0x1F, 0o17, and strings such as 5abc that only look alike) by the library.
  if ((c >= 48 && c <= 57) || c === 43 || c === 45 || c === 46 || c === 126) return v === "~" ? null : INT.test(v) ? parseInt(v, 10) : LIBRARY;
  if (c === 110 || c === 78) return v === "null" || v === "Null" || v === "NULL" ? null : v;
  if (c === 116 || c === 84) return v === "true" || v === "True" || v === "TRUE" ? true : v;
  if (c === 102 || c === 70) return v === "false" || v === "False" || v === "FALSE" ? false : v;
  return v;
}
const INT = /^[-+]?[0-9]+$/;
/** `a: b` or `a:` at the end: a mapping inside a plain value, "not allowed in compact mappings". */
const MAPPING_IN_VALUE = /:(?:[ \t]|$)/;

/**
 * Whitespace the fast readers leave to the library: any but space, tab and CRLF/LF line ends (a form feed, a no-break
 * space, a lone CR, which YAML reads as a line break), and a `__proto__` key (an own field for the library).
 */
const UNUSUAL = /[^\S \t\r\n]|\r(?!\n)|__proto__/;

const isKeyStart = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
const isKeyChar = (c: number) => isKeyStart(c) || (c >= 48 && c <= 57) || c === 45;

/** One `key: value` line (the value not empty), matched where the previous one ended. */
const FLAT_LINE = /([A-Za-z_][A-Za-z0-9_-]*):[ \t]+([^\r\n]*?)[ \t]*\r?(?:\n|$)/y;

/**
 * The commonest block, only `key: value` lines, one sticky match per line: at start-up the JIT is held back
 * (build.ts: jitPolicy), so each file's frontmatter costs what the interpreter runs, and a native match per line costs
 * less than scanning the line in script (issue 14 point 7, the first start). The same result quickYaml gives for these
 * lines; null for any other line (a blank, a comment, a list, an empty value), which quickYaml then reads.
 */
function flatYaml(src: string): Record<string, unknown> | null {
  const out: Record<string, unknown> = {};
  let refused = false;
  for (let at = 0; at < src.length; at = FLAT_LINE.lastIndex) {
    FLAT_LINE.lastIndex = at;
    const m = FLAT_LINE.exec(src);
    if (!m) return null;
    const v = m[2]!;
    const p = v ? plainValue(v) : LIBRARY;
    // A key twice: the library refuses the block too, and is left to say so.
    if (p === LIBRARY || Object.hasOwn(out, m[1]!)) return null;
    if (p === REFUSED) refused = true;
    else out[m[1]!] = p;
  }
  return refused ? looseYaml(src) : out;
}

// Frontmatter is nearly always flat `key: value` and `- item` lines, which this reads directly, line by line with
// plain string scans (it runs for every skill and command file at startup: issue 14 point 7). Anything else returns
// null and goes to the real parser.
function quickYaml(src: string): Record<string, unknown> | null {
  if (UNUSUAL.test(src)) return null;
  const flat = flatYaml(src);
  if (flat) return flat;
  const out: Record<string, unknown> = {};
  let refused = false;
  let listKey: string | null = null;
  let list: unknown[] | null = null;
  for (let at = 0; at <= src.length; ) {
    let nl = src.indexOf("\n", at);
    if (nl < 0) nl = src.length;
    const line = src.charCodeAt(nl - 1) === 13 ? src.slice(at, nl - 1) : src.slice(at, nl);
    at = nl + 1;
    const t = line.trim();
    // A blank line with a tab in it: the library reads it as content of the key before it.
    if (!t && line.includes("\t")) return null;
    if (!t || t[0] === "#") continue;
    if (t[0] === "-" && (t.length === 1 || t[1] === " " || t[1] === "\t")) {
      if (!list) return null;
      const v = t.slice(1).trim();
      const p = v ? plainValue(v) : LIBRARY;
      // `- a: b` is a mapping in the list.
      if (p === LIBRARY || p === REFUSED) return null;
      list.push(p);
      continue;
    }
    // `key:` or `key: value`, the key at the start of the line.
    if (!isKeyStart(line.charCodeAt(0))) return null;
    let i = 1;
    while (i < line.length && isKeyChar(line.charCodeAt(i))) i++;
    if (line.charCodeAt(i) !== 58) return null;
    const after = line.charCodeAt(i + 1);
    if (i + 1 < line.length && after !== 32 && after !== 9) return null;
    const key = line.slice(0, i);
    const v = line.slice(i + 1).trim();
    if (Object.hasOwn(out, key) || key === listKey) return null;
    if (listKey !== null) out[listKey] = list!.length ? list : null;
    listKey = null;
    list = null;
    if (v === "") {
      listKey = key;
      list = [];
      continue;
    }
    const p = plainValue(v);
    if (p === LIBRARY) return null;
    if (p === REFUSED) refused = true;
    else out[key] = p;
  }
  if (listKey !== null) out[listKey] = list!.length ? list : null;
  return refused ? looseYaml(src) : out;
}

/** Each `key: value` line as a string, indented lines continuing the previous value; null if a line is neither. */
function looseYaml(src: string): Record<string, unknown> | null {
  const out: Record<string, unknown> = {};
  let last: string | null = null;
  for (const line of src.split(/\r?\n/)) {
    if (!line.trim() || line.trimStart().startsWith("#")) continue;
    const m = /^([A-Za-z_][A-Za-z0-9_-]*):\s?(.*)$/.exec(line);
    if (m) {
      last = m[1]!;
      out[last] = m[2]!.trim().replace(/^(["'])(.*)\1$/, "$2");
    } else if (last && /^\s/.test(line)) out[last] = `${String(out[last])} ${line.trim()}`.trim();
    else return null;
  }
  return out;
}
