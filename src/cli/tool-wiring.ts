import { sessionAgentTool, type SessionAgentToolOptions } from "../agent/session-tool.ts";
import type { AgentDefinition } from "../agent/types.ts";
import { renderInstructions } from "../context/index.ts";
import { VERSION } from "../version.ts";
import type { ContextWiring } from "./context-wiring.ts";
import type { Diagnostics } from "../util/diagnostics.ts";
import type { Outbox } from "./outbox.ts";
import type { Evaluator } from "../permission/index.ts";
import { createToolRegistry, type ToolRegistry } from "../tool/registry.ts";
import type { Tool } from "../tool/types.ts";

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
export function wireAgentTool(
  o: Pick<SessionAgentToolOptions, "cwd" | "env" | "sessionId" | "transcriptPath" | "parent" | "mainModel" | "flagAgents"> & {
    context: ContextWiring;
    outbox: Outbox;
    log: Diagnostics;
  },
): { tool: Tool; agents: AgentDefinition[] } {
  const { context, outbox, log, ...same } = o;
  return sessionAgentTool({
    ...same,
    version: VERSION,
    // Instruction files reach every subagent, Explore and Plan included: users asked for it (user-demand §4).
    promptContext: () => [renderInstructions(context.instructions.get().files)].filter(Boolean),
    warn: (m) => log.warn(m),
    extra: {
      onEvent: (ev, from) => {
        if (ev.type === "assistant" || ev.type === "user") outbox.push({ type: "subagent", event: ev, ...from });
      },
    },
  });
}
