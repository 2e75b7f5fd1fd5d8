/**
 * The one place yoke starts processes (issue 20.8, issue 11.6): Bash and background shells, hooks, MCP stdio servers,
 * rg, git, helper commands. `spawnProcess` (async) and `runProcessSync` are the only callers of node:child_process
 * in src/ (test/util/spawn-boundary.test.ts fails on any other).
 *
 * Children die with yoke, even when yoke is SIGKILLed (issue 20.8). Bash commands and hooks run in process groups of
 * their own (so a timeout can kill the whole tree), which also means nothing kills them when yoke itself is killed:
 * PR_SET_PDEATHSIG would reach only the group's first process, and a subreaper inherits orphans but dies with yoke.
 *
 * So one small watchdog shell per yoke process, started on first use in a session of its own, reads the process
 * groups yoke registers ("+ PGID" / "- PGID") from a pipe. When yoke is gone, however it went, the pipe reaches
 * end-of-file and the watchdog SIGKILLs every group still registered. Portable (Linux, macOS), no native code.
 *
 * A group can only be registered once spawn returned its pid, and the child runs its command meanwhile: on a loaded
 * machine yoke was seen descheduled for the whole time a Bash command took to start a job, then SIGKILLed with the
 * group never registered (the watchdog's log had every other group; issue 20.8's flaky kill test). So before each
 * spawn yoke registers a token ("t TOKEN"), the child carries it in its environment (YOKE_GUARD) from its first
 * instruction, and the group's registration retires it ("+ -PGID TOKEN"). A token still pending at end-of-file means
 * yoke died inside that window: the watchdog then kills, on Linux, every process whose environment holds it, and the
 * group each one leads. No exec wrapper (no change to what the child sees but one variable), no cost after spawn.
 *
 * guardProcessGroup never throws: without a watchdog (no /bin/sh) a run works as before, unguarded.
 *
 * Also the one place that stops process groups (groupAlive, killGroup), for Bash, background shells and hooks.
 */
import type { ChildProcess } from "node:child_process";
import { closeSync, openSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readAfterExit } from "./read-after-exit.ts";

/**
 * node:child_process, loaded by its first caller: its import costs a start ~1.5 ms of CPU (Bun 1.4.5, issue 21), and
 * the prelude that spawns the MCP servers (Bun.spawn) loads this module but none of its child_process callers.
 */
const childProcess = () => require("node:child_process") as typeof import("node:child_process");

/** Pause between SIGTERM and SIGKILL when a process group is stopped. */
export const KILL_GRACE_MS = 1500;

/** The environment variable a child carries its spawn token in (see above). */
export const GUARD_ENV = "YOKE_GUARD";

const WATCHDOG = `trap '' INT TERM HUP
groups=" "
pending=" "
del() { case "$1" in *" $2 "*) r="\${1%%" $2 "*} \${1#*" $2 "}" ;; *) r=$1 ;; esac; }
while read -r op a b; do
  case "$op" in
    t) pending="$pending$a " ;;
    +) groups="$groups$a "; if [ -n "$b" ]; then del "$pending" "$b"; pending=$r; fi ;;
    -) del "$groups" "$a"; groups=$r ;;
    d) del "$pending" "$a"; pending=$r ;;
  esac
done
for t in $groups; do kill -s KILL -- "$t" 2>/dev/null; done
[ "$pending" = " " ] && exit 0
set --
for k in $pending; do set -- "$@" -e "${GUARD_ENV}=$k"; done
for round in 1 2 3; do
  for f in $(grep -lsxzF "$@" /proc/[0-9]*/environ 2>/dev/null); do
    p=\${f#/proc/}
    p=\${p%/environ}
    kill -s KILL -- "-$p" 2>/dev/null
    kill -s KILL "$p" 2>/dev/null
  done
  sleep 0.05 2>/dev/null
done`;

let watchdog: { write(line: string): void } | null | undefined;

function startWatchdog(): { write(line: string): void } | null {
  try {
    // A fixed PATH (grep and sleep, only when yoke died between a spawn and its registration): nothing of the
    // session's environment runs here.
    const proc = Bun.spawn(["/bin/sh", "-c", WATCHDOG], { stdin: "pipe", stdout: "ignore", stderr: "ignore", detached: true, env: { PATH: "/usr/bin:/bin" } });
    proc.unref();
    const sink = proc.stdin;
    sink.unref?.();
    return {
      write(line) {
        try {
          sink.write(line);
          sink.flush();
        } catch {
          // The watchdog is gone (killed by hand): groups go unguarded, the run goes on.
        }
      },
    };
  } catch {
    return null;
  }
}

function currentWatchdog(): { write(line: string): void } | null {
  if (watchdog === undefined) watchdog = process.platform === "win32" ? null : startWatchdog();
  return watchdog;
}

const tokenBase = `${process.pid}.${crypto.randomUUID().slice(0, 8)}`;
let tokenSeq = 0;

/**
 * Registers a spawn token with the watchdog, before the spawn (see above): the child gets it as YOKE_GUARD, and
 * guardProcessGroup(pid, token) retires it. Undefined without a watchdog. Exported for spawnProcess and its tests.
 */
export function spawnToken(): string | undefined {
  const w = currentWatchdog();
  if (!w) return undefined;
  const token = `${tokenBase}.${++tokenSeq}`;
  w.write(`t ${token}\n`);
  return token;
}

/**
 * Registers a process group to be SIGKILLed if yoke dies before the group ends. Returns the unregister function,
 * for when the group is known to be gone (call it only then: a group's leader may exit before its children).
 */
export function guardProcessGroup(pgid: number | undefined, token?: string): () => void {
  const w = currentWatchdog();
  if (!w) return () => {};
  if (!pgid || pgid <= 1) {
    if (token) w.write(`d ${token}\n`); // it never started: nothing carries the token
    return () => {};
  }
  return register(w, `-${pgid}`, token);
}

/** Registers one kill target with the watchdog: `-PGID` (a group) or `PID` (one process), retiring its spawn token. */
function register(w: { write(line: string): void }, target: string, token?: string): () => void {
  w.write(`+ ${target}${token ? ` ${token}` : ""}\n`);
  let done = false;
  return () => {
    if (done) return;
    done = true;
    w.write(`- ${target}\n`);
  };
}

/**
 * Runs `start`, a library call that starts children of its own in yoke's process group, not through spawnProcess
 * (the sandbox library's socat bridges), so that they die with yoke from their first instruction: while `start`
 * runs, process.env carries a pending spawn token they inherit (the library passes no environment of its own), and
 * once it succeeded they are registered by pid (guardStrayChildren); either way the token is retired then.
 * Returns start's value and the function to call when the library has stopped them.
 */
export async function guardLibraryChildren<T>(start: () => Promise<T>): Promise<{ value: T; unguard: () => void }> {
  const token = process.platform === "linux" ? spawnToken() : undefined;
  const before = process.env[GUARD_ENV];
  if (token) process.env[GUARD_ENV] = token;
  const settle = (registered: boolean) => {
    if (before === undefined) delete process.env[GUARD_ENV];
    else process.env[GUARD_ENV] = before;
    const unguard = registered ? guardStrayChildren() : () => {};
    if (token) currentWatchdog()?.write(`d ${token}\n`); // retired once the pids are registered
    return unguard;
  };
  let value: T;
  try {
    value = await start();
  } catch (e) {
    // Not registered by pid: nobody would say when they ended, and a pid reused later must not be killed.
    settle(false);
    throw e;
  }
  return { value, unguard: settle(true) };
}

/**
 * Guards the children a library started in yoke's own process group, not through spawnProcess: each is SIGKILLed
 * by the watchdog if yoke dies. Call right after the library started them (guardLibraryChildren does); call the
 * returned function when the library has stopped them (a pid could be reused afterwards). Linux
 * only (/proc); elsewhere a no-op. Never throws.
 */
export function guardStrayChildren(): () => void {
  if (process.platform !== "linux") return () => {};
  const mine = `${process.pid}`;
  let myGroup: string | undefined;
  const strays: number[] = [];
  try {
    const self = readFileSync("/proc/self/stat", "utf8");
    myGroup = self.slice(self.lastIndexOf(")") + 2).split(" ")[2];
    for (const e of readdirSync("/proc")) {
      if (!/^\d+$/.test(e)) continue;
      try {
        const st = readFileSync(`/proc/${e}/stat`, "utf8");
        const rest = st.slice(st.lastIndexOf(")") + 2).split(" ");
        // Children in our own group: spawnProcess children lead groups of their own and are guarded already.
        if (rest[1] === mine && rest[2] === myGroup && rest[0] !== "Z") strays.push(Number(e));
      } catch {}
    }
  } catch {
    return () => {};
  }
  if (!strays.length) return () => {};
  const w = currentWatchdog();
  if (!w) return () => {};
  const unguards = strays.map((pid) => register(w, String(pid)));
  return () => unguards.forEach((u) => u());
}

/**
 * Whether any live (non-zombie) process remains in the group. In containers whose PID 1 reaps
 * orphans slowly, killed children linger as zombies that `kill(-pgid, 0)` still counts, so on Linux
 * we read process states from /proc.
 */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  if (process.platform !== "linux") return true;
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return true;
  }
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${e}/stat`, "utf8");
    } catch {
      continue; // exited meanwhile
    }
    // Fields after the parenthesised command name: state ppid pgrp …
    const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(rest[2]) === pgid && rest[0] !== "Z" && rest[0] !== "X") return true;
  }
  return false;
}

/**
 * SIGTERM to the whole process group, SIGKILL to whatever is left after `graceMs`.
 * Resolves once the group is gone (or SIGKILL was sent). Never throws.
 *
 * `leaderExited`, when the caller has it (the leader's `exit` event): the group is first looked at when the leader is
 * gone, not at once and then every 25 ms. A look while the group lives reads all of /proc, and the 25 ms tick held
 * every run's exit behind its MCP servers' close (issue 21: ~8 ms of wall and ~5 ms of CPU per run).
 */
export async function killGroup(pgid: number, graceMs = KILL_GRACE_MS, leaderExited?: Promise<unknown>): Promise<void> {
  try {
    process.kill(-pgid, "SIGTERM");
  } catch {
    return; // already gone
  }
  const deadline = Date.now() + graceMs;
  if (leaderExited) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([leaderExited, new Promise<void>((r) => (timer = setTimeout(r, graceMs)))]);
    clearTimeout(timer);
  }
  while (Date.now() < deadline) {
    if (!groupAlive(pgid)) return;
    await Bun.sleep(25);
  }
  try {
    process.kill(-pgid, "SIGKILL");
  } catch {}
  // SIGKILL cannot be ignored; give the kernel a moment so callers can rely on the group being gone.
  for (let i = 0; i < 20 && groupAlive(pgid); i++) await Bun.sleep(10);
}


/** What a child reads on stdin: nothing, a pipe yoke writes to, or fixed bytes (a file, never a socket). */
export type StdinSpec = "ignore" | "pipe" | { data: string | Uint8Array };

export type SpawnOptions = {
  cwd?: string;
  env?: Record<string, string | undefined>;
  stdin?: StdinSpec;
  stdout?: "pipe" | "ignore";
  stderr?: "pipe" | "ignore";
  /** Pipes beyond stdin, stdout, stderr (fd 3 ...), e.g. bubblewrap's --info-fd. */
  extraPipes?: number;
};

let stdinSeq = 0;

/**
 * On Linux Bun.spawn hands fixed bytes (a Blob) to the child as a memfd: a file, as the temp file is, made in memory
 * without creating and unlinking one on disk (a command hook per tool call: issue 21). spawnProcess (Node's spawn)
 * still needs the temp file's descriptor.
 */
const BUN_MEMFD_STDIN = process.platform === "linux";

/**
 * Fixed stdin as a file descriptor of an unlinked temp file. Not a pipe yoke writes to: bash sources ~/.bashrc when
 * stdin is a socket (its rsh heuristic), and a payload larger than a pipe buffer would need a writer. Falls back to a
 * pipe when no temp file can be made.
 */
function stdinFd(data: string | Uint8Array): number | undefined {
  const file = join(tmpdir(), `yoke-stdin-${process.pid}-${++stdinSeq}`);
  try {
    writeFileSync(file, data, { mode: 0o600 });
    const fd = openSync(file, "r");
    unlinkSync(file);
    return fd;
  } catch {
    try {
      unlinkSync(file);
    } catch {}
    return undefined;
  }
}

/**
 * Starts `argv` in a process group of its own (a session leader: no controlling terminal, and a kill of the group
 * ends everything it started), registered with the watchdog until the group is gone, so it dies with yoke however
 * yoke ends. A failure to start arrives as the child's `error` event (Node's contract); never throws for it.
 */
export function spawnProcess(argv: string[], o: SpawnOptions = {}): ChildProcess {
  const [cmd, ...args] = argv;
  const data = typeof o.stdin === "object" ? o.stdin.data : undefined;
  const fd = data === undefined ? undefined : stdinFd(data);
  const stdin = data === undefined ? (o.stdin ?? "ignore") : (fd ?? "pipe");
  const token = spawnToken();
  const env = token ? { ...(o.env ?? process.env), [GUARD_ENV]: token } : o.env;
  let child: ChildProcess;
  try {
    child = childProcess().spawn(cmd!, args, { cwd: o.cwd, env: env as NodeJS.ProcessEnv | undefined, detached: true, stdio: [stdin as "pipe", o.stdout ?? "pipe", o.stderr ?? "pipe", ...Array<"pipe">(o.extraPipes ?? 0).fill("pipe")] });
  } catch (e) {
    guardProcessGroup(undefined, token);
    throw e;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  if (data !== undefined && fd === undefined) {
    child.stdin?.on("error", () => {}); // a child that does not read its stdin is no error of ours
    child.stdin?.end(data);
  }
  const unguard = guardProcessGroup(child.pid, token);
  child.once("close", () => {
    if (child.pid && !groupAlive(child.pid)) unguard();
  });
  return child;
}

/** A child of spawnPiped: Bun's subprocess with its stdout and stderr as streams (and its stdin's sink, when a pipe). */
export type PipedChild = {
  pid: number;
  stdin?: Bun.FileSink;
  stdout: ReadableStream<Uint8Array>;
  stderr: ReadableStream<Uint8Array>;
  exited: Promise<number>;
  exitCode: number | null;
  signalCode: NodeJS.Signals | null;
};

/**
 * Starts `argv` as spawnProcess does (a process group of its own, the watchdog's token from its first instruction,
 * fixed stdin as a file), through Bun.spawn: Node's ChildProcess and its stream objects cost the parent ~0.7 ms more
 * CPU per child, and a command hook runs on every tool call (issue 21). Throws when the program cannot start
 * (ENOENT, ENOEXEC), as Bun.spawn does.
 */
export function spawnPiped(argv: string[], o: { cwd?: string; env?: Record<string, string | undefined>; stdin: { data: string | Uint8Array } | "pipe" | "ignore" }): PipedChild {
  const data = typeof o.stdin === "string" ? undefined : o.stdin.data;
  const fd = data === undefined || BUN_MEMFD_STDIN ? undefined : stdinFd(data);
  const token = spawnToken();
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(o.env ?? process.env)) if (v !== undefined) env[k] = v;
  if (token) env[GUARD_ENV] = token;
  let proc: ReturnType<typeof Bun.spawn>;
  try {
    // Fixed bytes without a temp file (Linux; or none could be made) go as a Blob: a memfd on Linux.
    proc = Bun.spawn(argv, { cwd: o.cwd, env, detached: true, stdin: typeof o.stdin === "string" ? o.stdin : (fd ?? new Blob([data!])), stdout: "pipe", stderr: "pipe" });
  } catch (e) {
    guardProcessGroup(undefined, token);
    throw e;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  const pid = proc.pid;
  const unguard = guardProcessGroup(pid, token);
  void proc.exited.then(() => {
    if (!groupAlive(pid)) unguard();
  });
  return proc as unknown as PipedChild;
}

export type RunOptions = Omit<SpawnOptions, "extraPipes"> & {
  /** The group is killed at this delay (SIGTERM, SIGKILL after `graceMs`). */
  timeoutMs: number;
  /** Bytes of stdout and of stderr kept each (the first ones); the rest is drained and counted. */
  maxOutputBytes?: number;
  signal?: AbortSignal;
  graceMs?: number;
  /** How long a running child's pipes wait for its exit before they are read as it runs (default RUN_READ_AFTER_MS). */
  readAfterMs?: number;
};

/** A child of runProcess still running after this is read as it runs: Bun holds at most what it writes meanwhile. */
export const RUN_READ_AFTER_MS = 200;

export type RunResult = {
  /** The exit code; null when killed by a signal or when it never started. */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** Output bytes dropped past `maxOutputBytes`, both streams together. */
  cutBytes: number;
  /** Why it could not start, if it could not. */
  error?: string;
};

/** Default per-stream output kept by runProcess: 8 MiB. */
export const RUN_OUTPUT_CAP = 8 * 1024 * 1024;

/**
 * Runs a command to its end with a timeout and bounded output (git, rg, probes). Resolves once the leader exited and
 * its output pipes closed (a child the command left running that holds them is killed with its group). Never throws.
 *
 * Through Bun.spawn, not spawnProcess: nothing here needs Node's stream objects, and making them per child cost the
 * parent ~2 ms of CPU against ~0.5 ms (six git calls before a run's first request; issue 21). Same process group,
 * watchdog, fixed-stdin file and kill rules as spawnProcess.
 */
export function runProcess(argv: string[], o: RunOptions): Promise<RunResult> {
  const cap = o.maxOutputBytes ?? RUN_OUTPUT_CAP;
  const data = typeof o.stdin === "object" ? o.stdin.data : undefined;
  const fd = data === undefined || BUN_MEMFD_STDIN ? undefined : stdinFd(data);
  const env = o.env ? (Object.fromEntries(Object.entries(o.env).filter(([, v]) => v !== undefined)) as Record<string, string>) : undefined;
  let proc: ReturnType<typeof Bun.spawn>;
  try {
    proc = Bun.spawn(argv, {
      cwd: o.cwd,
      env,
      detached: true,
      // Fixed bytes without a temp file (Linux; or none could be made) go as a Blob: a memfd on Linux.
      stdin: data === undefined ? (o.stdin === "pipe" ? "pipe" : "ignore") : (fd ?? new Blob([data])),
      stdout: o.stdout ?? "pipe",
      stderr: o.stderr ?? "pipe",
    });
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    return Promise.resolve({ code: null, signal: null, stdout: "", stderr: "", timedOut: false, cutBytes: 0, error: err.code && !err.message.includes(err.code) ? `${err.code}: ${err.message}` : err.message });
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  const pid = proc.pid;
  const unguard = guardProcessGroup(pid);
  let cutBytes = 0;
  // The pipes are taken once the child exited (its output in one buffer each), or as it runs when it takes longer;
  // not before: taking one early costs the heap 256 KiB even when it stays empty (read-after-exit.ts).
  const readable = readAfterExit(proc.exited, o.readAfterMs ?? RUN_READ_AFTER_MS);
  const collect = async (take: () => ReadableStream<Uint8Array> | number | undefined): Promise<string> => {
    await readable;
    const stream = take();
    if (!stream || typeof stream === "number") return "";
    const parts: Uint8Array[] = [];
    let kept = 0;
    for await (const c of stream) {
      const take = Math.max(0, Math.min(c.length, cap - kept));
      if (take) parts.push(c.subarray(0, take));
      kept += take;
      cutBytes += c.length - take;
    }
    return Buffer.concat(parts).toString("utf8");
  };
  let timedOut = false;
  const stop = () => void killGroup(pid, o.graceMs ?? KILL_GRACE_MS);
  const timer = setTimeout(() => {
    timedOut = true;
    stop();
  }, Math.max(1, Math.min(o.timeoutMs, 2_147_483_647)));
  o.signal?.addEventListener("abort", stop, { once: true });
  // A child the command left running may hold the pipes: once the leader is gone, its group goes too.
  const exited = proc.exited.then(() => {
    if (groupAlive(pid)) void killGroup(pid, 0);
  });
  return Promise.all([collect(() => proc.stdout as ReadableStream<Uint8Array> | undefined), collect(() => proc.stderr as ReadableStream<Uint8Array> | undefined), exited]).then(
    ([stdout, stderr]) => {
      clearTimeout(timer);
      o.signal?.removeEventListener("abort", stop);
      if (!groupAlive(pid)) unguard();
      return { code: proc.exitCode, signal: (proc.signalCode as NodeJS.Signals | null) ?? null, stdout, stderr, timedOut, cutBytes };
    },
  );
}

export type SyncResult = { code: number | null; stdout: string; stderr: string; timedOut: boolean; error?: string };

/**
 * Runs a short command synchronously, for the few places that cannot wait (credentials at start-up, a permission
 * check). Bounded by `timeoutMs` (SIGKILL) and `maxOutputBytes`. The watchdog cannot guard it (its pid is known only
 * after it ended), so if yoke is SIGKILLed meanwhile it lives at most to its timeout: keep timeouts short. Never throws.
 */
export function runProcessSync(argv: string[], o: { cwd?: string; env?: Record<string, string | undefined>; timeoutMs: number; maxOutputBytes?: number }): SyncResult {
  const [cmd, ...args] = argv;
  const r = childProcess().spawnSync(cmd!, args, {
    cwd: o.cwd,
    env: o.env as NodeJS.ProcessEnv | undefined,
    stdio: ["ignore", "pipe", "pipe"],
    timeout: o.timeoutMs,
    killSignal: "SIGKILL",
    maxBuffer: o.maxOutputBytes ?? RUN_OUTPUT_CAP,
  });
  const text = (b: unknown) => (b == null ? "" : Buffer.isBuffer(b) ? b.toString("utf8") : String(b));
  const timedOut = (r.error as NodeJS.ErrnoException | undefined)?.code === "ETIMEDOUT" || (r.signal === "SIGKILL" && r.status === null);
  return { code: r.status, stdout: text(r.stdout), stderr: text(r.stderr), timedOut, error: r.error && !timedOut ? r.error.message : undefined };
}

/** Why a helper command (apiKeyHelper, headersHelper) failed, in one line, or undefined when it succeeded. Pure. */
export function helperFailure(r: SyncResult, timeoutMs: number): string | undefined {
  if (r.error) return r.error;
  if (r.timedOut) return `no answer within ${timeoutMs / 1000} s; it was killed`;
  if (r.code !== 0) return `exit code ${r.code}${r.stderr.trim() ? `: ${r.stderr.trim().split("\n")[0]}` : ""}`;
  return undefined;
}

/**
 * An interactive program on yoke's own terminal ($EDITOR from the terminal session), waited for: it inherits the
 * terminal and stays in yoke's process group so it can read the keyboard. Never throws (a spawn failure is `error`).
 */
export function runOnTerminal(argv: string[], o: { cwd?: string; env?: Record<string, string | undefined> }): { status: number | null; error?: Error } {
  const [cmd, ...args] = argv;
  const r = childProcess().spawnSync(cmd!, args, { stdio: "inherit", cwd: o.cwd, env: o.env as NodeJS.ProcessEnv | undefined });
  return { status: r.status, ...(r.error ? { error: r.error } : {}) };
}
