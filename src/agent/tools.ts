import type { ToolRegistry } from "../tool/registry.ts";
import type { Tool } from "../tool/types.ts";
import type { AgentDefinition } from "./types.ts";

/**
 * Tools no subagent gets: Agent keeps nesting at depth 1; AskUserQuestion and the plan-mode tools
 * talk to the user or change the parent's mode, and a subagent has no user to talk to; TodoWrite
 * would overwrite the parent's todo list, which lives in the shared session state.
 */
export const NEVER_IN_SUBAGENTS = new Set(["Agent", "AskUserQuestion", "EnterPlanMode", "ExitPlanMode", "TodoWrite", "StructuredOutput"]);

/** The shell family: only `read-only+bash` agents get it (BashOutput is read-only but useless without Bash). */
const SHELL_TOOLS = new Set(["Bash", "BashOutput", "TaskStop"]);

const staticReadOnly = (t: Tool) => t.readOnly === true;

export type AgentTools = {
  registry: ToolRegistry;
  /** Names in `tools` / `disallowedTools` that match no available tool (for a warning). */
  unknown: string[];
};

/**
 * The tool set of one agent type, cut from the parent's registry: `tools` (omitted = all) minus
 * `disallowedTools` minus NEVER_IN_SUBAGENTS. Built-in policies: `read-only` keeps tools whose
 * readOnly is always true, shell tools aside (Explore, Plan); `read-only+bash` adds Bash, BashOutput and TaskStop (Verify, Review).
 * Specifiers in entries (`Bash(git *)`) select the tool only; enforcing them is the permission layer's job.
 * Pure; never throws.
 */
export function toolsForAgent(agent: AgentDefinition, parent: ToolRegistry): AgentTools {
  const unknown: string[] = [];
  // The registry resolves aliases and legacy names (`Task`, `KillBash` ...); a rule-like `Bash(git *)` names Bash.
  const lookup = (entries: string[]): Set<Tool> => {
    const found = new Set<Tool>();
    for (const entry of entries) {
      const name = entry.trim().replace(/\(.*\)$/, "").trim();
      const t = parent.get(name);
      if (t) found.add(t);
      else unknown.push(name);
    }
    return found;
  };
  let keep: (t: Tool) => boolean;
  if (agent.tools && !(agent.tools.length === 1 && agent.tools[0] === "*")) {
    const named = lookup(agent.tools);
    keep = (t) => named.has(t);
  } else if (agent.toolPolicy === "read-only") keep = (t) => staticReadOnly(t) && !SHELL_TOOLS.has(t.name);
  else if (agent.toolPolicy === "read-only+bash") keep = (t) => staticReadOnly(t) || SHELL_TOOLS.has(t.name);
  else keep = () => true;
  const denied = lookup(agent.disallowedTools ?? []);
  const registry = parent.filter((t) => keep(t) && !denied.has(t) && !NEVER_IN_SUBAGENTS.has(t.name));
  return { registry, unknown };
}
