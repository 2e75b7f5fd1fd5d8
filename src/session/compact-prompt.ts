import type { ContentBlock, Message } from "../provider/types.ts";

/** System prompt of the summarizing call (our own wording, internals §6.3 contract: text only, analysis then summary). */
export const SUMMARIZER_SYSTEM =
  "You condense long coding-agent sessions into a faithful hand-over note. You never call tools; you answer in plain text only.";

/** Opening of every model-made summary message (the summary user line, isCompactSummary). */
export const MODEL_SUMMARY_PREAMBLE =
  "This session continues an earlier conversation that outgrew the context window. The note below stands in for the earlier part.";

/**
 * The instruction appended after the conversation for the summarizing call. Sections follow
 * internals §6.3 (request, concepts, files, errors, problem solving, user messages, pending, current
 * work, next step). Never throws.
 */
export function summaryRequest(o: { focus?: string; compactInstructions?: string; hookInstructions?: string[] }): string {
  const parts = [
    "Stop the task for a moment. Do not call any tool: a tool call here is refused and the turn is lost.",
    "Write a hand-over note for the conversation above so work can continue from the note alone.",
    "First think inside <analysis>…</analysis>, walking through the conversation in order. Then give the note inside <summary>…</summary> with these numbered sections:",
    "1. Primary request and intent: what the user asked for, in detail.",
    "2. Key technical concepts: technologies, libraries and conventions in play.",
    "3. Files and code: every file examined, changed or created, why it matters, with the important snippets.",
    "4. Errors and fixes: what went wrong, how it was fixed, and any user feedback about it.",
    "5. Problem solving: what was solved and what is still being investigated.",
    "6. All user messages: every message the user wrote (not tool results), briefly but faithfully.",
    "7. Pending tasks: what was asked for and is not done yet.",
    "8. Current work: precisely what was being done right before this note, with file names and snippets.",
    "9. Next step: only if it follows directly from the latest request; quote the request.",
  ];
  const extra: string[] = [];
  if (o.compactInstructions?.trim()) extra.push(`The project's compaction instructions (follow them):\n${o.compactInstructions.trim()}`);
  if (o.focus?.trim()) extra.push(`Focus requested for this compaction: ${o.focus.trim()}`);
  for (const h of o.hookInstructions ?? []) if (h.trim()) extra.push(h.trim());
  if (extra.length) parts.push("", "Additional instructions:", ...extra);
  parts.push("", "Answer with text only: <analysis> then <summary>.");
  return parts.join("\n");
}

/** `<analysis>` dropped, `<summary>X</summary>` → `Summary:\nX`, blank-line runs collapsed (internals §6.3). Never throws. */
export function formatModelSummary(raw: string): string {
  let s = raw.replace(/<analysis>[\s\S]*?<\/analysis>/g, "");
  const m = /<summary>([\s\S]*?)(?:<\/summary>|$)/.exec(s);
  if (m) s = s.replace(m[0], `Summary:\n${m[1]!.trim()}`);
  return s.replace(/\n{3,}/g, "\n\n").trim();
}

/**
 * A "Compact Instructions" / "Summary instructions" section of an instruction file (any heading
 * level), up to the next heading of the same or higher level. Never throws; '' when absent.
 */
export function compactInstructionsOf(markdown: string): string {
  const lines = markdown.split("\n");
  const out: string[] = [];
  let level = 0;
  for (const line of lines) {
    const h = /^(#{1,6})\s+(.*)$/.exec(line);
    if (level) {
      if (h && h[1]!.length <= level) break;
      out.push(line);
    } else if (h && /^(compact|summary) instructions\b/i.test(h[2]!.trim())) level = h[1]!.length;
  }
  return out.join("\n").trim();
}

/** A user message carrying tool results (it must follow the assistant message whose tool_use it answers). */
export const isToolResultMsg = (m: Message | undefined): boolean =>
  !!m && m.role === "user" && typeof m.content !== "string" && m.content.some((b) => b.type === "tool_result");

/** Index where the kept tail starts: last `keep` messages, moved back so a tool_use/tool_result pair is never split. */
export function keepFromIndex(messages: readonly Message[], keep: number): number {
  let from = Math.max(0, messages.length - Math.max(0, keep));
  while (from > 0 && isToolResultMsg(messages[from])) from--;
  return from;
}

export const blocksOf = (m: Message): ContentBlock[] => (typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content);

/** `[first, ...rest]` with same-role neighbours merged (tool_result blocks first), so the API accepts it. Pure. */
export function joinMessages(first: Message, rest: readonly Message[]): Message[] {
  const out: Message[] = [{ ...first, content: typeof first.content === "string" ? first.content : first.content.slice() } as Message];
  for (const m of rest) {
    const last = out[out.length - 1]!;
    if (last.role === m.role) {
      const merged = [...blocksOf(last), ...blocksOf(m)];
      last.content = m.role === "user" ? [...merged.filter((b) => b.type === "tool_result"), ...merged.filter((b) => b.type !== "tool_result")] : merged;
    } else out.push(m.role === "assistant" ? { role: "assistant", content: m.content.slice() } : ({ ...m } as Message));
  }
  return out;
}

/** The summarizing request's messages: the history to condense plus the instruction as the last user turn. Pure. */
export function summaryMessages(history: readonly Message[], instruction: string): Message[] {
  const msgs = history.slice();
  const last = msgs[msgs.length - 1];
  if (last?.role === "user") msgs[msgs.length - 1] = { role: "user", content: [...blocksOf(last), { type: "text", text: instruction }] };
  else msgs.push({ role: "user", content: instruction });
  return msgs;
}
