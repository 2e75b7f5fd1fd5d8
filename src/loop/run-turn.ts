import { randomUUID } from "../util/random.ts";
import type { ContentBlock, Message, ModelRequest, Provider, ProviderError, TextBlock, ToolResultBlock, ToolUseBlock, Usage, UserMessage } from "../provider/types.ts";
import { emptyUsage } from "../provider/types.ts";
import type { Transcript } from "../session/transcript.ts";
import type { HookOutcome } from "../hook/types.ts";
import { isConcurrencySafe } from "../tool/define-tool.ts";
import type { LoopEvent, PermissionDenial, ResultSubtype, TerminalReason, TurnResult } from "./events.ts";
import { runToolCall, type ToolOutcome, type ToolRunnerDeps } from "./tool-runner.ts";
import { addUsage, type UsageTracker } from "./usage.ts";
import { stopCapWarning, writeStopCapWarning, writeStopHookSummary } from "./stop-hook-lines.ts";
import { shownTexts, systemTurn, userPromptSubmitLines, writeAttachments, writeStopFeedback } from "./hook-feedback.ts";
import { markEach } from "../util/mark-each.ts";
import { displayedMessage, firePostToolBatch } from "./display-and-batch-hooks.ts";

/**
 * What every conversation needs, the main one and any run beside it (forks, subagents): provider, tools,
 * hooks, permissions, transcript, clock, usage. A fork or subagent builds its own from its parent's.
 */
export type LoopDeps = ToolRunnerDeps & {
  provider: Provider;
  model: () => string;
  maxTokens: number;
  /** Per-model request parameters (max_tokens, thinking, effort: provider/model-params.ts); they win over maxTokens. */
  modelParams?: (model: string) => Pick<ModelRequest, "maxTokens" | "thinking" | "effort">;
  maxTurns?: number;
  /** `--max-budget-usd`: the run stops before the next request once the process has spent this much. */
  maxBudgetUsd?: number;
  system: () => Promise<TextBlock[]> | TextBlock[];
  transcript: Transcript;
  usage: UsageTracker;
  /** Stop-hook blocks in a row before the turn ends anyway (CLAUDE_CODE_STOP_HOOK_BLOCK_CAP; default 8). */
  maxStopBlocks?: number;
  /** Background tasks still running, for the Stop payload's `background_tasks`. */
  backgroundTasks?: () => unknown[];
};

/**
 * What belongs to the main conversation alone. runTurn takes it as its own argument, which only the
 * main run passes: forks and subagents call runTurn without it, so they cannot receive these by
 * construction (no list of fields to clear).
 */
export type MainConversation = {
  /** Run before the prompt's UserPromptSubmit hooks (InstructionsLoaded for the session's instruction files). */
  beforeSubmit?: (signal: AbortSignal) => Promise<void>;
  /** Context for this prompt (instruction files on the first turn, memory), as complete text blocks (already wrapped). */
  promptContext?: (prompt: string, signal: AbortSignal) => Promise<string[]>;
  /** Context after a tool batch (lazily attached instruction files), as complete text blocks (already wrapped). */
  afterTools?: (calls: ToolUseBlock[]) => Promise<string[]> | string[];
  /** Called before every model request; may compact the conversation in place. */
  beforeRequest?: (convo: Conversation, signal: AbortSignal) => AsyncIterable<LoopEvent> | undefined;
  /** The plan given to ExitPlanMode in this turn, if any: the run ends with it. */
  takePlan?: () => string | undefined;
  /** Called first in every user turn: a new prompt id (hook `prompt_id`, transcript `promptId`). */
  beginPrompt?: () => void;
  /**
   * `--fallback-model`: after the provider gave up on an error, the model to switch to for the rest of the session
   * (undefined: no fallback left, or not an error a fallback helps with).
   */
  fallbackModel?: (error: ProviderError, failedModel: string) => string | undefined;
  /**
   * Asked when the model ends its turn without tool calls, before Stop hooks: a reminder sends it on (e.g. "call
   * StructuredOutput"), a failure ends the run as an error, undefined lets it end.
   */
  beforeEnd?: () => { kind: "continue"; reminder: string } | { kind: "fail"; subtype: ResultSubtype; error: string } | undefined;
  /** `--json-schema`: the structured answer, put into the result. */
  structuredOutput?: () => unknown;
  /** The transcript uuid of each prompt as it is recorded (checkpoints key on it). */
  onPrompt?: (uuid: string) => void;
  /** Texts for the system turn after this prompt, before UserPromptSubmit's (SessionStart hook output). */
  promptSystem?: () => string[];
  /**
   * The UserPromptSubmit outcome of this prompt when its hooks ran already, while the run was composing
   * (src/cli/early-submit.ts; their prompt_id is this turn's); null or undefined: the turn runs them.
   */
  submitted?: (promptText: string) => Promise<HookOutcome | null> | undefined;
  /** The uuid the host gave this prompt (stream-json input `uuid`, contracts §4.5), used for its transcript line. */
  promptUuid?: () => string | undefined;
  /**
   * Called once UserPromptSubmit let the prompt through: a user's `/command` expands here (src/extension/slash-turn.ts).
   * `prompt` replaces the typed text and `context` joins the prompt's context; `end` ends the turn with that result
   * before the model is asked (an expansion a hook blocked or that failed).
   */
  expand?: (signal: AbortSignal) => Promise<{ prompt: ContentBlock[]; context: TextBlock[] } | { end: Partial<TurnResult> & { terminalReason: TerminalReason } }>;
};

export type Conversation = { messages: Message[] };

export const reminder = (text: string): TextBlock => ({ type: "text", text: `<system-reminder>\n${text}\n</system-reminder>` });

const textOf = (content: ContentBlock[]) =>
  content
    .filter((b): b is TextBlock => b.type === "text")
    .map((b) => b.text)
    .join("");

/**
 * One user turn: prompt → model ⇄ tools → Stop hooks → result. Every effect comes in through deps, and the
 * main conversation's own effects through `main` (DESIGN rule 1). Never throws: API failures, aborts and tool failures end in a `result` event.
 */
export async function* runTurn(
  deps: LoopDeps,
  convo: Conversation,
  prompt: string | ContentBlock[],
  signal: AbortSignal,
  main: MainConversation = {},
): AsyncGenerator<LoopEvent, TurnResult> {
  const started = deps.clock();
  const apiStart = deps.usage.apiMs();
  const denials: PermissionDenial[] = [];
  let usage: Usage = emptyUsage();
  let turns = 0;
  let lastText = "";
  let stopReason: string | null = null;
  let stopBlocks = 0;
  let stopHookActive = false;
  // True while the latest permission denial has not been followed by a successful tool call.
  let blockedByDenial = false;
  // MessageDisplay's turn_id: one per prompt (observed in 2.1.332).
  const turnId = randomUUID();

  const finish = (over: Partial<TurnResult> & { terminalReason: TerminalReason }): TurnResult => ({
    subtype: "success",
    isError: false,
    result: lastText,
    errors: [],
    numTurns: turns,
    durationMs: deps.clock() - started,
    durationApiMs: deps.usage.apiMs() - apiStart,
    stopReason,
    usage,
    modelUsage: deps.usage.modelUsage(),
    totalCostUsd: deps.usage.totalCost(),
    permissionDenials: denials,
    ...(main.structuredOutput?.() !== undefined ? { structuredOutput: main.structuredOutput() } : {}),
    ...over,
    ...((over.terminalReason === "completed" && !over.isError && blockedByDenial) ? { endedOnDenial: true } : {}),
  });
  const aborted = (during: "streaming" | "tools") =>
    finish({
      subtype: "error_during_execution",
      isError: true,
      errors: ["The run was interrupted."],
      terminalReason: during === "streaming" ? "aborted_streaming" : "aborted_tools",
    });

  const promptText = typeof prompt === "string" ? prompt : textOf(prompt);
  const early = await main.submitted?.(promptText);
  if (!early) {
    await main.beforeSubmit?.(signal);
    main.beginPrompt?.();
  }
  const submit =
    early ?? (deps.hooks.has("UserPromptSubmit") ? await deps.hooks.emit("UserPromptSubmit", deps.hookPayload("UserPromptSubmit", { prompt: promptText }), { signal }) : null);
  if (submit?.blocked || submit?.stop) {
    const why = submit.blockReason ?? submit.stopReason ?? "blocked";
    return finish({ isError: true, result: `Prompt blocked by a UserPromptSubmit hook: ${why}`, terminalReason: "hook_stopped" });
  }
  const expansion = await main.expand?.(signal);
  if (expansion && "end" in expansion) return finish(expansion.end);
  const extra: TextBlock[] = [
    ...((await main.promptContext?.(promptText, signal)) ?? []).map((text): TextBlock => ({ type: "text", text })),
    ...(expansion?.context ?? []),
  ];
  const promptBlocks: ContentBlock[] = expansion ? expansion.prompt : typeof prompt === "string" ? [{ type: "text", text: prompt }] : prompt;
  const userMsg: UserMessage = { role: "user", content: extra.length || expansion ? [...extra, ...promptBlocks] : prompt };
  convo.messages.push(userMsg);
  const hostUuid = main.promptUuid?.();
  const uuid = deps.transcript.user(userMsg, hostUuid ? { uuid: hostUuid } : {});
  main.onPrompt?.(uuid);
  // Observed in 2.1.332: a UserPromptSubmit hook's context is an attachment line after the prompt, sent as a system turn.
  const submitLines = submit ? userPromptSubmitLines(submit) : [];
  writeAttachments(deps.transcript, submitLines);
  const submitTurn = systemTurn([...(main.promptSystem?.() ?? []), ...shownTexts(submitLines)]);
  if (submitTurn) convo.messages.push(submitTurn);
  yield { type: "user", message: userMsg, uuid, prompt };

  for (;;) {
    if (signal.aborted) return aborted("tools");
    turns++;
    if (deps.maxBudgetUsd !== undefined && deps.usage.totalCost() >= deps.maxBudgetUsd) {
      return finish({
        subtype: "error_max_budget_usd",
        isError: true,
        errors: [`Reached maximum budget ($${deps.maxBudgetUsd})`],
        terminalReason: "budget_exhausted",
      });
    }
    if (deps.maxTurns !== undefined && turns > deps.maxTurns) {
      return finish({
        subtype: "error_max_turns",
        isError: true,
        errors: [`Reached maximum number of turns (${deps.maxTurns})`],
        terminalReason: "max_turns",
      });
    }
    const pre = main.beforeRequest?.(convo, signal);
    if (pre) for await (const ev of pre) yield ev;

    markEach("turn-request");
    const model = deps.model();
    let message = null;
    let requestId: string | undefined;
    let fallback = false;
    for await (const ev of deps.provider.stream(
      { model, system: await deps.system(), messages: convo.messages, tools: deps.tools.specs(), maxTokens: deps.maxTokens, ...deps.modelParams?.(model) },
      signal,
    )) {
      if (ev.type === "retry") yield { type: "api_retry", info: ev.info, ...(ev.cause ? { cause: ev.cause } : {}) };
      else if (ev.type === "stream_event") yield { type: "stream_event", event: ev.event };
      else if (ev.type === "error") {
        if (ev.error.kind === "aborted" || signal.aborted) return aborted("streaming");
        const next = main.fallbackModel?.(ev.error, model);
        if (next) {
          yield { type: "system", subtype: "notification", data: { message: `${model} failed (${ev.error.kind}); switching to the fallback model ${next}` } };
          fallback = true;
          break;
        }
        // contracts §1.1 StopFailure: the turn ends on an API error; scripts get told (matcher: the error type).
        if (deps.hooks.has("StopFailure"))
          await deps.hooks.emit(
            "StopFailure",
            deps.hookPayload("StopFailure", { error: ev.error.kind, error_details: ev.error.message, ...(lastText ? { last_assistant_message: lastText } : {}) }),
            { matchValue: ev.error.kind },
          );
        const errorText = `API Error: ${ev.error.status ?? ""} ${ev.error.message}`.replace("  ", " ");
        yield apiErrorMessage(errorText, ev.error, ev.requestId);
        return finish({
          isError: true,
          result: errorText,
          apiErrorStatus: ev.error.status,
          terminalReason: "api_error",
        });
      } else {
        message = ev.message;
        requestId = ev.requestId;
        deps.usage.add(model, ev.message.usage, ev.durationMs);
      }
    }
    if (fallback) {
      turns--;
      continue;
    }
    if (!message) return aborted("streaming");
    markEach("turn-message");
    usage = addUsage(usage, message.usage);
    stopReason = message.stop_reason;
    convo.messages.push({ role: "assistant", content: message.content });
    const uuids = deps.transcript.assistant(message, { ...(requestId ? { requestId } : {}), requestedModel: model });
    yield { type: "assistant", message: await displayedMessage(deps, message, turnId, signal), uuids, ...(requestId ? { requestId } : {}) };
    const text = textOf(message.content);
    if (text) lastText = text;

    const calls = message.content.filter((b): b is ToolUseBlock => b.type === "tool_use");
    if (calls.length === 0) {
      const end = main.beforeEnd?.();
      if (end?.kind === "fail") return finish({ subtype: end.subtype, isError: true, errors: [end.error], terminalReason: "completed" });
      if (end?.kind === "continue") {
        const nudge: UserMessage = { role: "user", content: [reminder(end.reminder)] };
        convo.messages.push(nudge);
        const nu = deps.transcript.user(nudge, { isMeta: true });
        yield { type: "user", message: nudge, uuid: nu };
        continue;
      }
      if (!deps.hooks.has("Stop")) return finish({ terminalReason: "completed" });
      const stop = await deps.hooks.emit(
        "Stop",
        // contracts §1.4 Stop: background_tasks and session_crons are always sent (yoke has no crons).
        deps.hookPayload("Stop", {
          stop_hook_active: stopHookActive,
          last_assistant_message: text,
          background_tasks: deps.backgroundTasks?.() ?? [],
          session_crons: [],
        }),
        { signal },
      );
      const capped = stopBlocks >= (deps.maxStopBlocks ?? 8);
      // The feedback lines come before the summary, which shares their id (observed in 2.1.332).
      const feedback = stop.blocked && !stop.stop && !capped ? writeStopFeedback(deps.transcript, stop) : undefined;
      writeStopHookSummary(deps.transcript, stop, feedback?.toolUseID);
      // contracts §1.6: a Stop hook's systemMessage is shown to the user.
      for (const m of stop.systemMessages) yield { type: "system", subtype: "informational", data: { content: m } };
      if (stop.stop) return finish({ terminalReason: "hook_stopped" });
      if (!stop.blocked || !feedback) {
        if (!stop.blocked) return finish({ terminalReason: "completed" });
        const warning = stopCapWarning(stopBlocks + 1);
        writeStopCapWarning(deps.transcript, warning);
        yield { type: "system", subtype: "informational", data: { content: warning } };
        return finish({ terminalReason: "completed" });
      }
      stopBlocks++;
      // Stays true for the rest of the turn, tool calls or not, so a hook guarded on it lets the turn end.
      stopHookActive = true;
      // A user turn of the hooks' feedback, then a system turn for JSON blocks (observed in 2.1.332, contracts §1.7).
      convo.messages.push(feedback.user);
      if (feedback.system) convo.messages.push(feedback.system);
      yield { type: "user", message: feedback.user, uuid: feedback.uuid };
      yield { type: "system", subtype: "notification", data: { message: `Stop hook feedback: ${stop.blockReason ?? ""}` } };
      continue;
    }
    stopBlocks = 0;

    // A reply cut by max_tokens while the model was writing a tool call's input: that input is not what the
    // model meant, so the call never runs (not even if what arrived happens to parse); the model is told why.
    const cut = message.stop_reason === "max_tokens" && message.content.at(-1)?.type === "tool_use" ? calls.at(-1) : undefined;
    const runnable = cut ? calls.slice(0, -1) : calls;
    const outcomes: ToolOutcome[] = [];
    for (const batch of batches(deps, runnable)) {
      if (signal.aborted) break;
      for (const c of batch) yield { type: "tool_start", toolUseId: c.id, name: c.name, input: c.input };
      const results = await Promise.all(batch.map((c) => runToolCall(deps, c, signal, convo.messages)));
      outcomes.push(...results);
    }
    // Every tool_use needs a tool_result, even when the run was interrupted mid-batch.
    for (const c of runnable.slice(outcomes.length))
      outcomes.push({ block: { type: "tool_result", tool_use_id: c.id, content: "Interrupted by the user.", is_error: true }, context: [], systemMessages: [] });
    if (cut) outcomes.push({ block: { type: "tool_result", tool_use_id: cut.id, content: cutToolUse(cut.name), is_error: true }, context: [], systemMessages: [] });

    const blocks: ContentBlock[] = [];
    for (const o of outcomes) {
      blocks.push(o.block);
      // Observed in 2.1.332: a call's PreToolUse hook lines before its tool_result line, its PostToolUse lines after.
      writeAttachments(deps.transcript, (o.hooks ?? []).filter((h) => h.phase === "pre"));
      const msg: UserMessage = { role: "user", content: [o.block] };
      const u = deps.transcript.user(msg, {
        toolUseResult: o.details ?? (o.block.is_error ? `Error: ${String(o.block.content)}` : undefined),
        sourceToolAssistantUUID: uuids[uuids.length - 1],
      });
      if (o.denial) blockedByDenial = true;
      else if (!o.block.is_error) blockedByDenial = false;
      if (o.denial) {
        denials.push(o.denial.denial);
        yield { type: "permission_denied", denial: o.denial.denial, reason: o.denial.reason };
      }
      writeAttachments(deps.transcript, (o.hooks ?? []).filter((h) => h.phase === "post"));
      yield { type: "user", message: msg, uuid: u, toolUseResult: o.details };
      for (const m of o.systemMessages) yield { type: "system", subtype: "informational", data: { content: m } };
    }
    const batch = await firePostToolBatch(deps, runnable, outcomes, signal);
    for (const m of batch.systemMessages) yield { type: "system", subtype: "informational", data: { content: m } };
    // Files attached after the tools stay in the user turn; hook lines go in a system turn after it (contracts §1.7).
    const context = ((await main.afterTools?.(calls)) ?? []).map((text): TextBlock => ({ type: "text", text }));
    if (context.length) {
      blocks.push(...context);
      deps.transcript.user({ role: "user", content: context }, { isMeta: true });
    }
    convo.messages.push({ role: "user", content: blocks as Array<ToolResultBlock | TextBlock> });
    const hookTurn = systemTurn([...outcomes.flatMap((o) => o.context), ...batch.context]);
    if (hookTurn) convo.messages.push(hookTurn);
    if (signal.aborted) return aborted("tools");

    const stopped = outcomes.find((o) => o.stop);
    if (stopped) return finish({ result: stopped.stop!.reason, terminalReason: "hook_stopped" });
    // contracts §1.1: a PostToolBatch block ends the turn before the next model call; the result is empty (observed in 2.1.332).
    if (batch.stopped) return finish({ result: "", terminalReason: "hook_stopped" });
    // contracts §4.4: a structured answer given in this batch ends the run at once, its JSON as the result (Claude Code 2.1.332).
    const answered = calls.some((c, i) => c.name === "StructuredOutput" && outcomes[i] && !outcomes[i]!.block.is_error);
    if (answered && main.structuredOutput?.() !== undefined) {
      if (deps.hooks.has("Stop"))
        await deps.hooks.emit("Stop", deps.hookPayload("Stop", { stop_hook_active: false, last_assistant_message: lastText }), { signal });
      return finish({ result: JSON.stringify(main.structuredOutput()), terminalReason: "completed" });
    }
    const plan = main.takePlan?.();
    if (plan !== undefined) {
      lastText = plan;
      return finish({ terminalReason: "plan_ready" });
    }
  }
}

/** Claude Code's synthetic assistant message for an API failure (contracts §4.4 assistant `error`). */
function apiErrorMessage(text: string, error: ProviderError, requestId?: string): LoopEvent {
  const usage: Usage = { ...emptyUsage() };
  return {
    type: "assistant",
    message: { id: randomUUID(), type: "message", role: "assistant", model: "<synthetic>", content: [{ type: "text", text }], stop_reason: "stop_sequence", stop_sequence: "", usage },
    uuids: [randomUUID()],
    apiError: { kind: error.kind, status: error.status },
    ...(requestId ? { requestId } : {}),
  };
}

/** The tool_result for a call whose input was cut off by the output token limit. */
export const cutToolUse = (tool: string): string =>
  `Your reply reached the output token limit while you were writing the input of this ${tool} call, so the input is incomplete and nothing ran. Call ${tool} again with a smaller input: split a long file or edit into several calls.`;

/** Consecutive concurrency-safe calls run together; anything else runs alone, in order. */
function batches(deps: LoopDeps, calls: ToolUseBlock[]): ToolUseBlock[][] {
  const out: ToolUseBlock[][] = [];
  for (const c of calls) {
    const t = deps.tools.get(c.name);
    const safe = t ? isConcurrencySafe(t, c.input) : false;
    const last = out[out.length - 1];
    if (safe && last && last.every((x) => { const tx = deps.tools.get(x.name); return tx ? isConcurrencySafe(tx, x.input) : false; })) last.push(c);
    else out.push([c]);
  }
  return out;
}
