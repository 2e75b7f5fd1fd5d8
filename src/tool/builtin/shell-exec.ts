import type { ChildProcess } from "node:child_process";
import { closeSync, ftruncateSync, mkdirSync, openSync, readSync, rmSync, writeSync } from "node:fs";
import { constants as osConstants, tmpdir } from "node:os";
import { join } from "node:path";
import type { ToolContext } from "../types.ts";
import { claimTempDir } from "../../session/temp-sweep.ts";
import { spawnProcess } from "../../util/subprocess.ts";
import { spawnPipedShell, type ShellChild } from "./shell-child.ts";

export { groupAlive, KILL_GRACE_MS, killGroup } from "../../util/subprocess.ts";


const quote = (s: string): string => `'${s.replaceAll("'", `'\\''`)}'`;

/**
 * bash found on the PATH yoke was started with, else /bin/sh. Never the session's PATH: settings `env`
 * may change what commands find, not which shell runs them (issue 16 point 10). Never throws.
 */
export function findShell(): string {
  return Bun.which("bash", { PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin" }) ?? "/bin/sh";
}

/**
 * The script the shell runs. The user command travels as a positional argument and is
 * `eval`ed, so a syntax error in it is reported by the shell instead of breaking our wrapper,
 * and the EXIT trap records the final directory even when the command calls `exit`.
 */
export function wrapperScript(envFiles: string[], pwdFile?: string): string {
  const lines: string[] = [];
  for (const f of envFiles) lines.push(`[ -f ${quote(f)} ] && . ${quote(f)}`);
  if (pwdFile) lines.push(`trap 'pwd -P > ${quote(pwdFile)} 2>/dev/null' EXIT`);
  // `shift` runs inside the eval so the command sees no positional parameters of ours.
  lines.push(`eval "shift\n$1"`);
  return lines.join("\n");
}

export type ShellSpawn = {
  command: string;
  cwd: string;
  env: Record<string, string>;
  envFiles: string[];
  /** File the final `pwd -P` is written to. */
  pwdFile?: string;
  /** The command is the shell's whole script, without the wrapper (bash-direct.ts decides when it may be). */
  direct?: boolean;
};

/** The shell's argv for a spawn: the wrapper with the command as its argument, or the command alone. */
const shellArgv = (o: ShellSpawn): string[] =>
  o.direct ? [findShell(), "-c", o.command] : [findShell(), "-c", wrapperScript(o.envFiles, o.pwdFile), "bash", o.command];

/**
 * Starts the command in its own process group (session leader), stdin from /dev/null.
 * May throw synchronously only for spawn failures Node reports that way; async spawn failures
 * arrive as the child's `error` event.
 */
export function spawnShell(o: ShellSpawn): ChildProcess {
  // Its process group dies with yoke, even under SIGKILL (issue 20.8); one that outlives its shell (`cmd &`) too.
  return spawnProcess(shellArgv(o), { cwd: o.cwd, env: o.env });
}

/** spawnShell through Bun's spawn (shell-child.ts): the same process, for a caller that reads only ShellChild's events. */
export const spawnShellPiped = (o: ShellSpawn): ShellChild => spawnPipedShell(shellArgv(o), { cwd: o.cwd, env: o.env });

/** The command line spawnShell would run, for a sandbox to wrap. Pure. */
export function shellLine(o: ShellSpawn): string {
  return shellArgv(o).map(quote).join(" ");
}

/** How a Bash call gets its shell: straight, or wrapped by the session's sandbox. */
export type ShellLauncher = (o: ShellSpawn) => ChildProcess;

/**
 * Starts a command line a sandbox produced, as spawnShell starts a shell (own process group, stdin from /dev/null).
 * `direct`: the same command as a program and the changes to its environment, started without a shell in front.
 */
export function spawnWrapped(
  commandLine: string,
  o: Pick<ShellSpawn, "cwd" | "env"> & { announceFd?: boolean; direct?: { argv: string[]; env: Array<[string, string | undefined]> } },
): ChildProcess {
  // fd 3: where a sandboxed line announces that the command started (sandbox WrapOptions.announce).
  const pipes = o.announceFd ? { extraPipes: 1 } : {};
  if (!o.direct) return spawnProcess(["/bin/sh", "-c", commandLine], { cwd: o.cwd, env: o.env, ...pipes });
  const env = { ...o.env };
  for (const [k, v] of o.direct.env) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return spawnProcess(o.direct.argv, { cwd: o.cwd, env, ...pipes });
}

/** Exit status as a shell reports it: a death by signal N becomes 128+N. */
export function exitStatus(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  const n = signal ? (osConstants.signals as Record<string, number>)[signal] : undefined;
  return n ? 128 + n : 1;
}

/**
 * Bounded byte sink: keeps the first and last `cap` bytes of a stream and counts the rest,
 * so a command printing gigabytes cannot exhaust memory.
 */
export type ByteCollector = {
  push(chunk: Uint8Array): void;
  /**
   * Decoded text (invalid UTF-8 becomes U+FFFD). A marker stands where bytes were dropped, unless
   * `marker` is false (for callers that cut the middle again and report `omitted` themselves).
   */
  text(marker?: boolean): string;
  /** Bytes dropped from the middle. */
  readonly omitted: number;
};

export function byteCollector(cap: number): ByteCollector {
  const head: Uint8Array[] = [];
  let headLen = 0;
  let tail: Uint8Array[] = [];
  let tailLen = 0;
  let omitted = 0;
  return {
    push(chunk) {
      if (headLen < cap) {
        const take = Math.min(cap - headLen, chunk.length);
        head.push(chunk.subarray(0, take));
        headLen += take;
        chunk = chunk.subarray(take);
        if (!chunk.length) return;
      }
      tail.push(chunk);
      tailLen += chunk.length;
      while (tailLen > cap) {
        const first = tail[0]!;
        const excess = tailLen - cap;
        if (first.length <= excess) {
          tail.shift();
          tailLen -= first.length;
          omitted += first.length;
        } else {
          tail[0] = first.subarray(excess);
          tailLen -= excess;
          omitted += excess;
        }
      }
    },
    text(marker = true) {
      const dec = (parts: Uint8Array[]) => new TextDecoder("utf-8").decode(Buffer.concat(parts));
      if (!omitted || !marker) return dec([...head, ...tail]);
      return `${dec(head)}\n\n... [${omitted} bytes omitted] ...\n\n${dec(tail)}`;
    },
    get omitted() {
      return omitted;
    },
  };
}

/**
 * Keeps a command's combined output in memory until it passes `threshold` bytes, then writes it all
 * to `file` and appends from there on, so long output can be read in full later. The file is capped at
 * `maxBytes` (issue 20.4: `yes` for 3 s left 1.4 GB): past it, the file keeps its last half and a first line
 * saying how many bytes were cut. Write failures disable the file silently: the in-memory head and tail still
 * reach the model. Never throws.
 */
export type SpillSink = { push(chunk: Uint8Array): void; close(): void; readonly file: string | undefined; readonly cutBytes: number };

export const DEFAULT_SPILL_MAX_BYTES = 64 * 1024 * 1024;

export function spillSink(threshold: number, fileOrMake: string | (() => string), maxBytes = DEFAULT_SPILL_MAX_BYTES): SpillSink {
  // A function names the file only once output passes the threshold (its folder is made then, if at all).
  let file = typeof fileOrMake === "string" ? fileOrMake : "";
  let pending: Uint8Array[] = [];
  let size = 0;
  let fd: number | undefined;
  let failed = false;
  let written = 0;
  let headLen = 0;
  let cut = 0;
  const keep = Math.floor(maxBytes / 2);
  // Past the cap the file keeps the newest half, its first line saying how much went: O(maxBytes) once per
  // maxBytes/2 written. The cut comes before a chunk that would pass the cap is written, so a reader never sees the
  // file over it (a flooding command's chunks can be a MiB).
  const restart = (tail: Uint8Array, dropped: number) => {
    cut += dropped;
    const head = Buffer.from(`[yoke: ${cut} earlier bytes of this output were cut to keep the file under ${maxBytes} bytes]\n`);
    // Written over the old bytes first and shortened after, never emptied first: a reader between the two steps
    // (a `wc -c` on the file) saw 0 bytes.
    writeSync(fd!, head, 0, head.length, 0);
    writeSync(fd!, tail, 0, tail.length, head.length);
    headLen = head.length;
    written = head.length + tail.length;
    ftruncateSync(fd!, written);
  };
  const write = (c: Uint8Array) => {
    const content = written - headLen;
    if (c.length >= keep) return restart(c.subarray(c.length - keep), content + c.length - keep);
    if (content + c.length > maxBytes) {
      const tail = Buffer.alloc(keep);
      readSync(fd!, tail, 0, keep, written - keep);
      restart(tail, content - keep);
    }
    writeSync(fd!, c, 0, c.length, written);
    written += c.length;
  };
  return {
    push(chunk) {
      if (failed) return;
      try {
        if (fd !== undefined) return write(chunk);
        pending.push(chunk);
        size += chunk.length;
        if (size <= threshold) return;
        if (typeof fileOrMake !== "string") file = fileOrMake();
        fd = openSync(file, "w+");
        for (const c of pending) write(c);
        pending = [];
      } catch {
        failed = true;
        pending = [];
      }
    },
    close() {
      if (fd !== undefined && fd >= 0) closeSync(fd);
      fd = fd === undefined ? undefined : -1;
      pending = [];
    },
    get file() {
      return fd !== undefined && !failed ? file : undefined;
    },
    get cutBytes() {
      return cut;
    },
  };
}

/** A positive integer from env, else the fallback. */
export function envInt(env: Record<string, string>, key: string, fallback: number): number {
  const n = Number.parseInt(env[key] ?? "", 10);
  return Number.isFinite(n) && n > 0 ? n : fallback;
}

/**
 * The session's scratch directory (background output, cwd capture). Uses
 * `session.tmpDir` when the host set one, else `<tmp>/yoke-<sessionId>`.
 * Creates it. May throw if the directory cannot be created.
 */
/** Where a session's scratch directory is unless the host set one. Pure. */
export const defaultSessionTempDir = (env: Record<string, string | undefined>, sessionId: string): string => join(env.TMPDIR || tmpdir(), `yoke-${sessionId}`);

export function sessionTempDir(ctx: Pick<ToolContext, "session" | "sessionId" | "env">): string {
  if (ctx.session.tmpDir !== undefined) {
    mkdirSync(ctx.session.tmpDir, { recursive: true });
    return ctx.session.tmpDir;
  }
  const dir = defaultSessionTempDir(ctx.env, ctx.sessionId);
  // Owned by this process, so the next start sweeps it if this run is SIGKILLed (issue 20.4).
  claimTempDir(dir);
  made.add(ctx.session);
  ctx.session.tmpDir = dir;
  return dir;
}

/** Sessions whose scratch directory yoke made (not one a host gave). */
const made = new WeakSet<ToolContext["session"]>();

/**
 * Removes the scratch directory yoke made for this session (spill files, background output, cwd files), at
 * session end (issue 20.4: 150 `yoke-<session>` folders stayed in TMPDIR). Call after every shell is stopped.
 * Never throws.
 */
export function removeSessionTempDir(session: ToolContext["session"]): void {
  if (!session.tmpDir || !made.has(session)) return;
  try {
    rmSync(session.tmpDir, { recursive: true, force: true });
  } catch {
    // Left for the OS to clean: nothing in it is needed after the session.
  }
  made.delete(session);
  session.tmpDir = undefined;
}
