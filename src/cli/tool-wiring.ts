import { sessionAgentTool } from "../agent/session-tool.ts";
import type { AgentDefinition } from "../agent/types.ts";
import type { LoopDeps } from "../loop/run-turn.ts";
import { renderInstructions } from "../context/index.ts";
import { VERSION } from "../version.ts";
import type { ContextWiring } from "./context-wiring.ts";
import type { Diagnostics } from "../util/diagnostics.ts";
import type { Outbox } from "./outbox.ts";
import type { Evaluator } from "../permission/index.ts";
import type { PermissionEvaluator } from "../permission/types.ts";
import { createToolRegistry, type ToolRegistry } from "../tool/registry.ts";
import type { Tool } from "../tool/types.ts";
import type { AgentRunner, AgentToolOptions } from "../tool/builtin/agent.ts";

/**
 * The session's tool set: the built-ins and the Agent tool, less what deny rules hide, cut to `--tools`
 * when given, plus `--json-schema`'s StructuredOutput. Plugins register theirs later. Never throws.
 */
export function wireTools(o: { builtin: Tool[]; agent: Tool; permissions: Evaluator; only: string[]; structured?: Tool }): ToolRegistry {
  let tools = createToolRegistry([...o.builtin, o.agent]).filter((t) => !o.permissions.isToolHidden(t.name));
  if (o.only.length && !(o.only.length === 1 && o.only[0] === "default")) {
    const keep = new Set(o.only.flatMap((v) => v.split(/[ ,]+/)).filter(Boolean));
    tools = tools.filter((t) => keep.has(t.name));
  }
  if (o.structured) tools.register(o.structured);
  return tools;
}

/** The Agent tool over the session's agent catalog; subagent messages go to the outbox for stream-json. Never throws. */
export function wireAgentTool(o: {
  cwd: string;
  env: Record<string, string>;
  sessionId: string;
  transcriptPath: string;
  /** The parent's deps, read at call time (they are built after the tools). */
  parent: () => LoopDeps;
  mainModel: () => string;
  context: ContextWiring;
  flagAgents?: Record<string, unknown>;
  outbox: Outbox;
  log: Diagnostics;
  /** Claude Code plugins' `agents/` folders (agents named `<plugin>:<name>`). */
  pluginDirs?: Array<{ plugin: string; dir: string }>;
  /** An agent's permissionMode as an evaluator (src/cli/main-agent.ts). */
  permissionsFor?: (agent: AgentDefinition) => PermissionEvaluator | undefined;
  /** An agent's own hooks for the length of its run (src/cli/main-agent.ts). */
  scopedHooks?: (agent: AgentDefinition) => (() => void) | undefined;
  /** An agent's own MCP servers for the length of its run (src/mcp/agent-servers.ts). */
  agentTools?: AgentToolOptions["agentTools"];
  /** More context before an agent's first prompt (its `skills`). */
  agentContext?: (agent: AgentDefinition) => string[];
  /** Report only the loading warnings that name a file under these folders (the rest were said already). */
  onlyWarningsFrom?: string[];
  /** Managed strictPluginOnlyCustomization locks agents: no personal or project agent files. */
  pluginOnly?: boolean;
}): { tool: Tool; agents: AgentDefinition[]; run: AgentRunner } {
  return sessionAgentTool({
    cwd: o.cwd,
    env: o.env,
    sessionId: o.sessionId,
    transcriptPath: o.transcriptPath,
    version: VERSION,
    parent: o.parent,
    mainModel: o.mainModel,
    // Instruction files reach every subagent, Explore and Plan included: users asked for it (user-demand §4).
    promptContext: (agent) => [renderInstructions(o.context.instructions.get().files), ...(o.agentContext?.(agent) ?? [])].filter(Boolean),
    warn: (m) => {
      if (!o.onlyWarningsFrom || o.onlyWarningsFrom.some((d) => m.includes(d))) o.log.warn(m);
    },
    flagAgents: o.flagAgents,
    pluginDirs: o.pluginDirs,
    pluginOnly: o.pluginOnly,
    extra: {
      ...(o.permissionsFor ? { permissionsFor: o.permissionsFor } : {}),
      ...(o.scopedHooks ? { scopedHooks: o.scopedHooks } : {}),
      ...(o.agentTools ? { agentTools: o.agentTools } : {}),
      onEvent: (ev, from) => {
        if (ev.type === "assistant" || ev.type === "user") o.outbox.push({ type: "subagent", event: ev, ...from });
      },
    },
  });
}
