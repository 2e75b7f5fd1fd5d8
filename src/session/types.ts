import type { AssistantMessage, UserMessage } from "../provider/types.ts";

/** Fields every transcript line carries (contracts §5.2). */
export type EntryBase = {
  uuid: string;
  parentUuid: string | null;
  isSidechain: boolean;
  sessionId: string;
  timestamp: string;
  cwd: string;
  version: string;
  userType: "external";
  entrypoint: string;
  gitBranch?: string;
  agentId?: string;
};

export type UserEntry = EntryBase & {
  type: "user";
  message: UserMessage;
  promptId?: string;
  permissionMode?: string;
  toolUseResult?: unknown;
  sourceToolAssistantUUID?: string;
  isMeta?: boolean;
  isCompactSummary?: boolean;
};

export type AssistantEntry = EntryBase & { type: "assistant"; message: AssistantMessage; requestId?: string };

export type SystemEntry = EntryBase & {
  type: "system";
  subtype: string;
  content?: string;
  level?: string;
  compactMetadata?: { trigger: "manual" | "auto"; preTokens: number };
  [k: string]: unknown;
};

/** Lines that are not part of the conversation chain (snapshots, titles, todos …). */
export type MetaEntry = { type: string; [k: string]: unknown };

export type SessionEntry = UserEntry | AssistantEntry | SystemEntry;

/** Append-only transcript. `append` writes one line with one write call and never throws (errors are reported once to stderr). */
export interface SessionStore {
  readonly sessionId: string;
  /** Absolute path of the JSONL file ('' when persistence is off). */
  readonly path: string;
  append(entry: SessionEntry | MetaEntry): void;
}

export const nullStore = (sessionId: string): SessionStore => ({ sessionId, path: "", append() {} });
