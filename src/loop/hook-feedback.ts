import { randomUUID } from "node:crypto";
import type { HookOutcome } from "../hook/types.ts";
import type { SystemMessage, TextBlock, UserMessage } from "../provider/types.ts";
import { asReminder, type Transcript } from "../session/transcript.ts";
import { HOOK_OUTPUT_PREAMBLE } from "./stop-hook-lines.ts";

/**
 * How hook output reaches the model and the transcript, as Claude Code 2.1.332 does it (observed against the fake
 * API, contracts §1.7): feedback that continues the turn is a user turn of `<system-reminder>` texts; what a hook
 * adds as context or a JSON block's line is an attachment line rendered as a `role: "system"` turn after the user
 * content of the same turn, all of the turn's system texts joined by a blank line.
 */

/** One attachment line a hook produced, and the text the model gets for it (`rendered`, unwrapped). */
export type HookAttachment = { attachment: Record<string, unknown> & { type: string }; text: string; role: "system" | "user" };

/** `hook_additional_context` (observed in 2.1.332): `<hookName> hook additional context: <text>`, one line per text. */
export const contextAttachment = (hookName: string, hookEvent: string, toolUseID: string, content: string): HookAttachment => ({
  attachment: { type: "hook_additional_context", content: [content], hookName, toolUseID, hookEvent },
  text: `${hookName} hook additional context: ${content}`,
  role: "system",
});

/** `hook_blocking_error` (observed in 2.1.332): `<hookName> hook blocking error from command: "<command>": <error>`. */
export const blockingAttachment = (hookName: string, hookEvent: string, toolUseID: string, blockingError: string, command: string): HookAttachment => ({
  attachment: { type: "hook_blocking_error", hookName, toolUseID, hookEvent, blockingError: { blockingError, command } },
  text: `${hookName} hook blocking error from command: "${command}": ${blockingError}`,
  role: "system",
});

/** Writes the lines to the transcript in order. */
export function writeAttachments(t: Transcript, lines: readonly HookAttachment[]): void {
  for (const l of lines) t.attachment(l.attachment, { rendered: l.text, role: l.role });
}

/** The system turn carrying these texts (joined by a blank line), or undefined when there are none. */
export function systemTurn(texts: readonly string[]): SystemMessage | undefined {
  return texts.length ? { role: "system", content: texts.join("\n\n") } : undefined;
}

/** What a hook's feedback line is shown as: the preamble and the feedback in one reminder (observed in 2.1.332). */
export const hookTextReminder = (content: string, lead = HOOK_OUTPUT_PREAMBLE): string => asReminder(`${lead}\n${content}`);

/**
 * The user turn of several reminders: one text is a string content, several are text blocks, each but the last
 * ending in a newline (how 2.1.332 joins consecutive user lines).
 */
export function reminderTurn(texts: readonly string[]): UserMessage {
  if (texts.length === 1) return { role: "user", content: texts[0]! };
  return { role: "user", content: texts.map((text, i): TextBlock => ({ type: "text", text: i < texts.length - 1 ? `${text}\n` : text })) };
}

/**
 * A Stop / SubagentStop block that sends the loop on: per blocking hook, in hook order, a user line
 * `Stop hook feedback:\n<error>` marked as hook text, and after a JSON `decision: "block"` also a `hook_blocking_error`
 * attachment rendered as a system turn (exit 2 writes none). Both events word the user line "Stop hook feedback"
 * (observed in 2.1.332). Returns the turns to add to the conversation, and the id the stop_hook_summary line shares.
 */
export function writeStopFeedback(t: Transcript, out: HookOutcome): { user: UserMessage; system?: SystemMessage; toolUseID: string; uuid: string } {
  const toolUseID = randomUUID();
  const blocks = out.records.filter((r) => r.blockingError);
  // A subagent's Stop fires as SubagentStop (its records say so); the attachment names the event without the matcher value.
  const event = blocks[0]?.hookName.split(":")[0] ?? "Stop";
  const items = blocks.length
    ? blocks.map((r) => ({ error: r.blockingError!, command: r.command ?? r.source, json: r.blockFromJson === true }))
    : [{ error: out.blockReason ?? "Continue working.", command: "", json: false }];
  const reminders: string[] = [];
  const system: string[] = [];
  let uuid = "";
  for (const it of items) {
    const content = `Stop hook feedback:\n${it.error}`;
    const u = t.user({ role: "user", content }, { isMeta: true, rowSource: "hook", hookText: true, hookTextLead: HOOK_OUTPUT_PREAMBLE });
    uuid ||= u;
    reminders.push(hookTextReminder(content));
    if (it.json) {
      const a = blockingAttachment(event, event, toolUseID, it.error, it.command);
      writeAttachments(t, [a]);
      system.push(a.text);
    }
  }
  const sys = systemTurn(system);
  return { user: reminderTurn(reminders), ...(sys ? { system: sys } : {}), toolUseID, uuid };
}
