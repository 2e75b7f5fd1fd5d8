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
 * guardProcessGroup never throws: without a watchdog (no /bin/sh) a run works as before, unguarded.
 *
 * Also the one place that stops process groups (groupAlive, killGroup), for Bash, background shells and hooks.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { closeSync, openSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Pause between SIGTERM and SIGKILL when a process group is stopped. */
export const KILL_GRACE_MS = 1500;

const WATCHDOG = `trap '' INT TERM HUP
groups=" "
while read -r op pg; do
  case "$op" in
    +) groups="$groups$pg " ;;
    -) case "$groups" in *" $pg "*) groups="\${groups%%" $pg "*} \${groups#*" $pg "}" ;; esac ;;
  esac
done
for t in $groups; do kill -s KILL -- "$t" 2>/dev/null; done`;

let watchdog: { write(line: string): void } | null | undefined;

function startWatchdog(): { write(line: string): void } | null {
  try {
    // Builtins only (read, case, kill): no program is looked up on any PATH, so nothing of the session's runs here.
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

/**
 * Registers a process group to be SIGKILLed if yoke dies before the group ends. Returns the unregister function,
 * for when the group is known to be gone (call it only then: a group's leader may exit before its children).
 */
export function guardProcessGroup(pgid: number | undefined): () => void {
  if (!pgid || pgid <= 1 || process.platform === "win32") return () => {};
  if (watchdog === undefined) watchdog = startWatchdog();
  const w = watchdog;
  if (!w) return () => {};
  return register(w, `-${pgid}`);
}

/** Registers one kill target with the watchdog: `-PGID` (a group) or `PID` (one process). */
function register(w: { write(line: string): void }, target: string): () => void {
  w.write(`+ ${target}\n`);
  let done = false;
  return () => {
    if (done) return;
    done = true;
    w.write(`- ${target}\n`);
  };
}

/**
 * Guards the children a library started in yoke's own process group, not through spawnProcess (the sandbox
 * library's socat bridges): each is SIGKILLed by the watchdog if yoke dies. Call right after the library started
 * them; call the returned function when the library has stopped them (a pid could be reused afterwards). Linux
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
  if (watchdog === undefined) watchdog = startWatchdog();
  const w = watchdog;
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
 */
export async function killGroup(pgid: number, graceMs = KILL_GRACE_MS): Promise<void> {
  try {
    process.kill(-pgid, "SIGTERM");
  } catch {
    return; // already gone
  }
  const deadline = Date.now() + graceMs;
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
  let child: ChildProcess;
  try {
    child = spawn(cmd!, args, { cwd: o.cwd, env: o.env as NodeJS.ProcessEnv | undefined, detached: true, stdio: [stdin as "pipe", o.stdout ?? "pipe", o.stderr ?? "pipe", ...Array<"pipe">(o.extraPipes ?? 0).fill("pipe")] });
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  if (data !== undefined && fd === undefined) {
    child.stdin?.on("error", () => {}); // a child that does not read its stdin is no error of ours
    child.stdin?.end(data);
  }
  const unguard = guardProcessGroup(child.pid);
  child.once("close", () => {
    if (child.pid && !groupAlive(child.pid)) unguard();
  });
  return child;
}

export type RunOptions = Omit<SpawnOptions, "extraPipes"> & {
  /** The group is killed at this delay (SIGTERM, SIGKILL after `graceMs`). */
  timeoutMs: number;
  /** Bytes of stdout and of stderr kept each (the first ones); the rest is drained and counted. */
  maxOutputBytes?: number;
  signal?: AbortSignal;
  graceMs?: number;
};

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
  const fd = data === undefined ? undefined : stdinFd(data);
  const env = o.env ? (Object.fromEntries(Object.entries(o.env).filter(([, v]) => v !== undefined)) as Record<string, string>) : undefined;
  let proc: ReturnType<typeof Bun.spawn>;
  try {
    proc = Bun.spawn(argv, {
      cwd: o.cwd,
      env,
      detached: true,
      // Fixed bytes a temp file could not hold go through a pipe Bun writes and closes.
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
  const collect = async (stream: ReadableStream<Uint8Array> | number | undefined): Promise<string> => {
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
  return Promise.all([collect(proc.stdout as ReadableStream<Uint8Array> | undefined), collect(proc.stderr as ReadableStream<Uint8Array> | undefined), exited]).then(
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
  const r = spawnSync(cmd!, args, {
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
  const r = spawnSync(cmd!, args, { stdio: "inherit", cwd: o.cwd, env: o.env as NodeJS.ProcessEnv | undefined });
  return { status: r.status, ...(r.error ? { error: r.error } : {}) };
}
