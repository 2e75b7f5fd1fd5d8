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
};

let bashPath: string | undefined;
const bash = (): string => (bashPath ??= Bun.which("bash") ?? "/bin/bash");

// After the hook exits, a child it left running may still hold stdout open; stop reading soon after.
const DRAIN_GRACE_MS = 200;

async function readCapped(stream: ReadableStream<Uint8Array>, cap: number, stopped: Promise<void>) {
  const reader = stream.getReader();
  const dec = new TextDecoder();
  let text = "";
  let truncated = false;
  let done = false;
  stopped.then(() => {
    if (!done) reader.cancel().catch(() => {});
  });
  try {
    for (;;) {
      const r = await reader.read();
      if (r.done) break;
      if (text.length < cap) text += dec.decode(r.value, { stream: true });
      else truncated = true;
    }
    text += dec.decode();
  } catch {
    // cancelled after the grace period: keep what arrived
  }
  done = true;
  if (text.length > cap) {
    text = text.slice(0, cap);
    truncated = true;
  }
  return { text, truncated };
}

function killGroup(pid: number) {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
}

/**
 * Runs one command hook in its own process group (setsid: no controlling terminal) with the payload
 * on stdin. Shell form runs `bash -c command`; exec form runs `command ...args` without a shell.
 * At `timeoutMs` or on `signal` abort the whole group is killed. Never throws: a hook that cannot
 * start comes back with `spawnError`.
 */
export async function runHookCommand(o: CommandRunOptions): Promise<CommandRun> {
  const started = performance.now();
  const cap = o.maxOutputChars ?? 1_000_000;
  const argv = o.args ? [o.command, ...o.args] : [bash(), "-c", o.command];
  const base = { stdout: "", stderr: "", timedOut: false, cancelled: false, truncated: false };
  if (o.signal?.aborted) return { ...base, exitCode: null, cancelled: true, durationMs: 0 };
  let proc: ReturnType<typeof Bun.spawn<Blob, "pipe", "pipe">>;
  try {
    proc = Bun.spawn(argv, {
      cwd: o.cwd,
      env: o.env,
      // Not a socket: bash sources ~/.bashrc when stdin is a socket (its rsh heuristic), slow and surprising.
      stdin: new Blob([o.stdin]),
      stdout: "pipe",
      stderr: "pipe",
      detached: true,
    });
  } catch (e) {
    return { ...base, exitCode: null, durationMs: performance.now() - started, spawnError: (e as Error).message };
  }
  let timedOut = false;
  let cancelled = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup(proc.pid);
  }, o.timeoutMs);
  const onAbort = () => {
    cancelled = true;
    killGroup(proc.pid);
  };
  o.signal?.addEventListener("abort", onAbort, { once: true });

  let stopReading!: () => void;
  const stopped = new Promise<void>((r) => (stopReading = r));
  const outP = readCapped(proc.stdout, cap, stopped);
  const errP = readCapped(proc.stderr, cap, stopped);
  await proc.exited;
  clearTimeout(timer);
  o.signal?.removeEventListener("abort", onAbort);
  const grace = setTimeout(stopReading, timedOut || cancelled ? 0 : DRAIN_GRACE_MS);
  const [out, err] = await Promise.all([outP, errP]);
  clearTimeout(grace);
  return {
    exitCode: proc.exitCode,
    signal: proc.signalCode == null ? undefined : String(proc.signalCode),
    stdout: out.text,
    stderr: err.text,
    durationMs: performance.now() - started,
    timedOut,
    cancelled,
    truncated: out.truncated || err.truncated,
  };
}
