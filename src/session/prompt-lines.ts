import type { Transcript } from "./transcript.ts";

type PromptLike = string | ReadonlyArray<{ type: string; text?: string }>;
const textOf = (p: PromptLike): string => (typeof p === "string" ? p : p.flatMap((b) => (b.type === "text" && b.text ? [b.text] : [])).join("\n"));

/**
 * Claude Code 2.1.332 writes `queue-operation` lines as a prompt is taken up (observed in 2.1.332:
 * `{type, operation: "enqueue", timestamp, sessionId, content}` then `{type, operation: "dequeue", timestamp, sessionId}`).
 */
export function writePromptQueued(t: Transcript, prompt: PromptLike, now: () => Date): void {
  writeQueueOperation(t, "enqueue", now, prompt);
  writeQueueOperation(t, "dequeue", now);
}

/**
 * One `queue-operation` line. The terminal session writes `enqueue` only for a message typed while the agent works,
 * and `dequeue` when it is taken up; a prompt typed at an idle input gets none (observed in 2.1.332, interactive).
 */
export function writeQueueOperation(t: Transcript, operation: "enqueue" | "dequeue", now: () => Date, prompt?: PromptLike): void {
  t.meta({ type: "queue-operation", operation, timestamp: now().toISOString(), sessionId: t.store.sessionId, ...(prompt === undefined ? {} : { content: textOf(prompt) }) });
}

/**
 * `{type: "last-prompt", lastPrompt, leafUuid, sessionId}` after a turn (observed in 2.1.332): the Agent SDK's
 * listSessions shows it as the session's summary when there is no title, and resume pickers read it.
 */
export function writeLastPrompt(t: Transcript, prompt: PromptLike): void {
  const leafUuid = t.lastUuid();
  const lastPrompt = textOf(prompt);
  if (!leafUuid || !lastPrompt) return;
  t.meta({ type: "last-prompt", lastPrompt, leafUuid, sessionId: t.store.sessionId });
}
