import { randomUUID } from "../../util/random.ts";
import { z } from "zod";
import { resolveSubagentModel } from "../../agent/model.ts";
import { newAgentId, subagentTranscriptPath, writeAgentStore, writeSubagentMeta, type AgentStatus, type SubagentMeta } from "../../agent/store.ts";
import { buildSubagentSystem } from "../../agent/system-prompt.ts";
import { NEVER_IN_SUBAGENTS, toolsForAgent } from "../../agent/tools.ts";
import type { AgentDefinition } from "../../agent/types.ts";
import type { LoopEvent, TerminalReason } from "../../loop/events.ts";
import type { LoopDeps } from "../../loop/run-turn.ts";
import type { PermissionEvaluator } from "../../permission/types.ts";
import { reminder } from "../../loop/run-turn.ts";
import { DEFAULT_SUBAGENT_MAX_TURNS, runSubagent, type SubagentRun } from "../../loop/subagent.ts";
import type { ContentBlock, Usage } from "../../provider/types.ts";
import { createSessionStore } from "../../session/store.ts";
import { createTranscript, type Transcript } from "../../session/transcript.ts";
import { nullStore } from "../../session/types.ts";
import { defineTool } from "../define-tool.ts";
import { INPUT_SCHEMAS } from "../input-schemas.ts";
import { createFileState } from "../file-state.ts";
import type { Tool, ToolResult } from "../types.ts";
import baseDescription from "./agent.md" with { type: "text" };

export const DEFAULT_AGENT_TYPE = "general-purpose";

export type AgentToolOptions = {
  /** The parent's loop deps, read at call time (the registry is built before them). */
  parent: () => LoopDeps;
  /** Agent types offered (loadAgents().agents). */
  agents: AgentDefinition[];
  /** The main conversation's resolved model. */
  mainModel: () => string;
  /** Settings env over process.env: CLAUDE_CODE_SUBAGENT_MODEL(_FORCE). */
  env: Record<string, string | undefined>;
  /** `<yokeDir>/projects/<sanitized cwd>/<session-id>`; null writes nothing (--no-session-persistence). */
  sessionDir: string | null;
  sessionId: string;
  version: string;
  entrypoint?: string;
  /**
   * Context blocks (complete texts, already wrapped in system-reminder) put before every subagent's
   * prompt, such as the instruction files. May throw: then none are added and `warn` says why.
   */
  promptContext?: (agent: AgentDefinition) => Promise<string[]> | string[];
  /** Sections added to every subagent's system prompt. May throw: then none are added. */
  systemSections?: (agent: AgentDefinition, cwd: string) => Promise<string[]> | string[];
  /**
   * Every loop event of every subagent as it happens, with where it came from: for stream-json
   * subagent frames (`parent_tool_use_id` = toolUseId, `agent_id`, `subagent_type`; contracts §4.4).
   * Must not throw (a throw is swallowed).
   */
  onEvent?: (ev: LoopEvent, from: { toolUseId: string; agentId: string; agentType: string }) => void;
  /** Adds an agent's own hooks for the length of its run; returns their remover. Must not throw. */
  scopedHooks?: (agent: AgentDefinition) => (() => void) | undefined;
  /** The evaluator an agent's `permissionMode` asks for (undefined: the parent's). Must not throw. */
  permissionsFor?: (agent: AgentDefinition) => PermissionEvaluator | undefined;
  /**
   * The agent's own MCP servers (frontmatter `mcpServers`): started before its run, their tools added to its tool
   * set, `close` after its run. Undefined: it has none. Must not throw (a server that fails is warned about).
   */
  agentTools?: (agent: AgentDefinition, signal: AbortSignal) => Promise<{ tools: Tool[]; close(): Promise<void> } | undefined>;
  /** Non-fatal problems (unknown tool names in an agent file, store write failures). */
  warn?: (message: string) => void;
  now?: () => Date;
};

/** PostToolUse `tool_response` of a foreground Agent call (contracts §7.2). */
export type AgentToolResponse = {
  status: "completed";
  prompt: string;
  agentId: string;
  agentType: string;
  content: Array<{ type: "text"; text: string }>;
  resolvedModel: string;
  totalDurationMs: number;
  totalTokens: number;
  totalToolUseCount: number;
  usage: Usage;
};

/**
 * The input schema. `subagent_type` is filled in when omitted and respelled as the catalog names it
 * (`explore` → `Explore`), so PreToolUse hooks and `Agent(<type>)` rules see the type that will run.
 */
const inputSchema = (catalogName: (type: string) => string) =>
  z.object({
    description: z.string().describe("A short (3-5 word) label for the task"),
    prompt: z.string().min(1).describe("The complete task for the agent to perform"),
    subagent_type: z
      .string()
      .default(DEFAULT_AGENT_TYPE)
      .transform((t) => catalogName(t.trim() || DEFAULT_AGENT_TYPE))
      .describe(`The type of agent to use (default ${DEFAULT_AGENT_TYPE})`),
    model: z
      .enum(["sonnet", "opus", "haiku", "fable"])
      .optional()
      .describe("Model for this agent; if omitted, the agent definition or the default subagent model applies"),
  });

const statusOf = (r: TerminalReason): AgentStatus =>
  r === "aborted_streaming" || r === "aborted_tools" ? "interrupted" : r === "max_turns" ? "max_turns" : r === "api_error" || r === "prompt_too_long" ? "failed" : "completed";

const totalTokens = (u: Usage) => u.input_tokens + u.output_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens;

/** The model-facing description: ours, plus every agent type with its description and tools. */
export function agentToolDescription(agents: AgentDefinition[]): string {
  const lines = agents.map((a) => {
    const tools = a.tools
      ? a.tools.join(", ")
      : a.toolPolicy === "read-only"
        ? "read-only tools"
        : a.toolPolicy === "read-only+bash"
          ? "read-only tools and Bash"
          : "all tools";
    return `- ${a.name}: ${a.description.replace(/\s+/g, " ")} (Tools: ${tools})`;
  });
  return `${baseDescription.trim()}\n\nAvailable agent types:\n${lines.join("\n")}`;
}

type Sidechain = { transcript: Transcript; path: string; close(): void };

/** The subagent's own transcript file (contracts §5.1), or an unwritten one when nothing persists. */
function openSidechain(o: AgentToolOptions, agentId: string, cwd: () => string, now: () => Date, warn: (m: string) => void): Sidechain {
  const path = o.sessionDir ? subagentTranscriptPath(o.sessionDir, agentId) : "";
  const store = o.sessionDir
    ? createSessionStore({ cwd: cwd(), sessionId: o.sessionId, path, onError: warn })
    : nullStore(o.sessionId);
  const transcript = createTranscript(store, { cwd, version: o.version, entrypoint: o.entrypoint ?? "sdk-cli", uuid: randomUUID, now, isSidechain: true, agentId });
  return { transcript, path, close: () => (store as { close?: () => void }).close?.() };
}

/** Runs a context provider that may throw; a failure is warned about and yields nothing. */
async function tryStrings(what: string, f: (() => Promise<string[]> | string[]) | undefined, warn: (m: string) => void): Promise<string[]> {
  try {
    return [...((await f?.()) ?? [])];
  } catch (e) {
    warn(`${what} failed: ${(e as Error).message}`);
    return [];
  }
}

/** What the parent model gets back, by how the run ended. */
function toolResultOf(agent: AgentDefinition, run: SubagentRun, status: AgentStatus): { text: string; isError: boolean } {
  if (status === "interrupted")
    return { text: `The ${agent.name} agent was interrupted before it finished.${run.text ? ` Its last message:\n${run.text}` : ""}`, isError: true };
  if (status === "failed")
    return { text: `The ${agent.name} agent failed: ${run.result.result}. You may retry the Agent call or do the task yourself.`, isError: true };
  let text = run.text || `(The ${agent.name} agent finished without a text answer.)`;
  if (status === "max_turns")
    text += `\n\n[The ${agent.name} agent stopped after reaching its limit of ${agent.maxTurns ?? DEFAULT_SUBAGENT_MAX_TURNS} turns; its work may be incomplete.]`;
  return { text, isError: false };
}

/** One request to start an agent: the Agent tool's input, or a `context: fork` skill's. */
export type AgentRequest = { description: string; prompt: string; subagent_type: string; model?: string };

/** Where the run sits: the tool call it answers (or a synthetic id), the working folder, the abort signal. */
export type AgentRunContext = { toolUseId: string; cwd: string; signal: AbortSignal };

/** Runs one agent to its end; the result is what the parent model gets. Never throws. */
export type AgentRunner = (req: AgentRequest, ctx: AgentRunContext) => Promise<ToolResult>;

/**
 * Runs one subagent in the foreground and returns its final text (the Agent tool's body, also used by skills
 * with `context: fork`). SubagentStart fires before, SubagentStop at the end (through runSubagent); the sidechain
 * transcript, its meta file and the agent store are written under `sessionDir`. The agent's own MCP servers
 * (`mcpServers`) start before its first request and stop after its last. Failures of the subagent come back as
 * is_error results; nothing here throws.
 */
export function createAgentRunner(o: AgentToolOptions): AgentRunner {
  const now = o.now ?? (() => new Date());
  const warn = o.warn ?? (() => {});
  const note = (e: string | null) => void (e && warn(e));
  return async (inp, ctx) => {
    const type = inp.subagent_type;
    const agent = o.agents.find((a) => a.name === type) ?? o.agents.find((a) => a.name.toLowerCase() === type.toLowerCase());
    if (!agent) return { content: `Agent type '${type}' not found. Use one of: ${o.agents.map((a) => a.name).join(", ")}.`, isError: true };
    const parent = o.parent();
    const agentId = newAgentId();
    const model = resolveSubagentModel({ callModel: inp.model, agentModel: agent.model, mainModel: o.mainModel(), env: o.env });
    const own = o.agentTools ? await o.agentTools(agent, ctx.signal) : undefined;
    const { registry, unknown } = toolsForAgent(agent, parent.tools);
    // The agent's own MCP tools are its whether or not its `tools` list names them (they exist for it alone).
    for (const t of own?.tools ?? []) if (!registry.get(t.name) && !NEVER_IN_SUBAGENTS.has(t.name)) registry.register(t);
    const unknownNames = unknown.filter((n) => !own?.tools.some((t) => t.name === n));
    if (unknownNames.length) warn(`${agent.file ?? `agent ${agent.name}`}: unknown tool name(s) ${unknownNames.join(", ")} ignored`);

    try {
      let startContext: string[] = [];
      if (parent.hooks.has("SubagentStart")) {
        const out = await parent.hooks.emit("SubagentStart", parent.hookPayload("SubagentStart", { agent_id: agentId, agent_type: agent.name }), {
          matchValue: agent.name,
          signal: ctx.signal,
        });
        startContext = out.additionalContext.map((c) => `SubagentStart hook additional context: ${c}`);
      }

      const started = now();
      const side = openSidechain(o, agentId, () => ctx.cwd, now, warn);
      const meta: SubagentMeta = { agentType: agent.name, description: inp.description, toolUseId: ctx.toolUseId, spawnDepth: 1, model, finished: false, startedAt: started.toISOString() };
      if (o.sessionDir) note(writeSubagentMeta(o.sessionDir, agentId, meta));

      const extra = await tryStrings(`subagent ${agent.name}: system prompt sections`, o.systemSections && (() => o.systemSections!(agent, ctx.cwd)), warn);
      const system = buildSubagentSystem(agent, { cwd: ctx.cwd, platform: process.platform, date: started.toISOString().slice(0, 10), extra });
      const before = await tryStrings(`subagent ${agent.name}: prompt context`, o.promptContext && (() => o.promptContext!(agent)), warn);
      const lead: ContentBlock[] = [...before.map((text): ContentBlock => ({ type: "text", text })), ...startContext.map(reminder)];
      const prompt: string | ContentBlock[] = lead.length ? [...lead, { type: "text", text: inp.prompt }] : inp.prompt;

      const t0 = parent.clock();
      const removeHooks = o.scopedHooks?.(agent);
      const run = await runSubagent(parent, {
        agentType: agent.name,
        agentId,
        prompt,
        system,
        tools: registry,
        model,
        maxTurns: agent.maxTurns,
        transcript: side.transcript,
        signal: ctx.signal,
        fileState: createFileState(),
        ...(o.permissionsFor?.(agent) ? { permissions: o.permissionsFor(agent) } : {}),
        onEvent: o.onEvent ? (ev) => o.onEvent!(ev, { toolUseId: ctx.toolUseId, agentId, agentType: agent.name }) : undefined,
      });
      removeHooks?.();
      side.close();
      const durationMs = parent.clock() - t0;
      const status = statusOf(run.result.terminalReason);
      const tokens = totalTokens(run.result.usage);

      if (o.sessionDir) {
        const completedAt = now().toISOString();
        note(writeSubagentMeta(o.sessionDir, agentId, { ...meta, finished: true, finishedAt: completedAt, status }));
        const error = status === "completed" ? null : status === "failed" ? run.result.result : (run.result.errors[0] ?? status);
        const saved = writeAgentStore(
          o.sessionDir,
          {
            agentId,
            description: inp.description,
            subagentType: agent.name,
            model,
            status,
            prompt: inp.prompt,
            transcriptFile: side.path || null,
            createdAt: meta.startedAt,
            completedAt,
            totalDurationMs: durationMs,
            totalTokens: tokens,
            totalToolUseCount: run.toolUseCount,
            error,
          },
          run.text,
        );
        saved.errors.forEach(warn);
      }

      const out = toolResultOf(agent, run, status);
      if (out.isError) return { content: out.text, isError: true };
      const details: AgentToolResponse = {
        status: "completed",
        prompt: inp.prompt,
        agentId,
        agentType: agent.name,
        content: [{ type: "text", text: out.text }],
        resolvedModel: model,
        totalDurationMs: durationMs,
        totalTokens: tokens,
        totalToolUseCount: run.toolUseCount,
        usage: run.result.usage,
      };
      return { content: [{ type: "text", text: out.text }], details };
    } finally {
      await own?.close();
    }
  };
}

/**
 * The Agent tool (legacy name Task; contracts §7.2): runs one subagent in the foreground (createAgentRunner) and
 * returns its final text. Several calls in one message run concurrently. Nothing here throws to the loop.
 */
export function createAgentTool(o: AgentToolOptions, run: AgentRunner = createAgentRunner(o)): Tool {
  const find = (type: string) => o.agents.find((a) => a.name === type) ?? o.agents.find((a) => a.name.toLowerCase() === type.toLowerCase());
  return defineTool({
    name: "Agent",
    description: agentToolDescription(o.agents),
    input: () => inputSchema((type) => find(type)?.name ?? type),
    jsonSchema: INPUT_SCHEMAS.Agent,
    // Starting an agent changes nothing by itself; each of its tool calls is checked on its own.
    readOnly: true,
    concurrencySafe: true,
    maxResultChars: 100_000,
    execute: (inp, ctx) => run(inp, { toolUseId: ctx.toolUseId, cwd: ctx.cwd, signal: ctx.signal }),
  });
}
