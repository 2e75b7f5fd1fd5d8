import { randomUUID } from "../util/random.ts";
import { existsSync } from "node:fs";
import { basename } from "node:path";
import type { Conversation } from "../session/load.ts";
import type { Checkpoints } from "../session/checkpoints.ts";
import type { MetaEntry } from "../session/types.ts";
import type { Message } from "../provider/types.ts";
import type { SessionStore } from "../session/types.ts";
import { acquireSessionLock, SessionLockedError } from "../session/lock.ts";
import type { ParsedArgs } from "./args.ts";
import { UsageError } from "./args.ts";
import { createDiagnostics } from "../util/diagnostics.ts";

// The session's own modules (session-modules.ts), required when setupSession first runs: the run's prelude imports this
// module before its MCP servers are spawned and sets a fresh session up after the spawn (run-prelude.ts), so their load
// (~40 KB of the bundle) is not in the spawn's way (issue 21).
const sessionModules = () => require("./session-modules.ts") as typeof import("./session-modules.ts");

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
 * Whether setupSession may refuse these flags: a session to find or fork, an id or a title to check. Without any of
 * them the session is a fresh one under a new random id, which nothing refuses, so the run's prelude may set it up
 * after spawning the MCP servers (run-prelude.ts).
 */
export const sessionMayRefuse = (args: ParsedArgs): boolean =>
  args.flags.resume !== undefined || !!args.flags.continue || !!args.flags["fork-session"] || args.flags["session-id"] !== undefined || args.flags.name !== undefined;

/**
 * `--resume [id]`, `--continue`, `--fork-session`, `--session-id`, `--no-session-persistence` (contracts §5.3).
 * `opts.sessionId`: a fresh session's id, picked by the caller. Throws UsageError naming the flag for an unknown or
 * ambiguous session.
 */
export function setupSession(
  args: ParsedArgs,
  cwd: string,
  env: Record<string, string>,
  opts: { redact?: boolean; warn?: (m: string) => void; interactive?: boolean; sessionId?: string } = {},
): SessionSetup {
  const warn = opts.warn ?? ((m: string) => void createDiagnostics().warn(m));
  const flag = (k: string) => args.flags[k];
  const persist = !flag("no-session-persistence");
  const askedId = typeof flag("session-id") === "string" ? (flag("session-id") as string) : undefined;
  if (askedId !== undefined && !UUID.test(askedId)) throw new UsageError(`error: --session-id must be a UUID (got '${askedId}')`);
  const fork = !!flag("fork-session");

  let fromPath: string | undefined;
  const resume = flag("resume");
  if (resume !== undefined || flag("continue")) {
    if (typeof resume === "string") {
      fromPath = resumeTarget(resume, cwd, env);
    } else {
      // At the terminal `--continue` skips `-p` and SDK sessions (contracts §5.3); headless it takes any.
      const latest = sessionModules().latestSession(cwd, env, opts.interactive ? (r) => !r.entrypoint.startsWith("sdk-") : undefined);
      // Claude Code's `-c` with nothing to continue starts a new session; a bare `--resume` needs one to pick.
      if (!latest && !flag("continue")) throw new UsageError(`--resume: no earlier session in ${cwd}`);
      fromPath = latest?.path;
    }
    if (fromPath && askedId !== undefined && !fork) throw new UsageError("error: --session-id can be used with --resume or --continue only together with --fork-session");
  } else if (fork) throw new UsageError("error: --fork-session needs --resume or --continue");
  if (!fromPath && fork && flag("continue")) throw new UsageError(`--continue --fork-session: no earlier session in ${cwd} to fork`);

  let sessionId = askedId ?? opts.sessionId ?? randomUUID();
  // One run at a time appends to a transcript (issue 20.7): the file this run will write is locked first.
  const lockPath = fromPath && !fork ? fromPath : sessionModules().transcriptPath(cwd, sessionId, env);
  let lock: { release(): void } | null = null;
  try {
    lock = persist ? acquireSessionLock(lockPath, basename(lockPath, ".jsonl")) : null;
  } catch (e) {
    if (e instanceof SessionLockedError) throw new UsageError(`error: ${e.message}`);
    throw e;
  }
  try {
    return setupLocked();
  } catch (e) {
    lock?.release();
    throw e;
  }

  function setupLocked(): SessionSetup {
  // A new id (fresh start or fork target) must not take over another session's file.
  if (persist && (!fromPath || fork) && existsSync(sessionModules().transcriptPath(cwd, sessionId, env))) {
    throw new UsageError(`error: session id ${sessionId} is already in use (use --resume ${sessionId})`);
  }
  let source: SessionSetup["source"] = "startup";
  let path: string | undefined;
  let conv: Conversation | null = null;
  let meta: MetaEntry[] = [];
  if (fromPath) {
    const loaded = sessionModules().loadTranscript(fromPath);
    for (const w of loaded.warnings) warn(w);
    const at = typeof flag("resume-session-at") === "string" ? (flag("resume-session-at") as string) : undefined;
    conv = sessionModules().conversationFromEntries(loaded.entries, { meta: loaded.meta, ...(at ? { leafUuid: at } : {}) });
    if (at && conv.lastUuid !== at) throw new UsageError(`--resume-session-at: no message ${at} in ${fromPath}`);
    for (const line of unrecordedCalls(conv.messages)) warn(line);
    if (!fork) {
      source = "resume";
      sessionId = loaded.entries.find((e) => typeof e.sessionId === "string")?.sessionId ?? sessionId;
      path = fromPath;
      meta = loaded.meta;
    } else {
      source = "fork";
      if (persist) {
        // The copy gets fresh uuids, so the chain is read back from it; it holds no checkpoints yet.
        path = sessionModules().forkSession(fromPath, sessionId, cwd, env, at ? { leafUuid: at } : {});
        conv = sessionModules().conversationFromEntries(sessionModules().loadTranscript(path).entries);
      }
    }
  }

  const opened = sessionModules().createSessionStore({ cwd, sessionId, env, persist, redact: opts.redact, ...(path && persist ? { path } : {}) });
  const store: SessionSetup["store"] = Object.assign(Object.create(opened) as typeof opened, {
    close() {
      opened.close?.();
      lock?.release();
    },
  });
  // `-n/--name`: the session's title, as Claude Code's custom-title line (`--resume NAME` and `sessions list` read it).
  const name = typeof flag("name") === "string" ? (flag("name") as string).trim() : undefined;
  if (flag("name") !== undefined && !name) throw new UsageError("error: --name needs a non-empty title");
  if (name) store.append({ type: "custom-title", customTitle: name, sessionId });
  const checkpoints = persist ? sessionModules().createCheckpoints({ sessionId, cwd, env, store, meta }) : null;
  return {
    sessionId,
    source,
    store,
    messages: conv?.messages ?? [],
    lastUuid: conv?.lastUuid ?? null,
    restored: conv ? sessionModules().resumeSettings(conv.chain) : {},
    checkpoints,
  };
  }
}

/**
 * The transcript `--resume VALUE` names: a session id (or unique id prefix), else the title of one of this folder's
 * sessions (`-n/--name`, Claude Code's custom-title). Anything else is an error, never a silent fresh start
 * (issue 17.10). Throws UsageError.
 */
function resumeTarget(value: string, cwd: string, env: Record<string, string>): string {
  const found = sessionModules().findSession(value, cwd, env);
  if (found.ok) return found.path;
  const titled = sessionModules().listSessions(cwd, env).filter((r) => r.title !== undefined && r.title === value.trim());
  if (titled.length === 1) return titled[0]!.path;
  if (titled.length > 1) throw new UsageError(`--resume: ${titled.length} sessions in ${cwd} are titled "${value}"; resume one by id (yoke sessions list)`);
  throw new UsageError(`--resume: "${value}" is neither a session id nor the title of a session in ${cwd} (${found.error}); yoke sessions list shows them`);
}

/**
 * Tool calls the last run started but never recorded a result for (it was killed mid-call): their effects may have
 * happened (issue 20.8). Only the conversation's last exchange: older ones were reported when they were last.
 */
function unrecordedCalls(messages: Message[]): string[] {
  const lastAssistant = messages.findLastIndex((m) => m.role === "assistant");
  const reply = messages[lastAssistant + 1];
  if (lastAssistant < 0 || !reply || typeof reply.content === "string") return [];
  const lost = new Set(reply.content.filter((b) => b.type === "tool_result" && b.content === sessionModules().INTERRUPTED_TOOL_RESULT).map((b) => (b as { tool_use_id: string }).tool_use_id));
  const call = messages[lastAssistant]!.content;
  if (!lost.size || typeof call === "string") return [];
  return call
    .filter((b) => b.type === "tool_use" && lost.has(b.id))
    .map((b) => {
      const u = b as { id: string; name: string; input: unknown };
      const what = JSON.stringify(u.input);
      return `the previous run ended during ${u.name} (${u.id}, ${what.length > 120 ? `${what.slice(0, 117)}...` : what}): it may have run, in part or whole, without its result being recorded`;
    });
}
