import { randomUUID } from "../util/random.ts";
import { capText } from "../hook/events/common.ts";
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

/** One attachment line a hook produced, and the text the model gets for it (`rendered`, unwrapped), if any. */
export type HookAttachment = { attachment: Record<string, unknown> & { type: string }; text?: string; role?: "system" | "user" };

/** `hook_additional_context` (observed in 2.1.332): `<hookName> hook additional context: <text>`, one line per text. */
export const contextAttachment = (hookName: string, hookEvent: string, toolUseID: string, content: string): HookAttachment & { text: string } => ({
  attachment: { type: "hook_additional_context", content: [content], hookName, toolUseID, hookEvent },
  text: `${hookName} hook additional context: ${content}`,
  role: "system",
});

/** `hook_blocking_error` (observed in 2.1.332): `<hookName> hook blocking error from command: "<command>": <error>`. */
export const blockingAttachment = (hookName: string, hookEvent: string, toolUseID: string, blockingError: string, command: string): HookAttachment & { text: string } => ({
  attachment: { type: "hook_blocking_error", hookName, toolUseID, hookEvent, blockingError: { blockingError, command } },
  text: `${hookName} hook blocking error from command: "${command}": ${blockingError}`,
  role: "system",
});

/** Writes the lines to the transcript in order. */
export function writeAttachments(t: Transcript, lines: readonly HookAttachment[]): void {
  for (const l of lines) t.attachment(l.attachment, l.text !== undefined ? { rendered: l.text, role: l.role ?? "system" } : undefined);
}

/** The texts the model gets from these lines, in order. */
export const shownTexts = (lines: readonly HookAttachment[]): string[] => lines.flatMap((l) => (l.text !== undefined ? [l.text] : []));

/**
 * `hook_success` (observed in 2.1.332): one line per command hook that exited 0 and printed something, before
 * that hook's other lines; `content` is its plain stdout trimmed, "" when the stdout was JSON. Shown to the model
 * only where plain stdout is model context (`shownAs`: UserPromptSubmit's `<hookName> hook success: <content>`).
 */
export function successAttachments(
  out: HookOutcome,
  hookEvent: string,
  toolUseID: string,
  o: { shownAs?: (content: string) => string; extra?: Record<string, unknown> } = {},
): HookAttachment[] {
  const lines: HookAttachment[] = [];
  for (const r of out.records) {
    if (r.outcome !== "success" || r.exitCode !== 0 || r.command === undefined || r.stdout.trim() === "" || r.blockingError) continue;
    const json = r.stdout.trim().startsWith("{");
    const content = json ? "" : r.stdout.trim();
    const attachment = {
      type: "hook_success",
      hookName: r.hookName,
      toolUseID,
      hookEvent,
      content,
      stdout: r.stdout,
      stderr: r.stderr,
      exitCode: 0,
      command: r.command,
      durationMs: Math.round(r.durationMs),
      ...o.extra,
    };
    lines.push(o.shownAs && content ? { attachment, text: o.shownAs(content), role: "system" } : { attachment });
  }
  return lines;
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

/**
 * UserPromptSubmit's lines (observed in 2.1.332): a `hook_success` per hook that printed plain text, shown as
 * `UserPromptSubmit hook success: <stdout>`, then a `hook_additional_context` per JSON additionalContext.
 */
export function userPromptSubmitLines(out: HookOutcome): HookAttachment[] {
  // Observed in 2.1.332: here only plain stdout gets a hook_success line (a JSON answer gets its context lines only).
  const success = successAttachments(out, "UserPromptSubmit", randomUUID(), { shownAs: (c) => `UserPromptSubmit hook success: ${c}` }).filter((l) => l.text !== undefined);
  // The merge counted plain stdout as context too; what remains came from JSON.
  const plain = success.flatMap((l) => (l.text !== undefined ? [capText(String(l.attachment.content))] : []));
  const json = [...out.additionalContext];
  for (const p of plain) {
    const i = json.indexOf(p);
    if (i >= 0) json.splice(i, 1);
  }
  return [...success, ...json.map((c) => contextAttachment("UserPromptSubmit", "UserPromptSubmit", `hook-${randomUUID()}`, c))];
}

/**
 * SessionStart's lines, written when the hooks ran, before the first prompt (observed in 2.1.332): a `hook_success`
 * per hook that printed (plain stdout shown as `SessionStart:<source> hook success: <stdout>`), then a
 * `hook_additional_context` per JSON additionalContext (hookName and toolUseID "SessionStart"). What they show goes
 * to the model in the system turn after the next prompt.
 */
export function sessionStartLines(out: HookOutcome): HookAttachment[] {
  const success = successAttachments(out, "SessionStart", randomUUID(), { shownAs: undefined });
  const lines: HookAttachment[] = [];
  const plain: string[] = [];
  for (const l of success) {
    const content = String(l.attachment.content);
    if (content) {
      plain.push(capText(content));
      lines.push({ ...l, text: `${String(l.attachment.hookName)} hook success: ${content}`, role: "system" });
    } else lines.push(l);
  }
  const json = [...out.additionalContext];
  for (const p of plain) {
    const i = json.indexOf(p);
    if (i >= 0) json.splice(i, 1);
  }
  return [...lines, ...json.map((c) => contextAttachment("SessionStart", "SessionStart", "SessionStart", c))];
}

/** Writes SessionStart's lines and returns the texts the next prompt's system turn carries. */
export function recordSessionStart(t: Transcript, out: HookOutcome): string[] {
  const lines = sessionStartLines(out);
  writeAttachments(t, lines);
  return shownTexts(lines);
}
