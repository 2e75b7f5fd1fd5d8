import type { AssistantMessage, UserMessage } from "../provider/types.ts";
import type { EntryBase, SessionStore } from "./types.ts";

export type TranscriptInfo = {
  cwd: () => string;
  version: string;
  entrypoint: string;
  /** The branch when known (git info arrives after the first lines may be written). */
  gitBranch?: () => string | null | undefined;
  uuid: () => string;
  now: () => Date;
  isSidechain?: boolean;
  agentId?: string;
  /** The current prompt's id: every user line of that prompt carries it as `promptId`. */
  promptId?: () => string | undefined;
  /** The permission mode, written on prompt lines (`permissionMode`; resume restores it). */
  permissionMode?: () => string | undefined;
  /** The effort level of assistant lines' requests, when the model takes one. */
  effort?: () => string | undefined;
};

/**
 * Claude Code 2.1.332's key order for user and assistant lines (roundtrip-transcript-shape.txt): the chain and
 * the line's own keys first, the session's common keys last. Keys it writes whose meaning yoke cannot know
 * (requestRef, madeBy, turnOrigin …) are left out rather than invented.
 */
const TAIL_KEYS = ["userType", "entrypoint", "cwd", "sessionId", "version", "gitBranch", "agentId"] as const;
function inOrder(head: Record<string, unknown>, b: EntryBase): Record<string, unknown> {
  const out: Record<string, unknown> = { ...head };
  for (const k of TAIL_KEYS) if (b[k] !== undefined) out[k] = b[k];
  return out;
}

/**
 * Writes conversation lines in Claude Code's shape (contracts §5.2), keeping the parentUuid chain.
 * Never throws (the store swallows and reports write errors).
 */
export type Transcript = {
  readonly store: SessionStore;
  lastUuid(): string | null;
  /** Continue the chain from an earlier entry (resume). */
  setLastUuid(uuid: string | null): void;
  user(message: UserMessage, extra?: Record<string, unknown>): string;
  /** One line per content block, sharing message.id, as Claude Code 2.1 writes them. Returns the uuids. */
  assistant(message: AssistantMessage, extra?: Record<string, unknown>): string[];
  /** A `system` line: `extra` goes before its timestamp and uuid, `trailing` after them (Claude Code's key order). */
  system(subtype: string, extra?: Record<string, unknown>, trailing?: Record<string, unknown>): string;
  /**
   * An `attachment` line (context Claude Code 2.1.332 records beside the conversation, contracts §5.2): the
   * attachment object, and how the model was shown it (`rendered` texts, wrapped as reminders, and their role).
   * Part of the parentUuid chain. Returns its uuid.
   */
  attachment(attachment: Record<string, unknown> & { type: string }, shown?: { rendered: string | string[]; role: "system" | "user" }): string;
  meta(entry: Record<string, unknown> & { type: string }): void;
};

/** The reminder wrapper Claude Code puts around every rendered attachment text. */
export const asReminder = (text: string): string => `<system-reminder>\n${text}\n</system-reminder>`;

export function createTranscript(store: SessionStore, info: TranscriptInfo): Transcript {
  let last: string | null = null;
  const base = (): EntryBase => {
    const b: EntryBase = {
      parentUuid: last,
      isSidechain: info.isSidechain ?? false,
      uuid: info.uuid(),
      sessionId: store.sessionId,
      timestamp: info.now().toISOString(),
      cwd: info.cwd(),
      version: info.version,
      userType: "external",
      entrypoint: info.entrypoint,
    };
    const branch = info.gitBranch?.();
    if (branch) b.gitBranch = branch;
    if (info.agentId) b.agentId = info.agentId;
    return b;
  };
  return {
    store,
    lastUuid: () => last,
    setLastUuid: (u) => void (last = u),
    user(message, extra = {}) {
      const b = base();
      // A caller-chosen uuid (the Agent SDK host's own id for its prompt) names the line and continues the chain.
      if (typeof extra.uuid === "string" && extra.uuid) b.uuid = extra.uuid;
      const promptId = info.promptId?.();
      // A prompt line: not a tool result, not injected context.
      const isPrompt = extra.sourceToolAssistantUUID === undefined && extra.isMeta === undefined && extra.isCompactSummary === undefined;
      const mode = isPrompt ? info.permissionMode?.() : undefined;
      const head: Record<string, unknown> = { parentUuid: b.parentUuid, isSidechain: b.isSidechain };
      if (promptId) head.promptId = promptId;
      // A hook's feedback line carries its marks before uuid (observed in 2.1.332: isMeta, rowSource, hookText, hookTextLead).
      if (extra.hookText === true) Object.assign(head, { type: "user", message }, extra, { uuid: b.uuid, timestamp: b.timestamp });
      else Object.assign(head, { type: "user", message, uuid: b.uuid, timestamp: b.timestamp }, extra);
      if (mode) head.permissionMode = mode;
      store.append(inOrder(head, b) as never);
      last = b.uuid;
      return b.uuid;
    },
    assistant(message, extra = {}) {
      const blocks = message.content.length ? message.content : [{ type: "text" as const, text: "" }];
      const effort = info.effort?.();
      return blocks.map((block, i) => {
        const b = base();
        const head: Record<string, unknown> = {
          parentUuid: b.parentUuid,
          isSidechain: b.isSidechain,
          // stop_details: null as Claude Code writes it when the API sent none.
          message: { ...message, content: [block], stop_details: (message as { stop_details?: unknown }).stop_details ?? null },
          apiBlockIndex: i,
          ...extra,
          promptCacheRequested: true,
          type: "assistant",
          uuid: b.uuid,
          timestamp: b.timestamp,
          ...(effort ? { effort } : {}),
        };
        store.append(inOrder(head, b) as never);
        last = b.uuid;
        return b.uuid;
      });
    },
    system(subtype, extra = {}, trailing = {}) {
      const b = base();
      // Observed in 2.1.332 (stop_hook_summary, informational): chain, type, subtype, the line's own keys, timestamp, uuid, then the common keys.
      const head = { parentUuid: b.parentUuid, isSidechain: b.isSidechain, type: "system", subtype, ...extra, timestamp: b.timestamp, uuid: b.uuid, ...trailing };
      store.append(inOrder(head, b) as never);
      last = b.uuid;
      return b.uuid;
    },
    attachment(attachment, shown) {
      const b = base();
      // Observed in 2.1.332 (roundtrip-transcript-shape.txt): chain, attachment, type, uuid, timestamp, rendered, renderedRole, common keys.
      const head: Record<string, unknown> = { parentUuid: b.parentUuid, isSidechain: b.isSidechain, attachment, type: "attachment", uuid: b.uuid, timestamp: b.timestamp };
      if (shown) {
        head.rendered = (Array.isArray(shown.rendered) ? shown.rendered : [shown.rendered]).map((t) => ({ content: asReminder(t) }));
        head.renderedRole = shown.role;
      }
      store.append(inOrder(head, b) as never);
      last = b.uuid;
      return b.uuid;
    },
    meta(entry) {
      store.append(entry);
    },
  };
}
