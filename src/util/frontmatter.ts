import { parse as parseYaml, YAMLParseError } from "yaml";

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
   * Read flat `key: value` / `- item` blocks without the YAML library (~0.1 ms a call saved per file): every
   * value is then a string (`maxTurns: 5` gives "5"). For callers that read only strings. Default false.
   */
  fast?: boolean;
};

const BLOCK = /^---[ \t]*\r?\n([\s\S]*?)\r?\n?---[ \t]*(?:\r?\n|$)/;

export function parseFrontmatter(text: string, opts: FrontmatterOptions = {}): Frontmatter {
  const t = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (!t.startsWith("---")) return { present: false, data: null, body: text };
  const m = BLOCK.exec(t);
  if (!m) return { present: false, data: null, body: text };
  const body = t.slice(m[0].length);
  if (opts.parse === false) return { present: true, data: null, body };
  const yaml = m[1] ?? "";
  const quick = opts.fast ? quickYaml(yaml) : null;
  if (quick) return { present: true, data: quick, body };
  try {
    const v = parseYaml(yaml);
    if (v === null || v === undefined) return { present: true, data: {}, body };
    if (typeof v !== "object" || Array.isArray(v)) return { present: true, data: null, body, error: { message: "the frontmatter must be a mapping of fields" } };
    return { present: true, data: v as Record<string, unknown>, body };
  } catch (e) {
    const loose = opts.loose ? looseYaml(yaml) : null;
    if (loose) return { present: true, data: loose, body };
    // +1: the opening `---` line.
    const line = e instanceof YAMLParseError && e.linePos ? e.linePos[0].line + 1 : undefined;
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

const unquote = (v: string) => (/^(["']).*\1$/.test(v) ? v.slice(1, -1) : v);

// Frontmatter is nearly always flat `key: value` and `- item` lines, which this reads directly. Anything
// else returns null and goes to the real parser.
function quickYaml(src: string): Record<string, unknown> | null {
  const out: Record<string, unknown> = {};
  let listKey: string | null = null;
  for (const line of src.split(/\r?\n/)) {
    if (!line.trim() || line.trimStart().startsWith("#")) continue;
    const item = /^\s+-\s+(.*)$/.exec(line) ?? /^-\s+(.*)$/.exec(line);
    if (item && listKey) {
      const v = item[1]!.trim();
      if (/^[\[{&*!|>%@`]/.test(v) || /:\s/.test(v) || /\s#/.test(v)) return null;
      (out[listKey] as string[]).push(unquote(v));
      continue;
    }
    const kv = /^([A-Za-z_][\w-]*):(?:\s+(.*))?$/.exec(line);
    if (!kv) return null;
    const v = (kv[2] ?? "").trim();
    listKey = null;
    if (v === "") {
      out[kv[1]!] = [];
      listKey = kv[1]!;
    } else if (/^[\[{&*!|>%@`]/.test(v) || /^["'].*[^"']$/.test(v) || /\s#/.test(v)) return null;
    else out[kv[1]!] = unquote(v);
  }
  for (const [k, v] of Object.entries(out)) if (Array.isArray(v) && v.length === 0) out[k] = null;
  return out;
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
