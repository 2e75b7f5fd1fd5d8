import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { claudeUserDir } from "../config/paths.ts";
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

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** `.md` files under dir, recursively, sorted for a stable order. */
function markdownFiles(dir: string): string[] {
  if (!isDir(dir)) return [];
  let rel: string[];
  try {
    rel = readdirSync(dir, { recursive: true }) as string[];
  } catch {
    return [];
  }
  return rel
    .filter((r) => r.endsWith(".md"))
    .sort()
    .slice(0, MAX_FILES_PER_DIR)
    .map((r) => join(dir, r))
    .filter((p) => !isDir(p));
}

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
  loadDir(userDir, "user");
  for (const dir of projectAgentDirs(o.cwd, userDir)) loadDir(dir, "project");
  return { agents: [...byName.values()], warnings };
}
