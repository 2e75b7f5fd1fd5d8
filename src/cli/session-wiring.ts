import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import {
  conversationFromEntries,
  createCheckpoints,
  createSessionStore,
  findSession,
  forkSession,
  latestSession,
  loadTranscript,
  resumeSettings,
  transcriptPath,
  type Checkpoints,
  type Conversation,
  type MetaEntry,
} from "../session/index.ts";
import type { Message } from "../provider/types.ts";
import type { SessionStore } from "../session/types.ts";
import type { ParsedArgs } from "./args.ts";
import { UsageError } from "./args.ts";
import { writeErr } from "../util/output.ts";

export type SessionSetup = {
  sessionId: string;
  source: "startup" | "resume" | "fork";
  store: SessionStore & { close?(): void };
  messages: Message[];
  lastUuid: string | null;
  restored: { model?: string; permissionMode?: string };
  checkpoints: Checkpoints | null;
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * `--resume [id]`, `--continue`, `--fork-session`, `--session-id`, `--no-session-persistence` (contracts §5.3).
 * Throws UsageError naming the flag for an unknown or ambiguous session.
 */
export function setupSession(args: ParsedArgs, cwd: string, env: Record<string, string>, opts: { redact?: boolean } = {}): SessionSetup {
  const flag = (k: string) => args.flags[k];
  const persist = !flag("no-session-persistence");
  const askedId = typeof flag("session-id") === "string" ? (flag("session-id") as string) : undefined;
  if (askedId !== undefined && !UUID.test(askedId)) throw new UsageError(`error: --session-id must be a UUID (got '${askedId}')`);
  const fork = !!flag("fork-session");

  let fromPath: string | undefined;
  const resume = flag("resume");
  if (resume !== undefined || flag("continue")) {
    if (typeof resume === "string") {
      const found = findSession(resume, cwd, env);
      if (!found.ok) throw new UsageError(`--resume: ${found.error}`);
      fromPath = found.path;
    } else {
      const latest = latestSession(cwd, env);
      if (!latest) throw new UsageError(`${flag("continue") ? "--continue" : "--resume"}: no earlier session in ${cwd}`);
      fromPath = latest.path;
    }
    if (askedId !== undefined && !fork) throw new UsageError("error: --session-id can be used with --resume or --continue only together with --fork-session");
  } else if (fork) throw new UsageError("error: --fork-session needs --resume or --continue");

  let sessionId = askedId ?? randomUUID();
  // A new id (fresh start or fork target) must not take over another session's file.
  if (persist && (!fromPath || fork) && existsSync(transcriptPath(cwd, sessionId, env))) {
    throw new UsageError(`error: session id ${sessionId} is already in use (use --resume ${sessionId})`);
  }
  let source: SessionSetup["source"] = "startup";
  let path: string | undefined;
  let conv: Conversation | null = null;
  let meta: MetaEntry[] = [];
  if (fromPath) {
    const loaded = loadTranscript(fromPath);
    for (const w of loaded.warnings) writeErr(`yoke: ${w}\n`);
    const at = typeof flag("resume-session-at") === "string" ? (flag("resume-session-at") as string) : undefined;
    conv = conversationFromEntries(loaded.entries, { meta: loaded.meta, ...(at ? { leafUuid: at } : {}) });
    if (at && conv.lastUuid !== at) throw new UsageError(`--resume-session-at: no message ${at} in ${fromPath}`);
    if (!fork) {
      source = "resume";
      sessionId = loaded.entries.find((e) => typeof e.sessionId === "string")?.sessionId ?? sessionId;
      path = fromPath;
      meta = loaded.meta;
    } else {
      source = "fork";
      if (persist) {
        // The copy gets fresh uuids, so the chain is read back from it; it holds no checkpoints yet.
        path = forkSession(fromPath, sessionId, cwd, env, at ? { leafUuid: at } : {});
        conv = conversationFromEntries(loadTranscript(path).entries);
      }
    }
  }

  const store = createSessionStore({ cwd, sessionId, env, persist, redact: opts.redact, ...(path && persist ? { path } : {}) });
  const checkpoints = persist ? createCheckpoints({ sessionId, cwd, env, store, meta }) : null;
  return {
    sessionId,
    source,
    store,
    messages: conv?.messages ?? [],
    lastUuid: conv?.lastUuid ?? null,
    restored: conv ? resumeSettings(conv.chain) : {},
    checkpoints,
  };
}
