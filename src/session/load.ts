import { readFileSync } from "node:fs";
import type { ContentBlock, Message, ToolResultBlock } from "../provider/types.ts";
import type { MetaEntry, SessionEntry } from "./types.ts";

export type LoadedTranscript = {
  /** Conversation lines (user / assistant / system) in file order. */
  entries: SessionEntry[];
  /** Every other line (snapshots, titles, attachments, last-prompt …) in file order. */
  meta: MetaEntry[];
  /** Human-readable notes naming the file and line of every skipped line. */
  warnings: string[];
};

const CONVERSATION_TYPES = new Set(["user", "assistant", "system"]);

/**
 * Reads a JSONL transcript. Never throws and never rewrites the file: a missing or unreadable
 * file gives empty results plus a warning; a torn last line (a write cut by a kill) is ignored
 * with a warning; a corrupt line elsewhere is skipped and reported with its line number.
 */
export function loadTranscript(path: string): LoadedTranscript {
  const entries: SessionEntry[] = [];
  const meta: MetaEntry[] = [];
  const warnings: string[] = [];
  let buf: Buffer;
  try {
    buf = readFileSync(path);
  } catch (err) {
    warnings.push(`${path}: cannot read transcript (${err instanceof Error ? err.message : String(err)})`);
    return { entries, meta, warnings };
  }
  // Scan the bytes and decode one line at a time: no whole-file string, no array of lines.
  let start = 0;
  let lineNo = 0;
  const len = buf.length;
  while (start < len) {
    let end = buf.indexOf(10, start);
    const torn = end === -1;
    if (torn) end = len;
    lineNo++;
    if (end > start) {
      const text = buf.toString("utf8", start, end);
      let value: unknown;
      let ok = true;
      try {
        value = JSON.parse(text);
      } catch {
        ok = false;
      }
      if (!ok) {
        warnings.push(
          torn
            ? `${path}:${lineNo}: incomplete last line ignored (the writer was probably killed mid-write)`
            : `${path}:${lineNo}: line is not valid JSON, skipped`,
        );
      } else if (value === null || typeof value !== "object" || Array.isArray(value) || typeof (value as MetaEntry).type !== "string") {
        warnings.push(`${path}:${lineNo}: line is not a transcript entry (no "type"), skipped`);
      } else if (CONVERSATION_TYPES.has((value as MetaEntry).type) && typeof (value as { uuid?: unknown }).uuid === "string") {
        entries.push(value as SessionEntry);
      } else {
        meta.push(value as MetaEntry);
      }
    }
    start = end + 1;
  }
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
  for (const m of opts.meta ?? []) {
    if (typeof m.uuid === "string" && (typeof m.parentUuid === "string" || m.parentUuid === null)) {
      bridges.set(m.uuid, m.parentUuid as string | null);
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
      if (!e.isSidechain && (isConversation(e) || (e.type === "system" && e.subtype === "compact_boundary"))) {
        leaf = e;
        break;
      }
    }
  }
  if (!leaf) return { messages: [], chain: [], lastUuid: null };

  const reversed: SessionEntry[] = [];
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
      const next = bridges.get(parent);
      parent = next === undefined ? null : next;
    }
  }
  const chain = reversed.reverse();
  return { messages: toApiMessages(chain), chain, lastUuid: leaf.uuid };
}

const blocksOf = (content: string | ContentBlock[]): ContentBlock[] =>
  typeof content === "string" ? (content === "" ? [] : [{ type: "text", text: content }]) : content;

/** Turns chain entries into Messages-API messages (merging, ordering tool results first, closing dangling tool_use). */
export function toApiMessages(chain: SessionEntry[]): Message[] {
  const out: Message[] = [];
  for (const e of chain) {
    if (e.type === "system") continue;
    const last = out[out.length - 1];
    if (e.type === "assistant") {
      const blocks = blocksOf(e.message.content);
      if (last?.role === "assistant") {
        // Same message.id = one response split per block; a different id is still merged (API needs alternation).
        (last.content as ContentBlock[]).push(...blocks);
      } else {
        out.push({ role: "assistant", content: [...blocks] });
      }
      continue;
    }
    const blocks = blocksOf(e.message.content);
    if (last?.role === "user") {
      last.content = [...blocksOf(last.content), ...blocks];
    } else {
      out.push({ role: "user", content: typeof e.message.content === "string" ? e.message.content : [...blocks] });
    }
  }
  // The API wants tool_result blocks first in a user message and every tool_use answered in the next one.
  for (let i = 0; i < out.length; i++) {
    const m = out[i]!;
    if (m.role === "user" && typeof m.content !== "string") {
      const results = m.content.filter((b) => b.type === "tool_result");
      if (results.length > 0) m.content = [...results, ...m.content.filter((b) => b.type !== "tool_result")];
    }
    if (m.role !== "assistant") continue;
    const uses = m.content.filter((b) => b.type === "tool_use").map((b) => (b as { id: string }).id);
    if (uses.length === 0) continue;
    const next = out[i + 1];
    const answered = new Set<string>();
    if (next?.role === "user" && typeof next.content !== "string") {
      for (const b of next.content) if (b.type === "tool_result") answered.add(b.tool_use_id);
    }
    const missing: ToolResultBlock[] = uses
      .filter((id) => !answered.has(id))
      .map((id) => ({ type: "tool_result", tool_use_id: id, content: INTERRUPTED_TOOL_RESULT, is_error: true }));
    if (missing.length === 0) continue;
    if (next?.role === "user") {
      next.content = [...missing, ...blocksOf(next.content)];
      const nc = next.content;
      next.content = [...nc.filter((b) => b.type === "tool_result"), ...nc.filter((b) => b.type !== "tool_result")];
    } else {
      out.splice(i + 1, 0, { role: "user", content: missing });
    }
  }
  return out;
}
