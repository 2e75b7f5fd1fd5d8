import type { LoopDeps } from "../loop/run-turn.ts";
import { createAgentRunner, createAgentTool, type AgentRunner, type AgentToolOptions } from "../tool/builtin/agent.ts";
import type { Tool } from "../tool/types.ts";
import { loadAgents } from "./load.ts";
import type { AgentDefinition } from "./types.ts";

export type SessionAgentToolOptions = {
  cwd: string;
  env: Record<string, string>;
  sessionId: string;
  /** The session transcript (`<project dir>/<session-id>.jsonl`); '' when nothing is persisted. */
  transcriptPath: string;
  /** The parent's deps, read at call time (they are built after the tools). */
  parent: () => LoopDeps;
  mainModel: () => string;
  version: string;
  /** Context blocks (already wrapped) put before every subagent's prompt: instruction files. */
  promptContext?: AgentToolOptions["promptContext"];
  warn: (message: string) => void;
  /** Claude Code plugins' `agents/` folders (agents named `<plugin>:<name>`). */
  pluginDirs?: Array<{ plugin: string; dir: string }>;
  extra?: Partial<AgentToolOptions>;
  /** Parsed `--agents` JSON. */
  flagAgents?: Record<string, unknown>;
  /** Only built-in, plugin and `--agents` agents (managed strictPluginOnlyCustomization locks agents). */
  pluginOnly?: boolean;
};

/**
 * The composition root's one call for subagents: loads the agent catalog for cwd and makes the
 * Agent tool writing beside the session transcript, under `<project dir>/<session-id>/`. Bad agent files are
 * reported through `warn` and skipped. Never throws.
 */
export function sessionAgentTool(o: SessionAgentToolOptions): { tool: Tool; agents: AgentDefinition[]; run: AgentRunner } {
  const catalog = loadAgents({ cwd: o.cwd, env: o.env, pluginDirs: o.pluginDirs, flagAgents: o.flagAgents, pluginOnly: o.pluginOnly });
  catalog.warnings.forEach(o.warn);
  const options: AgentToolOptions = {
    parent: o.parent,
    agents: catalog.agents,
    mainModel: o.mainModel,
    env: o.env,
    // Claude Code keeps a session's side files in a folder named like the transcript (contracts §5.1).
    sessionDir: o.transcriptPath ? o.transcriptPath.replace(/\.jsonl$/, "") : null,
    sessionId: o.sessionId,
    version: o.version,
    entrypoint: o.env.CLAUDE_CODE_ENTRYPOINT || "sdk-cli",
    warn: o.warn,
    promptContext: o.promptContext,
    ...o.extra,
  };
  const run = createAgentRunner(options);
  return { tool: createAgentTool(options, run), agents: catalog.agents, run };
}
