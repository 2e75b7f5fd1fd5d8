import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { randomUUID } from "../util/random.ts";
import { conversationFromEntries, loadTranscript } from "./load.ts";
import { transcriptPath } from "./store.ts";
import type { SessionEntry } from "./types.ts";

type Env = Record<string, string | undefined>;

export type ForkOptions = {
  /** Fork at this entry instead of the latest one (`--resume-session-at` with `--fork-session`). */
  leafUuid?: string;
};

/**
 * Copies the active conversation of `srcPath` into a new session file (contracts §5.3
 * `--fork-session`): fresh uuids with parent links remapped, `sessionId` set to the new id, the
 * origin id kept as `requestSessionId`. The source is never modified. Returns the new path.
 * Throws only when the new file cannot be written (fs error naming the path); an unreadable
 * source gives an empty fork (call loadTranscript first to see its warnings).
 */
export function forkSession(srcPath: string, newSessionId: string, cwd: string, env: Env = process.env, opts: ForkOptions = {}): string {
  const loaded = loadTranscript(srcPath);
  const convOpts: { meta: typeof loaded.meta; leafUuid?: string } = { meta: loaded.meta };
  if (opts.leafUuid !== undefined) convOpts.leafUuid = opts.leafUuid;
  const { chain } = conversationFromEntries(loaded.entries, convOpts);
  const remap = new Map<string, string>();
  for (const e of chain) remap.set(e.uuid, randomUUID());
  const lines = chain.map((e): string => {
    const copy: SessionEntry = {
      ...e,
      parentUuid: e.parentUuid === null ? null : (remap.get(e.parentUuid) ?? null),
      uuid: remap.get(e.uuid)!,
      sessionId: newSessionId,
    };
    (copy as Record<string, unknown>).requestSessionId = e.sessionId;
    if (copy.type === "user" && copy.sourceToolAssistantUUID) {
      const s = remap.get(copy.sourceToolAssistantUUID);
      if (s) copy.sourceToolAssistantUUID = s;
    }
    const lp = (copy as Record<string, unknown>).logicalParentUuid;
    if (typeof lp === "string" && remap.has(lp)) (copy as Record<string, unknown>).logicalParentUuid = remap.get(lp);
    return JSON.stringify(copy);
  });
  const dest = transcriptPath(cwd, newSessionId, env);
  mkdirSync(dirname(dest), { recursive: true });
  // Write then rename, so a reader never sees half a fork.
  const tmp = `${dest}.${process.pid}.tmp`;
  writeFileSync(tmp, lines.length ? `${lines.join("\n")}\n` : "", { mode: 0o600 });
  renameSync(tmp, dest);
  return dest;
}

export type RewindResult = { ok: true; leafUuid: string | null } | { ok: false; error: string };

/**
 * Where to resume so the conversation ends just before the user message `userUuid`: the returned
 * leafUuid (null = empty conversation) goes to `conversationFromEntries({ leafUuid })` or becomes
 * the parentUuid of the next appended line. `entries` saves a second read when the caller has
 * already loaded `path`. The transcript is never rewritten. Never throws.
 */
export function rewindConversation(path: string, userUuid: string, entries: SessionEntry[] = loadTranscript(path).entries): RewindResult {
  const target = entries.find((e) => e.uuid === userUuid);
  if (!target) return { ok: false, error: `${path}: no entry with uuid ${userUuid}` };
  if (target.type !== "user") return { ok: false, error: `${path}: entry ${userUuid} is a ${target.type} line, not a user message` };
  return { ok: true, leafUuid: target.parentUuid };
}
