import { parse as parseYaml, YAMLParseError } from "yaml";
import type { AgentDefinition, AgentSource } from "./types.ts";

export type AgentParse = { ok: true; agent: AgentDefinition } | { ok: false; error: string };

const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

/** Splits `---\n<yaml>\n---\n<body>`; null when the file has no frontmatter. */
function splitFrontmatter(text: string): { yaml: string; body: string } | null {
  const t = text.replace(/^\uFEFF/, "").replace(/\r\n/g, "\n");
  if (!t.startsWith("---\n")) return null;
  const end = t.indexOf("\n---", 3);
  if (end < 0) return null;
  const after = t.indexOf("\n", end + 4);
  return { yaml: t.slice(4, end + 1), body: after < 0 ? "" : t.slice(after + 1) };
}

/**
 * Many agent files in the wild have plain `description: Use this when: …` lines that strict YAML
 * refuses (a colon inside a plain scalar). Claude Code still loads them, so as a fallback read each
 * `key: value` line as a string, with indented lines continuing the previous value.
 */
function looseFrontmatter(yaml: string): Record<string, unknown> | null {
  const out: Record<string, unknown> = {};
  let last: string | null = null;
  for (const line of yaml.split("\n")) {
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

/** A comma/space-separated string or a list of strings → names; anything else → an error text. */
function toolList(v: unknown): string[] | string {
  if (typeof v === "string")
    return v
      .split(/,(?![^(]*\))/)
      .map((s) => s.trim())
      .filter(Boolean);
  if (Array.isArray(v) && v.every((x) => typeof x === "string")) return v.map((s) => s.trim()).filter(Boolean);
  return "must be a comma-separated string or a list of tool names";
}

/**
 * Parses one agent file (contracts §6.4): frontmatter `name`, `description` (both required),
 * `tools`, `disallowedTools`, `model`, `maxTurns`; the body is the system prompt. Other fields are
 * accepted and ignored. Never throws: a bad file comes back as an error naming the file, line and field.
 */
export function parseAgentFile(text: string, file: string, source: AgentSource): AgentParse {
  const fail = (msg: string): AgentParse => ({ ok: false, error: `${file}: ${msg}` });
  const parts = splitFrontmatter(text);
  if (!parts) return fail("no frontmatter: an agent file starts with a `---` block holding at least `name` and `description`");
  let fm: unknown;
  try {
    fm = parseYaml(parts.yaml) ?? {};
  } catch (e) {
    const loose = looseFrontmatter(parts.yaml);
    if (!loose) {
      const line = e instanceof YAMLParseError && e.linePos ? `:${e.linePos[0].line + 1}` : "";
      return { ok: false, error: `${file}${line}: invalid YAML frontmatter: ${(e as Error).message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "")}` };
    }
    fm = loose;
  }
  if (typeof fm !== "object" || fm === null || Array.isArray(fm)) return fail("the frontmatter must be a mapping of fields");
  const f = fm as Record<string, unknown>;

  if (typeof f.name !== "string" || !f.name.trim()) return fail('field "name" is required (a name like code-reviewer)');
  const name = f.name.trim();
  if (!NAME_RE.test(name)) return fail(`field "name": "${name}" may hold only letters, digits, hyphens and underscores`);
  if (typeof f.description !== "string" || !f.description.trim())
    return fail('field "description" is required: say when this agent should be used');

  const agent: AgentDefinition = { name, description: f.description.trim(), systemPrompt: parts.body.trim(), source, file };
  for (const key of ["tools", "disallowedTools"] as const) {
    if (f[key] === undefined || f[key] === null) continue;
    const list = toolList(f[key]);
    if (typeof list === "string") return fail(`field "${key}" ${list}`);
    agent[key] = list;
  }
  if (f.model !== undefined && f.model !== null) {
    if (typeof f.model !== "string" || !f.model.trim()) return fail('field "model" must be a model name, an alias (sonnet, opus, haiku, fable) or inherit');
    agent.model = f.model.trim();
  }
  if (f.maxTurns !== undefined && f.maxTurns !== null) {
    const n = typeof f.maxTurns === "string" ? Number(f.maxTurns) : f.maxTurns;
    if (typeof n !== "number" || !Number.isInteger(n) || n < 1) return fail(`field "maxTurns" must be a positive whole number (got ${JSON.stringify(f.maxTurns)})`);
    agent.maxTurns = n;
  }
  return { ok: true, agent };
}
