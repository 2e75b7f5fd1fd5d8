import { randomUUID } from "../util/random.ts";
import type { AssistantMessage, ToolUseBlock } from "../provider/types.ts";
import type { Transcript } from "../session/transcript.ts";
import type { ToolOutcome, ToolRunnerDeps } from "./tool-runner.ts";
import { contextAttachment, shownTexts, successAttachments, writeAttachments } from "./hook-feedback.ts";

/**
 * MessageDisplay (contracts §1.1; payload keys from hooks-hook-stdin-shape.txt): fired once per text block of an
 * assistant message before it is shown, the whole text as one final delta (observed in 2.1.332, with or without
 * --include-partial-messages). Returns the message to show: a hook's `displayContent` replaces that block's text
 * there, while the model and the transcript keep the original. Never throws (the bus never throws).
 */
export async function displayedMessage(
  deps: Pick<ToolRunnerDeps, "hooks" | "hookPayload">,
  message: AssistantMessage,
  turnId: string,
  signal: AbortSignal,
): Promise<AssistantMessage> {
  if (!deps.hooks.has("MessageDisplay")) return message;
  let content = message.content;
  for (let i = 0; i < message.content.length; i++) {
    const block = message.content[i]!;
    if (block.type !== "text" || block.text === "") continue;
    const out = await deps.hooks.emit(
      "MessageDisplay",
      deps.hookPayload("MessageDisplay", { turn_id: turnId, message_id: randomUUID(), index: 0, final: true, delta: block.text }),
      { signal },
    );
    if (out.displayContent === undefined) continue;
    if (content === message.content) content = [...message.content];
    content[i] = { ...block, text: out.displayContent };
  }
  return content === message.content ? message : { ...message, content };
}

export type BatchHookResult = {
  /** PostToolBatch additionalContext, for the model after the batch's results. */
  context: string[];
  systemMessages: string[];
  /** Exit 2, `decision: "block"` or `continue: false`: the turn ends before the next model call (contracts §1.1). */
  stopped?: { reason: string };
};

/**
 * PostToolBatch (contracts §1.4, §1.9): once after every tool call of one assistant message has its result, with
 * the calls in the message's order and each call's model-facing result. A block is written as Claude Code 2.1.332
 * writes it: a `hook_stopped_continuation` attachment line. Never throws.
 */
export async function firePostToolBatch(
  deps: Pick<ToolRunnerDeps, "hooks" | "hookPayload"> & { transcript: Transcript },
  calls: ToolUseBlock[],
  outcomes: ToolOutcome[],
  signal: AbortSignal,
): Promise<BatchHookResult> {
  if (!deps.hooks.has("PostToolBatch") || calls.length === 0) return { context: [], systemMessages: [] };
  const byId = new Map(outcomes.map((o) => [o.block.tool_use_id, o.block]));
  const tool_calls = calls.map((c) => {
    const r = byId.get(c.id);
    return { tool_name: c.name, tool_input: c.input, tool_use_id: c.id, ...(r ? { tool_response: r.content } : {}) };
  });
  const out = await deps.hooks.emit("PostToolBatch", deps.hookPayload("PostToolBatch", { tool_calls }), { signal });
  const toolUseID = `hook-${randomUUID()}`;
  // Observed in 2.1.332: PostToolBatch's lines carry `accountMemoryBatch: false`.
  const batchMark = { accountMemoryBatch: false };
  const lines = [
    ...successAttachments(out, "PostToolBatch", toolUseID, { extra: batchMark }),
    ...out.additionalContext.map((c) => {
      const l = contextAttachment("PostToolBatch", "PostToolBatch", toolUseID, c);
      return { ...l, attachment: { ...l.attachment, ...batchMark } };
    }),
  ];
  writeAttachments(deps.transcript, lines);
  const result: BatchHookResult = { context: shownTexts(lines), systemMessages: out.systemMessages };
  if (out.blocked || out.stop) {
    const reason = out.blockReason ?? out.stopReason ?? "";
    deps.transcript.attachment(
      { type: "hook_stopped_continuation", message: reason, hookName: "PostToolBatch", toolUseID, hookEvent: "PostToolBatch", ...batchMark },
      { rendered: `PostToolBatch hook stopped continuation: ${reason}`, role: "system" },
    );
    result.stopped = { reason };
  }
  return result;
}
