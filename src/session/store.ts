import { stringifyRedacted } from "../util/redact.ts";
import { closeSync, fstatSync, fsyncSync, mkdirSync, openSync, readSync, writeSync } from "node:fs";
import { join } from "node:path";
import { transcriptDir } from "../config/paths.ts";
import type { MetaEntry, SessionEntry, SessionStore } from "./types.ts";
import { createDiagnostics } from "../util/diagnostics.ts";

export type SessionStoreOptions = {
  cwd: string;
  sessionId: string;
  env?: Record<string, string | undefined>;
  /** false for `--no-session-persistence`: nothing is written and `path` is ''. */
  persist?: boolean;
  /** Overrides the file location (subagent files live under `<session-id>/subagents/`). */
  path?: string;
  /** Where the one error report goes; default stderr. */
  onError?: (message: string) => void;
  /** Credential-shaped strings (keys, tokens) are written as [REDACTED] (default true; user-demand #20). */
  redact?: boolean;
};

/** Lines get their common fields (contracts §5.2) from `createTranscript` (transcript.ts), not from the store. */
export type FileSessionStore = SessionStore & {
  /** fsyncs the file (a no-op before the first line or with persistence off). Never throws. */
  flush(): void;
  /** Closes the file descriptor; a later append reopens it. Never throws. */
  close(): void;
};

/** Where a session's transcript lives (contracts §5.1; under yoke's own dir, or Claude Code's when the Agent SDK runs yoke). */
export const transcriptPath = (cwd: string, sessionId: string, env: Record<string, string | undefined> = process.env): string =>
  join(transcriptDir(cwd, env), `${sessionId}.jsonl`);

/** A subagent's transcript: `<project>/<session-id>/subagents/agent-<agentId>.jsonl` (contracts §5.1). */
export const subagentTranscriptPath = (cwd: string, sessionId: string, agentId: string, env: Record<string, string | undefined> = process.env): string =>
  join(transcriptDir(cwd, env), sessionId, "subagents", `agent-${agentId}.jsonl`);

/**
 * Append-only JSONL transcript. Each line goes out with one write call on an 'a' descriptor, so a
 * SIGKILL loses at most the line in flight. The directory is created on the first append. Never
 * throws: the first I/O failure is reported once through `onError` (stderr by default) naming the
 * file; later lines are still attempted so a transient failure (disk full) heals.
 */
export function createSessionStore(opts: SessionStoreOptions): FileSessionStore {
  const env = opts.env ?? process.env;
  const persist = opts.persist !== false;
  const path = persist ? (opts.path ?? transcriptPath(opts.cwd, opts.sessionId, env)) : "";
  const report = opts.onError ?? ((m: string) => void createDiagnostics().error(m));
  let fd: number | null = null;
  let reported = false;

  const fail = (what: string, err: unknown): void => {
    if (reported) return;
    reported = true;
    const msg = err instanceof Error ? err.message : String(err);
    report(`session transcript ${path}: ${what} failed (${msg}); the session may not be resumable`);
  };

  const open = (): number | null => {
    if (fd !== null) return fd;
    try {
      mkdirSync(join(path, ".."), { recursive: true });
      fd = openSync(path, "a", 0o600);
      // A writer killed mid-line leaves a fragment without "\n"; end it so our first line stays whole.
      const size = fstatSync(fd).size;
      if (size > 0) {
        const last = Buffer.alloc(1);
        const r = openSync(path, "r");
        try {
          readSync(r, last, 0, 1, size - 1);
        } finally {
          closeSync(r);
        }
        if (last[0] !== 10) writeSync(fd, "\n");
      }
    } catch (err) {
      fail("open", err);
    }
    return fd;
  };

  return {
    sessionId: opts.sessionId,
    path,
    append(entry: SessionEntry | MetaEntry): void {
      if (!persist) return;
      let line: string;
      try {
        line = `${opts.redact === false ? JSON.stringify(entry) : stringifyRedacted(entry)}\n`;
      } catch (err) {
        fail("serialising an entry", err);
        return;
      }
      const d = open();
      if (d === null) return;
      try {
        const buf = Buffer.from(line, "utf8");
        // Regular files take the whole buffer in one write; the loop only guards a short write.
        let off = writeSync(d, buf, 0, buf.length);
        while (off < buf.length) off += writeSync(d, buf, off, buf.length - off);
      } catch (err) {
        fail("write", err);
      }
    },
    flush(): void {
      if (fd === null) return;
      try {
        fsyncSync(fd);
      } catch (err) {
        fail("fsync", err);
      }
    },
    close(): void {
      if (fd === null) return;
      try {
        closeSync(fd);
      } catch {
        // already closed: nothing left to lose
      }
      fd = null;
    },
  };
}
