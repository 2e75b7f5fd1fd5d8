import type { ContentBlock, Message } from "../provider/types.ts";
import { blocksOf as blocks, isToolResultMsg, joinMessages, keepFromIndex } from "./compact-prompt.ts";
import type { EntryBase, SystemEntry, UserEntry } from "./types.ts";

/** Opening of every local summary; also how a previous summary is recognised when compacting again. */
export const SUMMARY_PREAMBLE =
  "Earlier turns of this session were condensed to save context. What follows is a digest of them, made locally without a model.";
const RESUME_NOTE =
  "Carry on with the task in progress from where it stopped; do not recap or ask the user to repeat themselves. If a detail above is too thin, re-read the file or re-run the command.";
const KEPT_NOTE = "The most recent messages follow unchanged.";

/** Tools whose old outputs may be cleared (internals §6.2). */
export const COMPACTABLE_TOOLS = ["Read", "Bash", "PowerShell", "Grep", "Glob", "WebSearch", "WebFetch", "Edit", "Write"];
export const CLEARED_TOOL_OUTPUT = "[Older tool output removed to save context. Run the tool again if you need it.]";

/**
 * Step one of compaction (internals §6.2): every tool_result of a compactable tool except the
 * last `keepRecent` (at least 1) gets its content replaced by a short placeholder. Pure: returns
 * new arrays, never mutates, never throws.
 */
export function clearOldToolOutputs(
  messages: Message[],
  opts: { keepRecent: number; tools?: string[]; placeholder?: string },
): { messages: Message[]; cleared: number } {
  const tools = new Set(opts.tools ?? COMPACTABLE_TOOLS);
  const names = new Map<string, string>();
  for (const m of messages) if (m.role === "assistant") for (const b of m.content) if (b.type === "tool_use") names.set(b.id, b.name);
  const positions: Array<[number, number]> = [];
  messages.forEach((m, i) => {
    if (m.role !== "user" || typeof m.content === "string") return;
    m.content.forEach((b, j) => {
      if (b.type === "tool_result" && tools.has(names.get(b.tool_use_id) ?? "")) positions.push([i, j]);
    });
  });
  const clearCount = Math.max(0, positions.length - Math.max(1, opts.keepRecent));
  const placeholder = opts.placeholder ?? CLEARED_TOOL_OUTPUT;
  const out = messages.slice();
  let cleared = 0;
  for (const [i, j] of positions.slice(0, clearCount)) {
    const m = out[i]!;
    const content = (m.content as ContentBlock[]).slice();
    const b = content[j]!;
    if (b.type !== "tool_result" || b.content === placeholder) continue;
    content[j] = { ...b, content: placeholder };
    out[i] = { ...m, content } as Message;
    cleared++;
  }
  return { messages: out, cleared };
}

const cut = (s: string, n: number): string => {
  const t = s.replace(/\s+/g, " ").trim();
  return t.length > n ? `${t.slice(0, n)}…` : t;
};

const blockText = (b: ContentBlock): string => {
  switch (b.type) {
    case "text":
      return b.text;
    case "thinking":
      return "";
    case "tool_use":
      return `tool ${b.name} ${JSON.stringify(b.input)}`;
    case "tool_result":
      return `result${b.is_error ? " (error)" : ""}: ${typeof b.content === "string" ? b.content : b.content.map((x) => (x.type === "text" ? x.text : "[image]")).join(" ")}`;
    case "image":
      return "[image]";
  }
};

const isSummary = (m: Message | undefined): boolean =>
  m?.role === "user" && blocks(m).some((b) => b.type === "text" && b.text.startsWith(SUMMARY_PREAMBLE));

/** Rough token estimate (internals §6.5): bytes/4 + 1 per block. */
export function estimateTokens(messages: Message[]): number {
  let n = 0;
  for (const m of messages) for (const b of blocks(m)) n += Math.floor(Buffer.byteLength(blockText(b)) / 4) + 1;
  return n;
}

const FILE_RE = /[\w.\-~]*\/[\w.\-/]+\.(?:ts|tsx|js|jsx|mjs|cjs|json|md|rs|py|go|java|rb|c|h|cpp|hpp|cs|swift|kt|sh|yaml|yml|toml|css|html|sql)\b/g;
const PENDING_RE = /\b(todo|next|pending|follow up|follow-up|remaining|still need)\b/i;

function highlights(removed: Message[]): { lines: string[]; timeline: string[] } {
  let users = 0;
  let assistants = 0;
  let toolResults = 0;
  const toolNames = new Set<string>();
  const userTexts: string[] = [];
  const allTexts: string[] = [];
  const files = new Set<string>();
  const timeline: string[] = [];
  for (const m of removed) {
    const bs = blocks(m);
    if (m.role === "assistant") assistants++;
    else if (bs.some((b) => b.type === "tool_result")) toolResults++;
    else users++;
    for (const b of bs) {
      if (b.type === "tool_use") toolNames.add(b.name);
      const t = blockText(b);
      for (const f of t.match(FILE_RE) ?? []) if (files.size < 8) files.add(f);
      if (b.type === "text" && b.text.trim()) {
        allTexts.push(b.text);
        if (m.role === "user") userTexts.push(b.text);
      }
    }
    const role = m.role === "assistant" ? "assistant" : isToolResultMsg(m) ? "tool" : "user";
    const parts = bs.map(blockText).filter((s) => s.trim()).map((s) => cut(s, 160));
    if (parts.length) timeline.push(`  - ${role}: ${parts.join(" | ")}`);
  }
  const lines = [`- Scope: ${removed.length} earlier messages condensed (user ${users}, assistant ${assistants}, tool results ${toolResults}).`];
  if (toolNames.size) lines.push(`- Tools used: ${[...toolNames].sort().join(", ")}.`);
  if (userTexts.length) {
    lines.push("- Latest user requests:");
    for (const t of userTexts.slice(-3)) lines.push(`  - ${cut(t, 160)}`);
  }
  const pending = allTexts.filter((t) => PENDING_RE.test(t)).slice(-3);
  if (pending.length) {
    lines.push("- Open items mentioned:");
    for (const t of pending) lines.push(`  - ${cut(t, 160)}`);
  }
  if (files.size) lines.push(`- Files referenced: ${[...files].join(", ")}.`);
  const lastText = allTexts[allTexts.length - 1];
  if (lastText) lines.push(`- Last work in progress: ${cut(lastText, 200)}`);
  return { lines, timeline };
}

/** The body of an earlier summary, without preamble and trailing notes, for re-compaction. */
function previousBody(m: Message): string[] {
  const text = blocks(m)
    .filter((b) => b.type === "text")
    .map((b) => (b as { text: string }).text)
    .join("\n");
  const inner = /<summary>\n?([\s\S]*?)\n?<\/summary>/.exec(text)?.[1] ?? "";
  return inner
    .split("\n")
    .filter((l) => l.trim() && !/^(Conversation digest:|- Timeline:|  - (user|assistant|tool):)/.test(l))
    .map((l) => l.trim())
    .filter((l) => l !== "- Newly condensed:")
    .map((l) => (l.startsWith("- ") ? l : `- ${l}`));
}

/** A kept user message merged into an earlier summary becomes its own message again, so it is not lost. */
function splitLeadingSummary(messages: Message[]): Message[] {
  const first = messages[0];
  if (!first || !isSummary(first) || typeof first.content === "string") return messages;
  const idx = first.content.findIndex((b) => b.type === "text" && b.text.startsWith(SUMMARY_PREAMBLE));
  const rest = first.content.filter((_, i) => i !== idx);
  if (rest.length === 0) return messages;
  return [{ role: "user", content: [first.content[idx]!] }, { role: "user", content: rest }, ...messages.slice(1)];
}

export type LocalCompaction = {
  /** The full text of the summary user message (preamble, `<summary>…</summary>`, notes). */
  summary: string;
  /** Messages kept verbatim (never starting with an orphaned tool_result). */
  kept: Message[];
  /** How many messages were folded into the summary (0 = nothing to do; summary is then ''). */
  removedCount: number;
  /** `[summary as user message, ...kept]` with roles merged so the API accepts it. */
  messages: Message[];
};

/**
 * Heuristic compaction with no model call (internals §6.5, claw-code's fallback), so a session
 * that cannot get a model summary still continues. Keeps the last `keepRecent` messages, moving
 * the cut back so a tool_use/tool_result pair is never split, folds the rest (and any earlier
 * local summary) into one digest. Pure; never throws.
 */
export function localCompactSummary(input: Message[], opts: { keepRecent: number } = { keepRecent: 4 }): LocalCompaction {
  const messages = splitLeadingSummary(input);
  const hasPrev = isSummary(messages[0]);
  const first = hasPrev ? 1 : 0;
  const keepFrom = first + keepFromIndex(messages.slice(first), opts.keepRecent);
  const removed = messages.slice(first, keepFrom);
  if (removed.length === 0) return { summary: "", kept: messages.slice(), removedCount: 0, messages: messages.slice() };
  const kept = messages.slice(keepFrom);
  const { lines, timeline } = highlights(removed);
  const body: string[] = ["Conversation digest:"];
  if (hasPrev) {
    const prev = previousBody(messages[0]!);
    body.push(...prev);
    body.push("- Newly condensed:");
    body.push(...lines.map((l) => `  ${l}`));
  } else body.push(...lines);
  body.push("- Timeline:", ...timeline);
  const summary = [
    SUMMARY_PREAMBLE,
    "",
    `<summary>\n${body.join("\n")}\n</summary>`,
    "",
    ...(kept.length ? [KEPT_NOTE] : []),
    RESUME_NOTE,
  ].join("\n");
  return { summary, kept, removedCount: removed.length, messages: joinMessages({ role: "user", content: summary }, kept) };
}

type BoundaryMeta = { trigger: "manual" | "auto"; preTokens: number; logicalParentUuid: string | null };

/** The fields of a `compact_boundary` system line besides the common ones (contracts §4.4/§5.2). Never throws. */
export const compactBoundaryFields = (meta: BoundaryMeta) => ({
  logicalParentUuid: meta.logicalParentUuid,
  content: "Conversation compacted",
  level: "info",
  isMeta: false,
  compactMetadata: { trigger: meta.trigger, preTokens: meta.preTokens },
});

/**
 * The `system` line marking a compaction. Its parentUuid is null so a resume starts here;
 * `logicalParentUuid` keeps the link for readers. Never throws.
 */
export function compactBoundaryEntry(base: EntryBase, meta: BoundaryMeta): SystemEntry {
  return { ...base, parentUuid: null, type: "system", subtype: "compact_boundary", ...compactBoundaryFields(meta) };
}

/** The user line carrying the summary (`isCompactSummary: true`), child of the boundary. Never throws. */
export function summaryUserEntry(base: EntryBase, summary: string): UserEntry {
  return { ...base, type: "user", message: { role: "user", content: summary }, isCompactSummary: true };
}
