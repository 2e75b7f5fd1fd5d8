import { parseFrontmatter } from "../util/frontmatter.ts";
import type { AgentDefinition, AgentSource } from "./types.ts";

export type AgentParse = { ok: true; agent: AgentDefinition } | { ok: false; error: string };

const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

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
  // Many agent files in the wild have `description: Use this when: …` lines strict YAML refuses; Claude Code loads them.
  // fast: flat blocks are read without the YAML library (every start reads the plugins' and user's agents),
  // with the library's exact values.
  const parts = parseFrontmatter(text, { fast: true, loose: true });
  if (!parts.present) return fail("no frontmatter: an agent file starts with a `---` block holding at least `name` and `description`");
  if (parts.error) return { ok: false, error: `${file}${parts.error.line ? `:${parts.error.line}` : ""}: ${parts.error.message}` };
  const f = parts.data ?? {};

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
  if (f.permissionMode !== undefined && f.permissionMode !== null) {
    const modes = ["default", "acceptEdits", "plan", "bypassPermissions", "dontAsk", "auto"];
    if (typeof f.permissionMode !== "string" || !modes.includes(f.permissionMode.trim()))
      return fail(`field "permissionMode" must be one of ${modes.join(", ")} (got ${JSON.stringify(f.permissionMode)})`);
    agent.permissionMode = f.permissionMode.trim();
  }
  if (f.skills !== undefined && f.skills !== null) {
    const list = toolList(f.skills);
    if (typeof list === "string") return fail('field "skills" must be a comma-separated string or a list of skill names');
    agent.skills = list;
  }
  if (f.hooks !== undefined && f.hooks !== null) agent.hooks = f.hooks;
  if (f.mcpServers !== undefined && f.mcpServers !== null) agent.mcpServers = f.mcpServers;
  return { ok: true, agent };
}
