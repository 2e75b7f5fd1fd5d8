import { join } from "node:path";
import type { AssistantEntry, EntryBase, SessionEntry, UserEntry } from "../../src/session/types.ts";
import type { ContentBlock } from "../../src/provider/types.ts";
import { emptyUsage } from "../../src/provider/types.ts";
import { tempDir as sharedTempDir } from "../helpers/tmp.ts";

export const tempDir = (prefix = "yoke-sessions-"): string => sharedTempDir(prefix);

/** An env whose HOME / YOKE_CONFIG_DIR / CLAUDE_CONFIG_DIR all point into a fresh temp dir. */
export function tempEnv(): { env: Record<string, string | undefined>; root: string } {
  const root = tempDir();
  return { root, env: { ...process.env, HOME: root, YOKE_CONFIG_DIR: join(root, ".yoke"), CLAUDE_CONFIG_DIR: join(root, ".claude") } };
}

let n = 0;
export const base = (uuid: string, parentUuid: string | null, sessionId = "s1"): EntryBase => ({
  parentUuid,
  isSidechain: false,
  userType: "external",
  entrypoint: "cli",
  cwd: "/p",
  sessionId,
  version: "0.0.0",
  uuid,
  timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, n++)).toISOString(),
});

export const user = (uuid: string, parent: string | null, content: string | ContentBlock[], extra: Partial<UserEntry> = {}): UserEntry => ({
  ...base(uuid, parent),
  type: "user",
  message: { role: "user", content },
  ...extra,
});

export const assistant = (uuid: string, parent: string | null, msgId: string, content: ContentBlock[]): AssistantEntry => ({
  ...base(uuid, parent),
  type: "assistant",
  message: { id: msgId, type: "message", role: "assistant", model: "m", content, stop_reason: null, stop_sequence: null, usage: emptyUsage() },
});

export const jsonl = (entries: Array<SessionEntry | Record<string, unknown>>): string => entries.map((e) => JSON.stringify(e)).join("\n") + "\n";
