import type { ContentBlock, Message } from "yoke";

/** Plain helpers shared by the memory plugins. They use nothing but their arguments. */

/** A message's content as blocks (a plain-string content is one text block). */
export const blocksOf = (m: Message): ContentBlock[] => (typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content);

/** Text the user or model wrote, not blank and not an injected `<system-reminder>`. */
export const isVisibleText = (b: ContentBlock): boolean => b.type === "text" && !!b.text.trim() && !b.text.trimStart().startsWith("<system-reminder>");

const clip = (s: string, max: number) => (s.length <= max ? s : `${s.slice(0, max)} …[${s.length - max} more characters]`);

const resultText = (b: Extract<ContentBlock, { type: "tool_result" }>): string =>
  typeof b.content === "string" ? b.content : b.content.map((c) => (c.type === "text" ? c.text : `[${c.type}]`)).join("\n");

/**
 * The conversation as plain text for a forked agent's prompt: user and assistant text in full, tool
 * calls and results clipped, injected context (system reminders: instruction files, memories) left out
 * because the fork either has it already or must not re-save it. Keeps the most recent `maxChars`.
 * Pure; never throws.
 */
export function conversationText(messages: readonly Message[], opts: { maxChars?: number; toolChars?: number } = {}): string {
  const toolChars = opts.toolChars ?? 600;
  const parts: string[] = [];
  for (const m of messages) {
    for (const b of blocksOf(m)) {
      if (b.type === "text") {
        const t = b.text.trim();
        if (!t || t.startsWith("<system-reminder>")) continue;
        parts.push(`${m.role === "user" ? "User" : "Assistant"}: ${t}`);
      } else if (b.type === "tool_use") parts.push(`Assistant called ${b.name}: ${clip(JSON.stringify(b.input), toolChars)}`);
      else if (b.type === "tool_result") parts.push(`${b.is_error ? "Tool error" : "Tool result"}: ${clip(resultText(b).trim(), toolChars)}`);
      else if (b.type === "image") parts.push(`${m.role === "user" ? "User" : "Assistant"}: [image]`);
    }
  }
  const text = parts.join("\n\n");
  const max = opts.maxChars ?? 60_000;
  return text.length <= max ? text : `[… earlier part left out …]\n\n${text.slice(text.length - max)}`;
}

/** User and assistant messages that carry something the model wrote or was told (tool plumbing and reminders aside). */
export function countVisibleMessages(messages: readonly Message[]): number {
  return messages.filter((m) => blocksOf(m).some((b) => isVisibleText(b) || b.type === "tool_use")).length;
}

/** Write-capable file tools, by the names a transcript shows. */
export const FILE_WRITE_TOOLS = new Set(["Write", "Edit", "MultiEdit", "NotebookEdit"]);

export const isInside = (dir: string, p: string): boolean => {
  const d = dir.endsWith("/") ? dir : `${dir}/`;
  return p === dir || p === d.slice(0, -1) || p.startsWith(d);
};

/** Whether any assistant message wrote a file inside `dir` (the main agent saved memory itself). */
export function wroteInto(messages: readonly Message[], dir: string): boolean {
  for (const m of messages) {
    if (m.role !== "assistant") continue;
    for (const b of m.content) {
      if (b.type !== "tool_use" || !FILE_WRITE_TOOLS.has(b.name)) continue;
      const p = b.input.file_path ?? b.input.notebook_path;
      if (typeof p === "string" && isInside(dir, p)) return true;
    }
  }
  return false;
}

/** Where to pick up: just after `last` if it is still in the list, else (compaction replaced it) from the start. */
export function indexAfter(messages: readonly Message[], last: Message | null): number {
  if (!last) return 0;
  const i = messages.lastIndexOf(last);
  return i < 0 ? 0 : i + 1;
}
