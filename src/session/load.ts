import { closeSync, openSync, readSync } from "node:fs";
import type { ContentBlock, Message, TextBlock, ToolResultBlock } from "../provider/types.ts";
import type { MetaEntry, SessionEntry } from "./types.ts";
import { asReminder } from "./transcript.ts";

export type LoadedTranscript = {
  /** Conversation lines (user / assistant / system) in file order. */
  entries: SessionEntry[];
  /** Every other line (snapshots, titles, attachments, last-prompt …) in file order. */
  meta: MetaEntry[];
  /** Human-readable notes naming the file and line of every skipped line. */
  warnings: string[];
};

const CONVERSATION_TYPES = new Set(["user", "assistant", "system"]);
const CHUNK_BYTES = 1 << 20;

/** Why a user/assistant line cannot be used (later code relies on these shapes), or null. */
function malformed(e: Record<string, unknown>): string | null {
  if (e.type === "system") return null;
  const m = e.message as { content?: unknown } | null | undefined;
  if (!m || typeof m !== "object") return `${String(e.type)} line has no "message"`;
  const c = m.content;
  if (typeof c === "string") return null;
  if (!Array.isArray(c) || c.some((b) => !b || typeof b !== "object" || typeof (b as { type?: unknown }).type !== "string")) {
    return `${String(e.type)} line has malformed "message.content"`;
  }
  return null;
}

/**
 * Reads a JSONL transcript. Never throws and never rewrites the file: a missing or unreadable
 * file gives empty results plus a warning; a torn last line (a write cut by a kill) is ignored
 * with a warning; a corrupt line elsewhere is skipped and reported with its line number.
 */
export function loadTranscript(path: string): LoadedTranscript {
  const entries: SessionEntry[] = [];
  const meta: MetaEntry[] = [];
  const warnings: string[] = [];
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (err) {
    warnings.push(`${path}: cannot read transcript (${err instanceof Error ? err.message : String(err)})`);
    return { entries, meta, warnings };
  }
  let lineNo = 0;
  const handle = (data: Buffer, start: number, end: number, torn: boolean): void => {
    lineNo++;
    if (end <= start) return;
    let value: unknown;
    try {
      value = JSON.parse(data.toString("utf8", start, end));
    } catch {
      warnings.push(
        torn
          ? `${path}:${lineNo}: incomplete last line ignored (the writer was probably killed mid-write)`
          : `${path}:${lineNo}: line is not valid JSON, skipped`,
      );
      return;
    }
    if (value === null || typeof value !== "object" || Array.isArray(value) || typeof (value as MetaEntry).type !== "string") {
      warnings.push(`${path}:${lineNo}: line is not a transcript entry (no "type"), skipped`);
    } else if (CONVERSATION_TYPES.has((value as MetaEntry).type) && typeof (value as { uuid?: unknown }).uuid === "string") {
      const bad = malformed(value as Record<string, unknown>);
      if (bad) warnings.push(`${path}:${lineNo}: ${bad}, skipped`);
      else entries.push(value as SessionEntry);
    } else {
      meta.push(value as MetaEntry);
    }
  };
  // Read in fixed chunks and decode one line at a time: no whole-file buffer or string, no array of lines.
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  let carry: Buffer | null = null;
  try {
    for (;;) {
      const n = readSync(fd, chunk, 0, CHUNK_BYTES, null);
      if (n === 0) break;
      const data: Buffer = carry ? Buffer.concat([carry, chunk.subarray(0, n)]) : chunk.subarray(0, n);
      let start = 0;
      for (;;) {
        const nl = data.indexOf(10, start);
        if (nl === -1) break;
        handle(data, start, nl, false);
        start = nl + 1;
      }
      // the chunk buffer is reused, so an unfinished line is copied out
      carry = start < data.length ? Buffer.from(data.subarray(start)) : null;
    }
  } catch (err) {
    warnings.push(`${path}:${lineNo + 1}: read failed (${err instanceof Error ? err.message : String(err)}); later lines ignored`);
    carry = null;
  } finally {
    closeSync(fd);
  }
  if (carry) handle(carry, 0, carry.length, true);
  return { entries, meta, warnings };
}

export type Conversation = {
  /** API-ready messages: roles alternate, split assistant lines re-joined, dangling tool_use answered. */
  messages: Message[];
  /** The entries on the path root → leaf (starting at the last compact boundary, if any). */
  chain: SessionEntry[];
  /** uuid of the leaf entry; the parentUuid for the next appended line. */
  lastUuid: string | null;
};

export type ConversationOptions = {
  /** Resume at this entry instead of the last one (`--resume-session-at`, rewind). */
  leafUuid?: string;
  /** Meta lines from `loadTranscript`; lines with a uuid (attachments, progress) bridge the parent chain. */
  meta?: MetaEntry[];
};

/** Placeholder content for a tool_use whose result was never recorded (the process died mid-tool). */
export const INTERRUPTED_TOOL_RESULT =
  "The tool run was interrupted before it finished and its result was lost. Check the current state before relying on its effects, and run it again if needed.";

const isConversation = (e: SessionEntry): boolean => e.type === "user" || e.type === "assistant";

/**
 * Rebuilds the model conversation by following parentUuid from the leaf back to the root (or
 * to the last compact boundary). Never throws: an unknown leafUuid gives an empty conversation,
 * a broken link ends the chain there.
 */
export function conversationFromEntries(entries: SessionEntry[], opts: ConversationOptions = {}): Conversation {
  const byUuid = new Map<string, SessionEntry>();
  for (const e of entries) byUuid.set(e.uuid, e);
  const bridges = new Map<string, string | null>();
  // Attachment lines that were shown to the model (`rendered`): the conversation gets them back on resume.
  const shown = new Map<string, ShownAttachment>();
  for (const m of opts.meta ?? []) {
    if (typeof m.uuid === "string" && (typeof m.parentUuid === "string" || m.parentUuid === null)) {
      bridges.set(m.uuid, m.parentUuid as string | null);
      if (m.type === "attachment" && RESENT.has(String((m.attachment as { type?: unknown } | undefined)?.type)) && Array.isArray(m.rendered) && (m.renderedRole === "system" || m.renderedRole === "user"))
        shown.set(m.uuid, m as ShownAttachment);
    }
  }

  let leaf: SessionEntry | undefined;
  if (opts.leafUuid !== undefined) {
    leaf = byUuid.get(opts.leafUuid);
    // A bridge line as the leaf: start from its nearest conversation ancestor.
    let p = leaf ? undefined : bridges.get(opts.leafUuid);
    const seen = new Set<string>();
    while (!leaf && typeof p === "string" && !seen.has(p)) {
      seen.add(p);
      leaf = byUuid.get(p);
      if (!leaf) p = bridges.get(p);
    }
  } else {
    for (let i = entries.length - 1; i >= 0; i--) {
      const e = entries[i]!;
      // A boundary is never the leaf: one with no summary after it is a compaction that did not finish.
      if (!e.isSidechain && isConversation(e)) {
        leaf = e;
        break;
      }
    }
  }
  if (!leaf) return { messages: [], chain: [], lastUuid: null };

  const reversed: Array<SessionEntry | ShownAttachment> = [];
  const seen = new Set<string>();
  let cur: SessionEntry | undefined = leaf;
  while (cur && !seen.has(cur.uuid)) {
    seen.add(cur.uuid);
    reversed.push(cur);
    if (cur.type === "system" && cur.subtype === "compact_boundary") break;
    let parent = cur.parentUuid;
    cur = undefined;
    while (typeof parent === "string" && !seen.has(parent)) {
      cur = byUuid.get(parent);
      if (cur) break;
      seen.add(parent);
      const att = shown.get(parent);
      if (att) reversed.push(att);
      const next = bridges.get(parent);
      parent = next === undefined ? null : next;
    }
  }
  const withAttachments = reversed.reverse();
  const chain = withAttachments.filter((e): e is SessionEntry => e.type !== "attachment");
  return { messages: toApiMessages(withAttachments), chain, lastUuid: leaf.uuid };
}

const blocksOf = (content: string | ContentBlock[]): ContentBlock[] =>
  typeof content === "string" ? (content === "" ? [] : [{ type: "text", text: content }]) : content;

const needsReorder = (bs: ContentBlock[]): boolean => {
  let other = false;
  for (const b of bs) {
    if (b.type !== "tool_result") other = true;
    else if (other) return true;
  }
  return false;
};

const resultsFirst = (bs: ContentBlock[]): ContentBlock[] => [
  ...bs.filter((b) => b.type === "tool_result"),
  ...bs.filter((b) => b.type !== "tool_result"),
];

/**
 * The attachment lines a resume sends again: the hook output yoke itself sent live. Others that Claude Code writes
 * (environment, model, skill listing, instructions …) stand for context yoke builds afresh each session.
 */
const RESENT = new Set(["hook_success", "hook_additional_context", "hook_blocking_error"]);

/** An attachment line as 2.1.332 writes it, with what the model was shown (contracts §5.2). */
export type ShownAttachment = MetaEntry & { type: "attachment"; uuid: string; rendered: Array<{ content?: unknown }>; renderedRole: "system" | "user" };

/** A hook feedback line as the model got it: its lead (the preamble about hook output) and its text in one reminder. */
const hookTextReminder = (content: string, lead: unknown): string => asReminder(typeof lead === "string" && lead ? `${lead}\n${content}` : content);

const REMINDER_OPEN = "<system-reminder>\n";
const REMINDER_CLOSE = "\n</system-reminder>";
/** A rendered attachment text as a system turn carries it: without the reminder wrapper (observed in 2.1.332). */
const unwrapReminder = (s: string): string => (s.startsWith(REMINDER_OPEN) && s.endsWith(REMINDER_CLOSE) ? s.slice(REMINDER_OPEN.length, -REMINDER_CLOSE.length) : s);

/**
 * Turns chain entries into Messages-API messages (merging, ordering tool results first, closing dangling tool_use).
 * As the live loop sends them (observed in 2.1.332): a hook's feedback line is its lead and text in one reminder;
 * attachment lines rendered as system go, joined by a blank line, into one system turn after the user content of
 * their turn, those rendered as user into that user turn.
 */
export function toApiMessages(chain: Array<SessionEntry | ShownAttachment>): Message[] {
  const out: Message[] = [];
  let system: string[] = [];
  const flushSystem = () => {
    if (system.length) out.push({ role: "system", content: system.join("\n\n") });
    system = [];
  };
  let lastHookText: TextBlock | null = null;
  for (const e of chain) {
    if (e.type === "system") continue;
    const last = out[out.length - 1];
    if (e.type === "attachment") {
      const texts = e.rendered.map((r) => (typeof r.content === "string" ? r.content : "")).filter(Boolean);
      if (e.renderedRole === "system") system.push(...texts.map(unwrapReminder));
      else if (texts.length) {
        const blocks = texts.map((text): TextBlock => ({ type: "text", text }));
        if (last?.role === "user") last.content = [...blocksOf(last.content), ...blocks];
        else out.push({ role: "user", content: blocks });
        lastHookText = null;
      }
      continue;
    }
    if (e.type === "assistant") {
      flushSystem();
      const blocks = blocksOf(e.message.content);
      if (last?.role === "assistant") {
        // Same message.id = one response split per block; a different id is still merged (API needs alternation).
        (last.content as ContentBlock[]).push(...blocks);
      } else {
        out.push({ role: "assistant", content: [...blocks] });
      }
      continue;
    }
    const hook = (e as { hookText?: unknown }).hookText === true && typeof e.message.content === "string";
    const content = hook ? hookTextReminder(e.message.content as string, (e as { hookTextLead?: unknown }).hookTextLead) : e.message.content;
    const blocks = blocksOf(content);
    if (last?.role === "user") {
      // Consecutive hook feedback lines: each text but the last ends in a newline (observed in 2.1.332).
      const merged = blocksOf(last.content);
      if (hook && lastHookText && merged.at(-1)?.type === "text") {
        const prev = merged.at(-1) as TextBlock;
        merged[merged.length - 1] = { ...prev, text: `${prev.text}\n` };
      }
      last.content = [...merged, ...blocks];
    } else {
      out.push({ role: "user", content: typeof content === "string" ? content : [...blocks] });
    }
    lastHookText = hook ? (blocks.at(-1) as TextBlock) : null;
  }
  flushSystem();
  // The API wants tool_result blocks first in a user message and every tool_use answered in the next one.
  for (let i = 0; i < out.length; i++) {
    const m = out[i]!;
    if (m.role === "system") continue;
    if (m.role === "user") {
      if (typeof m.content !== "string" && needsReorder(m.content)) m.content = resultsFirst(m.content);
      continue;
    }
    let missing: ToolResultBlock[] | null = null;
    const next = out[i + 1];
    for (const b of m.content) {
      if (b.type !== "tool_use") continue;
      let answered = false;
      if (next?.role === "user" && typeof next.content !== "string") {
        for (const r of next.content) if (r.type === "tool_result" && r.tool_use_id === b.id) answered = true;
      }
      if (!answered) (missing ??= []).push({ type: "tool_result", tool_use_id: b.id, content: INTERRUPTED_TOOL_RESULT, is_error: true });
    }
    if (!missing) continue;
    if (next?.role === "user") next.content = resultsFirst([...missing, ...blocksOf(next.content)]);
    else out.splice(i + 1, 0, { role: "user", content: missing });
  }
  return out;
}

/**
 * What a resume restores besides history (contracts §5.3): the last model used and the last
 * permission mode, except `plan` and `bypassPermissions`, which are never carried over. Never throws.
 */
export function resumeSettings(chain: SessionEntry[]): { model?: string; permissionMode?: string } {
  const out: { model?: string; permissionMode?: string } = {};
  for (let i = chain.length - 1; i >= 0 && (out.model === undefined || out.permissionMode === undefined); i--) {
    const e = chain[i]!;
    if (e.type === "assistant" && out.model === undefined && typeof e.message.model === "string" && e.message.model) out.model = e.message.model;
    if (e.type === "user" && out.permissionMode === undefined && typeof e.permissionMode === "string") {
      // the newest recorded mode decides; a non-restorable one means "start from the default"
      out.permissionMode = e.permissionMode;
    }
  }
  if (out.permissionMode === "plan" || out.permissionMode === "bypassPermissions") delete out.permissionMode;
  return out;
}
