import type { Tool } from "./types.ts";

/**
 * What a permission rule's specifier matches for a tool (contracts §3.1):
 * - `path`: a gitignore-style path rule on `field` (`Read(./src/**)`, `Edit(~/notes/*)`); `access` says
 *   whether the call reads or edits, and a missing `field` means the session cwd when `defaultCwd`; the
 *   literal folders of a `globField` pattern are part of the path (Glob's `/etc/*` looks in /etc).
 * - `command`: Bash's command analysis (prefix rules, `:*`).
 * - `domain`: `WebFetch(domain:example.com)` on the URL in `field`.
 * - `name`: the exact value of `field` (`Agent(Explore)`, `Skill(deploy)`), optionally any case.
 */
export type RuleTarget =
  | { kind: "path"; field: string; access: "read" | "edit"; defaultCwd?: boolean; /** A glob whose literal leading folders move where the tool looks (`/etc/*`). */ globField?: string }
  | { kind: "command"; field: string }
  | { kind: "domain"; field: string }
  | { kind: "name"; field: string; ignoreCase?: boolean };

/**
 * What a call does, for the evaluator's defaults when no rule speaks: `read` runs (read-only), `network`
 * is read-only but sends data off the machine (needs a rule or approval), `session` touches only the
 * session's own state (its shells, todos, plan), `user` is a question to the person (needs one), and
 * `write` needs a rule or approval.
 */
export type ToolEffect = "read" | "network" | "session" | "user" | "write";

/**
 * One tool as permissions, hooks and rules see it. The evaluator, the hook matcher and the rule parser
 * read this and nothing else (DESIGN rule 5: tools declare, the evaluator decides).
 */
export type ToolDeclaration = {
  /** The canonical name: what rules are stored under and hook matchers compare. */
  name: string;
  /** Other names accepted in rules, hook matchers, `--tools` and from the model (contracts §7.1). */
  aliases: string[];
  /** Whether a call changes nothing; a tool whose answer depends on the input declares `readOnly` on itself. */
  readOnly: boolean;
  effect: ToolEffect;
  ruleTarget?: RuleTarget;
  /** The input field a bare value stands for (`yoke permissions explain Bash "ls"`); default ruleTarget's field. */
  mainField?: string;
};

const d = (name: string, effect: ToolEffect, ruleTarget?: RuleTarget, aliases: string[] = []): ToolDeclaration => ({
  name,
  aliases,
  readOnly: effect === "read" || effect === "network",
  effect,
  ...(ruleTarget ? { ruleTarget } : {}),
});

const readPath = (field: string, defaultCwd = false): RuleTarget => ({ kind: "path", field, access: "read", ...(defaultCwd ? { defaultCwd } : {}) });
const editPath = (field: string): RuleTarget => ({ kind: "path", field, access: "edit" });

/**
 * Claude Code's tools, yoke's built-ins among them, by canonical name (contracts §3.1, §7.1, §7.2). Tools that
 * only read the session's state say readOnly (they run beside others); TaskStop ends a process, so it does not.
 */
export const TOOL_DECLARATIONS: readonly ToolDeclaration[] = [
  d("Bash", "write", { kind: "command", field: "command" }),
  d("Read", "read", readPath("file_path")),
  d("NotebookRead", "read", readPath("notebook_path")),
  d("Glob", "read", { kind: "path", field: "path", access: "read", defaultCwd: true, globField: "pattern" }),
  d("Grep", "read", readPath("path", true)),
  d("LS", "read", readPath("path", true)),
  d("Edit", "write", editPath("file_path")),
  d("MultiEdit", "write", editPath("file_path")),
  d("Write", "write", editPath("file_path")),
  d("NotebookEdit", "write", editPath("notebook_path")),
  d("WebFetch", "network", { kind: "domain", field: "url" }),
  { ...d("WebSearch", "network"), mainField: "query" },
  // Starting a subagent is read-only itself: what the subagent does is decided call by call inside it.
  d("Agent", "read", { kind: "name", field: "subagent_type", ignoreCase: true }, ["Task"]),
  // Loading a skill reads its file; its `!` commands and the tools it then uses are decided call by call.
  d("Skill", "read", { kind: "name", field: "skill" }),
  d("TaskStop", "session", undefined, ["KillShell", "KillBash"]),
  { ...d("TaskOutput", "session", undefined, ["AgentOutputTool", "BashOutputTool"]), readOnly: true },
  { ...d("BashOutput", "session"), readOnly: true },
  { ...d("TodoWrite", "session"), readOnly: true },
  { ...d("ExitPlanMode", "session"), readOnly: true },
  { ...d("AskUserQuestion", "user"), readOnly: true },
  d("ListMcpResourcesTool", "read", undefined, ["ListMcpResources"]),
  d("ReadMcpResourceTool", "read", undefined, ["ReadMcpResource"]),
  d("ToolSearch", "read"),
];

const byName = new Map<string, ToolDeclaration>();
for (const decl of TOOL_DECLARATIONS) for (const n of [decl.name, ...decl.aliases]) byName.set(n, decl);

/** The declaration of a Claude Code tool by any of its names, or undefined (MCP and plugin tools). Pure. */
export const builtinDeclaration = (name: string): ToolDeclaration | undefined => byName.get(name);

/** The canonical name for any of a tool's names (`Task` → `Agent`, `KillShell` → `TaskStop`); others unchanged. Pure. */
export const canonicalToolName = (name: string): string => byName.get(name)?.name ?? name;

/** Every name of the tool called `name` (canonical first), or just `[name]` for a tool with no declaration. Pure. */
export const toolNames = (name: string): string[] => {
  const decl = byName.get(name);
  return decl ? [decl.name, ...decl.aliases] : [name];
};

/**
 * A registered tool's declaration: the table's for Claude Code's tools; for MCP and plugin tools, what the
 * tool says of itself (an MCP tool's readOnlyHint makes it read-only; whole-tool rules only). Pure.
 */
export function declarationOf(tool: Pick<Tool, "name" | "aliases" | "readOnly">): ToolDeclaration {
  const known = byName.get(tool.name);
  if (known) return known;
  const readOnly = tool.readOnly === true;
  return { name: tool.name, aliases: tool.aliases ?? [], readOnly, effect: readOnly ? "read" : "write" };
}
