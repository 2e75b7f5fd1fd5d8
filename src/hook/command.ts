/** What one command-hook process did. `spawnError` is set when it could not start at all. */
export type CommandRun = {
  exitCode: number | null;
  signal?: string;
  stdout: string;
  stderr: string;
  durationMs: number;
  timedOut: boolean;
  cancelled: boolean;
  spawnError?: string;
  /** Output beyond `maxOutputChars` was dropped. */
  truncated: boolean;
  /**
   * The hook declared itself async (`{"async":true}` as the first line of its stdout, contracts §1.6): it was left
   * running, and this settles with the rest of its run (stdout without that first line). Absent otherwise.
   */
  background?: Promise<CommandRun>;
  /** The first line declared the hook async but it had already finished: `stdout` is the rest. */
  declaredAsync?: boolean;
};

export type CommandRunOptions = {
  /** Shell string (shell form), or the executable when `args` is given (exec form). */
  command: string;
  args?: string[];
  cwd: string;
  env: Record<string, string>;
  /** Compact JSON payload written to stdin. */
  stdin: string;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Cap per stream on what is kept in memory (default 1,000,000 chars). */
  maxOutputChars?: number;
  /** Watch the first stdout line for `{"async":true}` and return at once when it comes (see CommandRun.background). */
  allowAsync?: boolean;
  /** How long the pipes wait for the hook's exit before they are read as it runs (default HOOK_READ_AFTER_MS). */
  readAfterMs?: number;
};

/** contracts §1.6 async form: `{"async": true, "asyncTimeout"?: ms}` alone on the first line. */
function asyncDeclaration(line: string): { timeoutMs?: number } | null {
  const t = line.trim();
  if (!t.startsWith("{")) return null;
  try {
    const v = JSON.parse(t) as Record<string, unknown>;
    if (!v || v.async !== true) return null;
    return typeof v.asyncTimeout === "number" && v.asyncTimeout > 0 ? { timeoutMs: v.asyncTimeout } : {};
  } catch {
    return null;
  }
}

import { accessSync, constants, statSync } from "node:fs";
import { resolve } from "node:path";
import { killGroup, type PipedChild, spawnPiped } from "../util/subprocess.ts";
import { readAfterExit } from "../util/read-after-exit.ts";
import { markEach } from "../util/mark-each.ts";

let bashPath: string | undefined;
const bash = (): string => (bashPath ??= Bun.which("bash") ?? "/bin/bash");

// A command of plain words (no quotes, `$`, globs, redirections, separators) means the same to bash as
// a direct exec, and skipping bash's startup is most of a hook's cost. Anything else goes to bash.
const SIMPLE = /^[A-Za-z0-9_.\/:@%+,=-]+( +[A-Za-z0-9_.\/:@%+,=-]+)*$/;
// Builtins whose external twin (if any) behaves differently, or that only make sense in a shell.
const SHELL_ONLY = new Set(
  "cd exit export source . eval exec set unset alias read wait trap shift return break continue declare local readonly typeset ulimit umask builtin command type hash let times jobs fg bg disown suspend shopt enable history fc getopts kill test [ printf echo pwd".split(" "),
);

/** The argv for a direct exec of a plain-words shell command, or undefined when bash is needed. */
export function directArgv(command: string, cwd: string, env: Record<string, string>): string[] | undefined {
  const c = command.trim();
  if (!SIMPLE.test(c)) return undefined;
  const words = c.split(/ +/);
  const first = words[0]!;
  if (first.includes("=") || SHELL_ONLY.has(first)) return undefined;
  let exe: string | null = null;
  if (first.includes("/")) {
    const p = resolve(cwd, first);
    try {
      accessSync(p, constants.X_OK);
      if (statSync(p).isFile()) exe = p;
    } catch {
      exe = null;
    }
  } else exe = Bun.which(first, { PATH: env.PATH ?? "", cwd });
  return exe ? [exe, ...words.slice(1)] : undefined;
}

// After the hook exits, a child it left running may still hold stdout open; stop reading soon after.
const DRAIN_GRACE_MS = 200;
// A hook still running after this is read as it runs (its `{"async":true}` line seen then at the latest).
const HOOK_READ_AFTER_MS = 100;

/** Reads the pipe `take` gives once `readable` resolved (not before: src/util/read-after-exit.ts), up to `cap` chars. */
async function readCapped(take: () => ReadableStream<Uint8Array>, cap: number, readable: Promise<void>, stopped: Promise<void>, onText?: (text: string) => void) {
  const dec = new TextDecoder();
  let text = "";
  let truncated = false;
  await readable;
  const reader = take().getReader();
  // After the grace period: keep what arrived (a pending read ends as done).
  void stopped.then(() => reader.cancel().catch(() => {}));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (text.length < cap) text += dec.decode(value, { stream: true });
      else truncated = true;
      onText?.(text);
    }
  } catch {
    // the pipe failed: keep what arrived
  }
  text += dec.decode();
  if (text.length > cap) {
    text = text.slice(0, cap);
    truncated = true;
  }
  return { text, truncated };
}

/** The longest delay a timer holds (2^31-1 ms, about 24.8 days); a longer one fires at once, which killed guards after 1 ms. */
export const MAX_TIMER_MS = 2_147_483_647;

/** A timeout as a timer can hold it: at most MAX_TIMER_MS, at least 1 ms; a value that is no number waits the longest. Pure. */
export const clampTimerMs = (ms: number): number => (Number.isFinite(ms) ? Math.min(Math.max(1, ms), MAX_TIMER_MS) : MAX_TIMER_MS);


/**
 * Runs one command hook in its own process group (setsid: no controlling terminal) with the payload
 * on stdin. Shell form runs `bash -c command`; exec form runs `command ...args` without a shell.
 * At `timeoutMs` or on `signal` abort the whole group is killed. Never throws: a hook that cannot
 * start comes back with `spawnError`.
 */
export async function runHookCommand(o: CommandRunOptions): Promise<CommandRun> {
  const started = performance.now();
  const cap = o.maxOutputChars ?? 1_000_000;
  const base = { stdout: "", stderr: "", timedOut: false, cancelled: false, truncated: false };
  if (o.signal?.aborted) return { ...base, exitCode: null, cancelled: true, durationMs: 0 };
  // bash exports PWD to what it runs; the direct path must too.
  const env = { ...o.env, PWD: o.cwd };
  const shellArgv = [bash(), "-c", o.command];
  const direct = o.args ? undefined : directArgv(o.command, o.cwd, env);
  // The payload is a file on stdin, not a socket: bash sources ~/.bashrc when stdin is a socket (its rsh heuristic).
  // spawnPiped: Bun's spawn, own process group, dies with yoke even under SIGKILL (issue 20.8); it throws when the program cannot start.
  const start = (argv: string[]) => spawnPiped(argv, { cwd: o.cwd, env, stdin: { data: o.stdin } });
  let proc: PipedChild;
  try {
    if (o.args) proc = start([o.command, ...o.args]);
    else if (direct) {
      try {
        proc = start(direct);
      } catch {
        proc = start(shellArgv); // e.g. a script without a shebang: bash knows what to do
      }
    } else proc = start(shellArgv);
  } catch (e) {
    return { ...base, exitCode: null, durationMs: performance.now() - started, spawnError: (e as Error).message };
  }
  const exit = proc.exited.then(() => ({ code: proc.exitCode, signal: proc.signalCode }));
  markEach("hook-spawned");
  const pid = proc.pid;
  let timedOut = false;
  let cancelled = false;
  const kill = () => {
    timedOut = true;
    void killGroup(pid, 0); // at once: a hook past its time gets no grace
  };
  let timer = setTimeout(kill, clampTimerMs(o.timeoutMs));
  const onAbort = () => {
    cancelled = true;
    void killGroup(pid, 0); // at once: a hook past its time gets no grace
  };
  o.signal?.addEventListener("abort", onAbort, { once: true });

  // The first stdout line decides whether the hook goes to the background.
  let firstLine: string | null = null;
  let declared: { timeoutMs?: number } | null = null;
  let declare!: () => void;
  const asyncDeclared = new Promise<void>((r) => (declare = r));
  const watch = o.allowAsync
    ? (text: string) => {
        if (firstLine !== null) return;
        const nl = text.indexOf("\n");
        if (nl === -1) return;
        firstLine = text.slice(0, nl + 1);
        declared = asyncDeclaration(firstLine);
        if (declared) declare();
      }
    : undefined;

  let stopReading!: () => void;
  const stopped = new Promise<void>((r) => (stopReading = r));
  // The pipes are taken once the hook exited (its output in one buffer each), or as it runs when it takes longer: a
  // hook that goes to the background is seen HOOK_READ_AFTER_MS after its first line at most (read-after-exit.ts).
  const readable = readAfterExit(proc.exited, o.readAfterMs ?? HOOK_READ_AFTER_MS);
  const outP = readCapped(() => proc.stdout, cap, readable, stopped, watch);
  const errP = readCapped(() => proc.stderr, cap, readable, stopped);
  const finished = (async (): Promise<CommandRun> => {
    const ended = await exit;
    markEach("hook-exited");
    clearTimeout(timer);
    o.signal?.removeEventListener("abort", onAbort);
    const grace = setTimeout(stopReading, timedOut || cancelled ? 0 : DRAIN_GRACE_MS);
    const [out, err] = await Promise.all([outP, errP]);
    clearTimeout(grace);
    const run: CommandRun = {
      exitCode: ended.code,
      signal: ended.signal == null ? undefined : String(ended.signal),
      stdout: out.text,
      stderr: err.text,
      durationMs: performance.now() - started,
      timedOut,
      cancelled,
      truncated: out.truncated || err.truncated,
    };
    // A hook that declared itself async and then finished anyway: the rest of stdout is its output.
    if (declared && firstLine !== null) return { ...run, stdout: run.stdout.slice((firstLine as string).length), declaredAsync: true };
    return run;
  })();
  const first = await Promise.race([finished, asyncDeclared.then(() => null)]);
  if (first) return first;
  // Backgrounded: the step's abort no longer reaches it, and its own asyncTimeout (else the hook's timeout) applies.
  o.signal?.removeEventListener("abort", onAbort);
  clearTimeout(timer);
  timer = setTimeout(kill, clampTimerMs((declared as { timeoutMs?: number } | null)?.timeoutMs ?? o.timeoutMs));
  return {
    exitCode: null,
    stdout: firstLine ?? "",
    stderr: "",
    durationMs: performance.now() - started,
    timedOut: false,
    cancelled: false,
    truncated: false,
    background: finished,
  };
}
