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
};

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
  system(subtype: string, extra?: Record<string, unknown>): string;
  meta(entry: Record<string, unknown> & { type: string }): void;
};

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
      store.append({ ...b, type: "user", message, ...extra } as never);
      last = b.uuid;
      return b.uuid;
    },
    assistant(message, extra = {}) {
      const blocks = message.content.length ? message.content : [{ type: "text" as const, text: "" }];
      return blocks.map((block) => {
        const b = base();
        store.append({ ...b, type: "assistant", message: { ...message, content: [block] }, ...extra });
        last = b.uuid;
        return b.uuid;
      });
    },
    system(subtype, extra = {}) {
      const b = base();
      store.append({ ...b, type: "system", subtype, ...extra });
      last = b.uuid;
      return b.uuid;
    },
    meta(entry) {
      store.append(entry);
    },
  };
}
