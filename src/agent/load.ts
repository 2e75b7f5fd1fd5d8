import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { claudeUserDir } from "../config/paths.ts";
import { findFiles } from "../util/find-files.ts";
import { builtinAgents } from "./builtin.ts";
import { parseAgentFile } from "./parse.ts";
import type { AgentDefinition, AgentSource } from "./types.ts";

export type AgentCatalog = {
  /** Every usable agent type, one per name, after precedence (project > user > built-in). */
  agents: AgentDefinition[];
  /** One line per skipped file or shadowed duplicate, naming the file and the field. */
  warnings: string[];
};

/** A cap so a stray huge tree under .claude/agents cannot stall startup. */
const MAX_FILES_PER_DIR = 1000;

/** `.md` files under dir, recursively, sorted for a stable order. */
const markdownFiles = (dir: string): string[] => findFiles(dir, "**/*.md", { max: MAX_FILES_PER_DIR });

/** `.claude/agents` folders from the filesystem root down to cwd (closest last, so it wins). */
function projectAgentDirs(cwd: string, userDir: string): string[] {
  const dirs: string[] = [];
  let d = resolve(cwd);
  for (;;) {
    const candidate = join(d, ".claude", "agents");
    if (candidate !== userDir) dirs.unshift(candidate);
    const up = dirname(d);
    if (up === d) break;
    d = up;
  }
  return dirs;
}

/**
 * Built-in agents plus custom ones from `~/.claude/agents/**\/*.md` and `.claude/agents/**\/*.md`
 * (contracts §6.4). A later source replaces an earlier one of the same name: built-in < plugin <
 * user < project, and among project folders the one closest to cwd wins. Never throws: a bad file is
 * skipped with a warning, so one broken agent cannot stop the run.
 */
export function loadAgents(o: {
  cwd: string;
  env?: Record<string, string | undefined>;
  builtins?: AgentDefinition[];
  /** Claude Code plugins' `agents/` folders; their agents are named `<plugin>:<name>` and rank below user agents. */
  pluginDirs?: Array<{ plugin: string; dir: string }>;
  /** `--agents '{"name": {"description", "prompt", "tools"?, "model"?}}'` (contracts §4.1): beats project agents. */
  flagAgents?: Record<string, unknown>;
  /** Managed `strictPluginOnlyCustomization` locks agents: no `~/.claude/agents` or project `.claude/agents` (src/config/plugin-only.ts). */
  pluginOnly?: boolean;
}): AgentCatalog {
  const warnings: string[] = [];
  const byName = new Map<string, AgentDefinition>();
  for (const a of o.builtins ?? builtinAgents()) byName.set(a.name, a);
  const userDir = join(claudeUserDir(o.env ?? process.env), "agents");

  const loadDir = (dir: string, source: AgentSource, prefix = "") => {
    const seenHere = new Map<string, string>();
    for (const file of markdownFiles(dir)) {
      let text: string;
      try {
        text = readFileSync(file, "utf8");
      } catch (e) {
        warnings.push(`${file}: cannot read: ${(e as Error).message}`);
        continue;
      }
      const r = parseAgentFile(text, file, source);
      if (!r.ok) {
        warnings.push(`${r.error} (agent skipped)`);
        continue;
      }
      if (prefix) r.agent.name = `${prefix}:${r.agent.name}`;
      const first = seenHere.get(r.agent.name);
      if (first) {
        warnings.push(`${file}: agent "${r.agent.name}" is already defined in ${first}; this file is ignored`);
        continue;
      }
      seenHere.set(r.agent.name, file);
      byName.set(r.agent.name, r.agent);
    }
  };
  for (const p of o.pluginDirs ?? []) loadDir(p.dir, "plugin", p.plugin);
  if (!o.pluginOnly) {
    loadDir(userDir, "user");
    for (const dir of projectAgentDirs(o.cwd, userDir)) loadDir(dir, "project");
  }
  for (const [name, raw] of Object.entries(o.flagAgents ?? {})) {
    const a = flagAgent(name, raw);
    if (typeof a === "string") warnings.push(`--agents: agent "${name}": ${a} (agent skipped)`);
    else byName.set(name, a);
  }
  return { agents: [...byName.values()], warnings };
}

const asList = (v: unknown): string[] | undefined =>
  typeof v === "string" ? v.split(",").map((x) => x.trim()).filter(Boolean) : Array.isArray(v) && v.every((x) => typeof x === "string") ? v : undefined;

/** One `--agents` entry, or a message naming the bad field. */
function flagAgent(name: string, raw: unknown): AgentDefinition | string {
  const r = raw as Record<string, unknown>;
  if (!r || typeof r !== "object" || Array.isArray(r)) return "must be an object";
  if (typeof r.description !== "string" || !r.description) return 'field "description" must be a non-empty string';
  if (typeof r.prompt !== "string" || !r.prompt) return 'field "prompt" must be a non-empty string';
  if (r.tools !== undefined && !asList(r.tools)) return 'field "tools" must be a list of tool names';
  if (r.model !== undefined && typeof r.model !== "string") return 'field "model" must be a string';
  const a: AgentDefinition = { name, description: r.description, systemPrompt: r.prompt, source: "flag" };
  if (r.tools !== undefined) a.tools = asList(r.tools);
  if (r.disallowedTools !== undefined) a.disallowedTools = asList(r.disallowedTools);
  if (typeof r.model === "string") a.model = r.model;
  if (typeof r.maxTurns === "number" && r.maxTurns > 0) a.maxTurns = r.maxTurns;
  // The Agent SDK's AgentDefinition carries `mcpServers` (names and inline definitions), as frontmatter does.
  if (r.mcpServers !== undefined && r.mcpServers !== null) a.mcpServers = r.mcpServers;
  return a;
}
