import { join } from "node:path";
import { projectStateDir } from "../config/paths.ts";
import type { LoopDeps } from "../loop/run-turn.ts";
import { createAgentTool, type AgentToolOptions } from "../tool/builtin/agent.ts";
import type { Tool } from "../tool/types.ts";
import { loadAgents } from "./load.ts";
import type { AgentDefinition } from "./types.ts";

/**
 * The composition root's one call for subagents: loads the agent catalog for cwd and makes the
 * Agent tool writing under `<yokeDir>/projects/<sanitized cwd>/<session-id>/`. Bad agent files are
 * reported through `warn` and skipped. Never throws.
 */
export function sessionAgentTool(o: {
  cwd: string;
  env: Record<string, string>;
  sessionId: string;
  /** False with --no-session-persistence: no sidechain transcripts or agent store. */
  persist: boolean;
  parent: () => LoopDeps;
  mainModel: () => string;
  version: string;
  warn: (message: string) => void;
  extra?: Partial<AgentToolOptions>;
}): { tool: Tool; agents: AgentDefinition[] } {
  const catalog = loadAgents({ cwd: o.cwd, env: o.env });
  catalog.warnings.forEach(o.warn);
  const tool = createAgentTool({
    parent: o.parent,
    agents: catalog.agents,
    mainModel: o.mainModel,
    env: o.env,
    sessionDir: o.persist ? join(projectStateDir(o.cwd, o.env), o.sessionId) : null,
    sessionId: o.sessionId,
    version: o.version,
    warn: o.warn,
    ...o.extra,
  });
  return { tool, agents: catalog.agents };
}
