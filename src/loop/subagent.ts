import type { EmitPayload, HookPayloadBuilder } from "../hook/typed.ts";
import { emptyOutcome, type HookBus, type HookEventName } from "../hook/types.ts";
import type { PermissionEvaluator } from "../permission/types.ts";
import type { ContentBlock, Message, TextBlock } from "../provider/types.ts";
import type { Transcript } from "../session/transcript.ts";
import type { FileState } from "../tool/file-state.ts";
import type { ToolRegistry } from "../tool/registry.ts";
import type { LoopEvent, TurnResult } from "./events.ts";
import { runTurn, type Conversation, type LoopDeps } from "./run-turn.ts";

/** Iteration cap when the caller gives none: a runaway subagent must end on its own. */
export const DEFAULT_SUBAGENT_MAX_TURNS = 50;

/** How long SubagentStop hooks may run after the user interrupted the subagent. */
const ABORTED_STOP_HOOK_MS = 2000;

export type SubagentOptions = {
  /** The agent type (hook matcher value, `agent_type` in hook payloads). */
  agentType: string;
  /** `agent_id` in hook payloads and transcript lines. */
  agentId: string;
  prompt: string | ContentBlock[];
  system: TextBlock[];
  tools: ToolRegistry;
  /** A resolved model id (aliases already resolved). */
  model: string;
  /** Model requests allowed before the run ends with error_max_turns. Default DEFAULT_SUBAGENT_MAX_TURNS. */
  maxTurns?: number;
  /** The sidechain transcript; its store path is the SubagentStop `agent_transcript_path`. */
  transcript: Transcript;
  signal: AbortSignal;
  /** Overrides the parent's evaluator (a forked agent's restricted policy). */
  permissions?: PermissionEvaluator;
  /** Its own read-before-write state; default: the parent's context unchanged. */
  fileState?: FileState;
  /** Messages to start from (a fork that shares the parent's prefix); default a fresh conversation. */
  history?: Message[];
  maxTokens?: number;
  /** Sees every loop event of the subagent as it happens (progress display, stream-json); a throw is swallowed. */
  onEvent?: (ev: LoopEvent) => void;
};

export type SubagentRun = {
  /** The subagent's last text answer ('' when it gave none, even if the run failed). */
  text: string;
  result: TurnResult;
  events: LoopEvent[];
  /** Tool calls the subagent made. */
  toolUseCount: number;
  /** The subagent's whole conversation. */
  messages: Message[];
};

/**
 * Hook fields inside a subagent: the parent's, with `agent_id` and `agent_type` among the common fields where
 * Claude Code puts them (after permission_mode, before effort: contracts §1.4). Pure; never throws.
 */
export function subagentHookPayload(parent: HookPayloadBuilder, agentId: string, agentType: string): HookPayloadBuilder {
  return (event, fields) => parent(event, { ...fields, agent_id: agentId, agent_type: agentType });
}

/**
 * The parent's bus as the subagent sees it: the subagent's Stop is Claude Code's SubagentStop
 * (matcher = agent type, contracts §1.1/§1.4), and its prompt is not a user prompt, so
 * UserPromptSubmit does not fire. Every other event passes through unchanged. `emit` never throws
 * (it is the parent's emit).
 */
export function subagentHookBus(
  parent: HookBus,
  parentPayload: HookPayloadBuilder,
  info: { agentId: string; agentType: string; transcriptPath: string; onStop?: () => void },
): HookBus {
  // A subagent's text is not shown to the user, so MessageDisplay does not fire for it.
  const map = (e: HookEventName): HookEventName | null => (e === "Stop" ? "SubagentStop" : e === "UserPromptSubmit" || e === "MessageDisplay" ? null : e);
  return {
    has(event) {
      const m = map(event);
      return m !== null && parent.has(m);
    },
    async emit(event, payload, opts) {
      if (event === "UserPromptSubmit" || event === "MessageDisplay") return emptyOutcome();
      if (event !== "Stop") return parent.emit(event, payload, opts);
      // TypeScript does not narrow a generic payload with its event; this is the Stop payload.
      const stop = payload as EmitPayload<"Stop">;
      const stopPayload = parentPayload("SubagentStop", {
        stop_hook_active: stop.stop_hook_active === true,
        agent_id: info.agentId,
        agent_type: info.agentType,
        agent_transcript_path: info.transcriptPath,
        ...(typeof stop.last_assistant_message === "string" ? { last_assistant_message: stop.last_assistant_message } : {}),
        background_tasks: stop.background_tasks ?? [],
        session_crons: stop.session_crons ?? [],
      });
      info.onStop?.();
      return parent.emit("SubagentStop", stopPayload, { ...opts, matchValue: info.agentType });
    },
  };
}

/**
 * Runs one subagent (or a plugin's forked agent) to completion with runTurn: its own conversation,
 * system prompt, tool set, model and turn cap; the parent's provider, hooks, permissions (unless
 * overridden), approval callback and usage tracker, so hooks and permission rules apply inside it
 * and its cost counts in the session's total. Never throws: failures and aborts end in `result`.
 */
export async function runSubagent(parent: LoopDeps, opts: SubagentOptions): Promise<SubagentRun> {
  const hookPayload = subagentHookPayload(parent.hookPayload, opts.agentId, opts.agentType);
  let stopFired = false;
  const hooks = subagentHookBus(parent.hooks, parent.hookPayload, {
    agentId: opts.agentId,
    agentType: opts.agentType,
    transcriptPath: opts.transcript.store.path,
    onStop: () => void (stopFired = true),
  });
  // Spread the parent so per-call effects (beforeToolRun: checkpoints and env files, denyInsteadOfPrompting,
  // askPermission) apply inside too; the main conversation's own effects are not in LoopDeps at all.
  const deps: LoopDeps = {
    ...parent,
    // Depth 1 for every caller: a subagent never gets the tool that starts subagents.
    tools: opts.tools.filter((t) => t.name !== "Agent"),
    hooks,
    permissions: opts.permissions ?? parent.permissions,
    hookPayload,
    context: opts.fileState ? (id, signal) => ({ ...parent.context(id, signal), fileState: opts.fileState! }) : parent.context,
    model: () => opts.model,
    maxTokens: opts.maxTokens ?? parent.maxTokens,
    maxTurns: opts.maxTurns ?? DEFAULT_SUBAGENT_MAX_TURNS,
    system: () => opts.system,
    transcript: opts.transcript,
  };
  const convo: Conversation = { messages: [...(opts.history ?? [])] };
  const events: LoopEvent[] = [];
  let toolUseCount = 0;
  let text = "";
  const gen = runTurn(deps, convo, opts.prompt, opts.signal);
  for (;;) {
    const step = await gen.next();
    if (step.done) {
      // Every SubagentStart gets its SubagentStop, also after an abort, an API error or the turn cap
      // (users match them up, user-demand §13); the loop has ended, so a block here changes nothing.
      if (!stopFired && hooks.has("Stop")) {
        const signal = opts.signal.aborted ? AbortSignal.timeout(ABORTED_STOP_HOOK_MS) : opts.signal;
        await hooks.emit("Stop", hookPayload("Stop", { stop_hook_active: false, last_assistant_message: text }), { signal });
      }
      return { text, result: step.value, events, toolUseCount, messages: convo.messages };
    }
    const ev = step.value;
    if (ev.type === "tool_start") toolUseCount++;
    if (ev.type === "assistant" && !ev.apiError) {
      const t = ev.message.content.map((b) => (b.type === "text" ? b.text : "")).join("");
      if (t) text = t;
    }
    // Raw stream deltas are for live display only; keeping them would hold every token twice.
    if (ev.type !== "stream_event") events.push(ev);
    try {
      opts.onEvent?.(ev);
    } catch {
      // A display callback must not end the subagent's run.
    }
  }
}
