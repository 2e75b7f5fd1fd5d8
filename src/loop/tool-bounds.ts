/**
 * The time and memory bound of every tool (issue 20.5), as data: one row per built-in tool, one rule for MCP
 * tools, one for the tools plugins and hosts register. `own` tools bound their time themselves; every other tool
 * runs under YOKE_TOOL_TIMEOUT_MS (src/loop/tool-deadline.ts). Every result, whoever made it, is cut to
 * MAX_TOOL_RESULT_CHARS by the runner. test/loop/tool-bounds.test.ts walks the real registry: a tool without a row
 * here fails it, and each row names the tests that prove it.
 */
import type { Tool } from "../tool/types.ts";

export type ToolBound = {
  /** "own": the tool ends itself (its timeout, a person, its turns); "generic": YOKE_TOOL_TIMEOUT_MS stops it. */
  deadline: "own" | "generic";
  time: string;
  memory: string;
  /** Test files that prove the bound. */
  proof: string[];
};

/** The most characters of text any tool result keeps; most tools cut far lower themselves. */
export const MAX_TOOL_RESULT_CHARS = 1_000_000;

const GENERIC_TIME = "YOKE_TOOL_TIMEOUT_MS (10 min): the call's signal aborts and it ends as is_error";
const DEADLINE = "test/loop/tool-deadline.test.ts";
const FILES = "test/tool/file-size.test.ts";

export const BUILTIN_BOUNDS: Record<string, ToolBound> = {
  Bash: {
    deadline: "own",
    time: "timeout: 120 s default, 600 s max; run_in_background: its timeout (≤ 2 h), else TaskStop or the end of the session",
    memory: "head and tail of 4 × BASH_MAX_OUTPUT_LENGTH per stream; spill and .output files ≤ YOKE_SPILL_MAX_BYTES; unread background output ≤ 1,000,000 characters per stream",
    proof: ["test/e2e/bounded-tools.test.ts", "test/tool/spill-cap.test.ts", "test/tool/background-shells.test.ts"],
  },
  BashOutput: { deadline: "generic", time: GENERIC_TIME, memory: "the shell's unread output (≤ 1,000,000 characters per stream)", proof: ["test/tool/background-shells.test.ts", "test/e2e/bounded-tools.test.ts"] },
  TaskStop: { deadline: "generic", time: GENERIC_TIME + "; the group gets SIGKILL after its grace", memory: "none held", proof: ["test/tool/background-shells.test.ts"] },
  Read: {
    deadline: "generic",
    time: GENERIC_TIME + "; a ranged read stops at the size the file had when opened",
    memory: "256 KB whole, else one line range (lines cut at 2,000 characters); images ≤ 3.75 MiB, notebooks ≤ YOKE_EDIT_MAX_BYTES; FIFOs and devices refused",
    proof: [FILES, "test/tool/read.test.ts", "test/tool/hostile-files.test.ts"],
  },
  Write: { deadline: "generic", time: GENERIC_TIME, memory: "the file it replaces ≤ YOKE_EDIT_MAX_BYTES (256 MiB), refused before reading", proof: [FILES] },
  Edit: { deadline: "generic", time: GENERIC_TIME, memory: "the file ≤ YOKE_EDIT_MAX_BYTES (256 MiB), refused before reading; a size-0 file read to 10 MiB", proof: [FILES, "test/tool/edit.test.ts"] },
  MultiEdit: { deadline: "generic", time: GENERIC_TIME, memory: "as Edit", proof: [FILES] },
  NotebookEdit: { deadline: "generic", time: GENERIC_TIME, memory: "the notebook ≤ YOKE_EDIT_MAX_BYTES", proof: [FILES] },
  Glob: { deadline: "generic", time: GENERIC_TIME + " (the walk stops on it)", memory: "the 100 newest paths; the rest counted", proof: ["test/tool/search-bounds.test.ts"] },
  Grep: {
    deadline: "generic",
    time: GENERIC_TIME + " (rg's group is killed, the walk stops)",
    memory: "the newest files up to offset + head_limit entries (≤ 200,000); the rest counted; lines cut at 500 characters; built-in engine reads files ≤ 64 MiB",
    proof: ["test/tool/search-bounds.test.ts", "test/tool/grep.test.ts", "test/e2e/bounded-tools.test.ts"],
  },
  WebFetch: { deadline: "generic", time: "30 s of its own within " + GENERIC_TIME, memory: "body ≤ 10 MiB", proof: ["test/tool/web-fetch.test.ts", "test/e2e/bounded-tools.test.ts"] },
  WebSearch: { deadline: "generic", time: GENERIC_TIME + "; one side request under API_TIMEOUT_MS", memory: "one API response", proof: [DEADLINE] },
  TodoWrite: { deadline: "generic", time: GENERIC_TIME, memory: "the list the model sent", proof: [DEADLINE] },
  ExitPlanMode: { deadline: "generic", time: GENERIC_TIME, memory: "the plan the model sent", proof: [DEADLINE] },
  AskUserQuestion: { deadline: "own", time: "a person answers (headless: refused at once)", memory: "the questions and answers", proof: ["test/tool/session-tools.test.ts"] },
  Agent: {
    deadline: "own",
    time: "its turns (the agent's maxTurns), each request under API_TIMEOUT_MS and each tool under its own bound; the parent's abort stops it (no wall clock of its own, as Claude Code)",
    memory: "its own transcript; its result cut at 100,000 characters",
    proof: ["test/tool/agent.test.ts", "test/e2e/subagent.test.ts"],
  },
  Skill: { deadline: "generic", time: GENERIC_TIME + "; its `!` commands run as Bash commands", memory: "one skill file; its `!` commands' output as Bash's", proof: [DEADLINE] },
  ToolSearch: { deadline: "generic", time: GENERIC_TIME, memory: "the registry's schemas", proof: [DEADLINE] },
  StructuredOutput: { deadline: "generic", time: GENERIC_TIME, memory: "the object the model sent", proof: [DEADLINE] },
  ListMcpResourcesTool: { deadline: "generic", time: GENERIC_TIME + "; each request under MCP_TOOL_TIMEOUT", memory: "one MCP message ≤ 64 Mi characters; result ≤ MAX_MCP_OUTPUT_TOKENS × 4", proof: ["test/e2e/mcp.test.ts"] },
  ReadMcpResourceTool: { deadline: "generic", time: GENERIC_TIME + "; each request under MCP_TOOL_TIMEOUT", memory: "as ListMcpResourcesTool", proof: ["test/e2e/mcp.test.ts"] },
};

/** Legacy names reach the same tool (Task → Agent). */
const ALIASES: Record<string, string> = { Task: "Agent", KillShell: "TaskStop", KillBash: "TaskStop" };

export const MCP_BOUND: ToolBound = {
  deadline: "own",
  time: "MCP_TOOL_TIMEOUT (10 min); server start MCP_TIMEOUT (30 s)",
  memory: "result ≤ MAX_MCP_OUTPUT_TOKENS × 4 characters; one message ≤ 64 Mi characters (past it the server is stopped); stderr log capped",
  proof: ["test/e2e/mcp.test.ts"],
};

/** What a plugin's or host's tool gets: the generic deadline and the runner's cut of its result. */
export const REGISTERED_BOUND: ToolBound = {
  deadline: "generic",
  time: GENERIC_TIME,
  memory: `its result cut to ${MAX_TOOL_RESULT_CHARS} characters by the runner (what its own code allocates is its author's)`,
  proof: ["test/e2e/tool-bounds.test.ts", DEADLINE],
};

/** The built-in row for a name (legacy names included), else undefined. Pure. */
export const builtinBound = (name: string): ToolBound | undefined => BUILTIN_BOUNDS[ALIASES[name] ?? name];

/** Whether a tool ends itself (YOKE_TOOL_TIMEOUT_MS does not apply). Pure. */
export function boundsItself(name: string, mcp?: boolean): boolean {
  if (mcp || name.startsWith("mcp__")) return true;
  return builtinBound(name)?.deadline === "own";
}

/**
 * A tool's bound: its built-in row, the MCP rule, or the generic rule for a tool a plugin or host registered
 * (`registered` true). undefined for a tool yoke ships without a row: test/loop/tool-bounds.test.ts fails on it.
 */
export function boundOf(tool: Pick<Tool, "name" | "mcp">, registered = false): ToolBound | undefined {
  if (tool.mcp || tool.name.startsWith("mcp__")) return MCP_BOUND;
  return builtinBound(tool.name) ?? (registered ? REGISTERED_BOUND : undefined);
}
