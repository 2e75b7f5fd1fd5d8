/**
 * Finding, building and running the compiled yoke binary for end-to-end tests.
 *
 * yokeBin throws when the build fails (with the build's output) or the binary is still missing
 * afterwards. runYoke never rejects for the child's sake: exit code, signal, output and a timeout
 * flag come back as data; it rejects only if the executable cannot be spawned at all.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { tempDir } from "./tmp.ts";

/** The repository root (this file lives in <root>/test/helpers). */
export const repoRoot = (): string => path.resolve(import.meta.dir, "..", "..");

type Env = Record<string, string | undefined>;

// Inputs of the build: a binary older than any of them is stale and gets rebuilt, so an e2e run
// never tests yesterday's code by accident.
const BUILD_INPUTS = ["src", "plugins", "hooks", "build.ts", "build-plugins.ts", "build-mcp-schemas.ts", "build-elf.ts", "package.json", "bun.lock", "bunfig.toml"];

function newestMtime(p: string): number {
  let st: fs.Stats;
  try {
    st = fs.statSync(p);
  } catch {
    return 0;
  }
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const rel of fs.readdirSync(p, { recursive: true }) as string[]) {
    if (rel.split(path.sep).includes("node_modules")) continue;
    try {
      newest = Math.max(newest, fs.statSync(path.join(p, rel)).mtimeMs);
    } catch {
      // Deleted while walking: it no longer matters for staleness.
    }
  }
  return newest;
}

/** True when <root>/dist/yoke is missing or older than any build input. */
export function binaryIsStale(root: string): boolean {
  const bin = path.join(root, "dist", "yoke");
  if (!fs.existsSync(bin)) return true;
  const binTime = fs.statSync(bin).mtimeMs;
  return BUILD_INPUTS.some((rel) => newestMtime(path.join(root, rel)) > binTime);
}

const pidAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
};

/** Whether the lock was left behind by a dead or long-gone builder. */
function lockIsStale(lock: string): boolean {
  try {
    const pid = Number(fs.readFileSync(lock, "utf8").trim());
    const age = Date.now() - fs.statSync(lock).mtimeMs;
    return !Number.isInteger(pid) || pid <= 0 || !pidAlive(pid) || age > 10 * 60_000;
  } catch {
    return false; // The lock vanished between checks: the builder finished.
  }
}

function runBuild(root: string): void {
  const r = Bun.spawnSync([process.execPath, "run", "build"], {
    cwd: root,
    env: process.env,
    stdout: "pipe",
    stderr: "pipe",
    timeout: 5 * 60_000,
  });
  if (r.exitCode !== 0) {
    throw new Error(
      `yokeBin: \`bun run build\` in ${root} exited ${r.exitCode ?? r.signalCode}:\n${r.stdout.toString()}${r.stderr.toString()}`,
    );
  }
}

const built = new Set<string>();

/**
 * Path of the yoke binary: $YOKE_BIN when set (used as is), else <root>/dist/yoke, built first
 * with `bun run build` when missing or stale. A lock file (<root>/dist/.build.lock holding the
 * builder's pid) makes parallel test processes build once; the others wait for it.
 */
export function yokeBin(opts: { env?: Env; root?: string } = {}): string {
  const env = opts.env ?? process.env;
  if (env.YOKE_BIN) return env.YOKE_BIN;
  const root = opts.root ?? repoRoot();
  const bin = path.join(root, "dist", "yoke");
  if (built.has(bin)) return bin;
  const lock = path.join(root, "dist", ".build.lock");
  fs.mkdirSync(path.dirname(lock), { recursive: true });
  const deadline = Date.now() + 10 * 60_000;
  while (binaryIsStale(root)) {
    // The lock appears with the pid already in it (written to a private file, then hard-linked into place): a lock
    // created empty and filled after would look stale to a waiter reading it in between, which then built as well.
    const mine = `${lock}.${process.pid}`;
    fs.writeFileSync(mine, String(process.pid));
    let owned = false;
    try {
      fs.linkSync(mine, lock);
      owned = true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    } finally {
      fs.rmSync(mine, { force: true });
    }
    if (owned) {
      try {
        // Another process may have finished building between our check and taking the lock.
        if (binaryIsStale(root)) runBuild(root);
      } finally {
        fs.rmSync(lock, { force: true });
      }
      break;
    }
    if (lockIsStale(lock)) {
      fs.rmSync(lock, { force: true });
      continue;
    }
    if (Date.now() > deadline) throw new Error(`yokeBin: gave up waiting for the build lock ${lock}`);
    Bun.sleepSync(100);
  }
  if (!fs.existsSync(bin)) throw new Error(`yokeBin: build finished but ${bin} does not exist`);
  built.add(bin);
  return bin;
}

// Variables a child legitimately needs from the parent; everything else (API keys, CLAUDE_*,
// ANTHROPIC_*, the developer's HOME) stays out.
const PASSTHROUGH = ["PATH", "TMPDIR", "TMP", "TEMP", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "USER", "LOGNAME", "SHELL", "SYSTEMROOT"];

/**
 * An environment for a yoke child that cannot touch the developer's state: a small passthrough
 * of `base` (default process.env), HOME in a fresh temp dir, YOKE_CONFIG_DIR=$HOME/.yoke and
 * CLAUDE_CONFIG_DIR=$HOME/.claude (both created), git's system config off, NO_COLOR=1, the Bash
 * sandbox off (YOKE_SANDBOX=0). `extra`
 * is applied last; an undefined value removes the variable. ANTHROPIC_API_KEY is never inherited.
 */
export function isolatedEnv(extra: Env = {}, base: Env = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const k of PASSTHROUGH) {
    const v = base[k];
    if (v !== undefined) env[k] = v;
  }
  const home = extra.HOME ?? tempDir("yoke-home-");
  env.HOME = home;
  env.YOKE_CONFIG_DIR = extra.YOKE_CONFIG_DIR ?? path.join(home, ".yoke");
  env.CLAUDE_CONFIG_DIR = extra.CLAUDE_CONFIG_DIR ?? path.join(home, ".claude");
  env.GIT_CONFIG_NOSYSTEM = "1";
  env.NO_COLOR = "1";
  // The kernel sandbox is on by default wherever it can start; tests of other features run without it
  // (test/e2e/sandbox.test.ts runs with it: pass YOKE_SANDBOX: undefined to get the default).
  env.YOKE_SANDBOX = "0";
  // The first request waits for every MCP server (each still bounded by MCP_TIMEOUT): a node server can take more
  // than the default 2 s to start on a loaded machine, and tests look for its tools in that request
  // (test/e2e/mcp-first-wait.test.ts covers the default: pass YOKE_MCP_WAIT_MS: undefined to get it).
  env.YOKE_MCP_WAIT_MS = "600000";
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  for (const k of ["YOKE_CONFIG_DIR", "CLAUDE_CONFIG_DIR"]) {
    const dir = env[k];
    if (dir) fs.mkdirSync(dir, { recursive: true });
  }
  return env;
}

/**
 * Env for a run whose temp folder is the test author's own project: its settings, hooks and plugins
 * apply, as in CI with YOKE_TRUST_WORKSPACE=1 (README "Workspace trust"). Without it a folder is
 * untrusted, like a fresh clone.
 */
export const TRUST_WORKSPACE = { YOKE_TRUST_WORKSPACE: "1" } as const;

export type RunYokeOptions = {
  cwd?: string;
  /** Merged over isolatedEnv(); pass HOME etc. to choose the dirs, undefined to remove a variable. */
  env?: Env;
  /** Written to the child's stdin, which is then closed. Without it stdin is /dev/null. */
  stdin?: string | Uint8Array;
  /**
   * Kill (SIGKILL) after this long. Default 45 000: a healthy run on a machine with both cores busy took over 20 s
   * (the old default killed it), and the limit stays under the 60 s test default so a hang still ends in a kill and
   * a clear failure rather than a test timeout that leaves the child running.
   */
  timeoutMs?: number;
  /** Executable to run instead of yokeBin() (e.g. a stub script). */
  bin?: string;
};

export type RunYokeResult = {
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  durationMs: number;
  /** True when runYoke killed the child for exceeding timeoutMs. */
  timedOut: boolean;
  /** The environment the child ran with (find HOME, YOKE_CONFIG_DIR here). */
  env: Record<string, string>;
};

/** Starts yoke with isolated env and piped stdio; the caller owns the process (kill, stdin, exited). */
export function spawnYoke(
  args: string[],
  opts: Omit<RunYokeOptions, "stdin" | "timeoutMs"> = {},
): Bun.Subprocess<"pipe", "pipe", "pipe"> {
  const env = isolatedEnv(opts.env);
  return Bun.spawn([opts.bin ?? yokeBin(), ...args], {
    cwd: opts.cwd ?? env.HOME,
    env,
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
}

/** Reads a stream in the background; text() is whatever has arrived so far. */
function drain(stream: ReadableStream<Uint8Array>): { done: Promise<void>; text(): string; cancel(): void } {
  const decoder = new TextDecoder();
  let text = "";
  const reader = stream.getReader();
  const done = (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
      text += decoder.decode();
    } catch {
      // Cancelled after the grace period: keep what was read.
    }
  })();
  return { done, text: () => text, cancel: () => void reader.cancel().catch(() => {}) };
}

/** Resolves when every drained stream has ended, or when 1 s has passed with no new bytes on any of them. */
async function settlePipes(streams: Array<{ done: Promise<void>; text(): string }>): Promise<void> {
  const ended = Promise.all(streams.map((s) => s.done)).then(() => true);
  const size = () => streams.reduce((n, s) => n + s.text().length, 0);
  for (let seen = size(); ; ) {
    if (await Promise.race([ended, Bun.sleep(1000).then(() => false)])) return;
    // Let reads that became ready while this process was starved run before judging it idle.
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    const now = size();
    if (now === seen) return;
    seen = now;
  }
}

export const RUN_TIMEOUT_MS = 45_000;

/** Runs yoke to completion (or timeout) and collects its output. */
export async function runYoke(args: string[], opts: RunYokeOptions = {}): Promise<RunYokeResult> {
  const env = isolatedEnv(opts.env);
  const started = performance.now();
  const proc = Bun.spawn([opts.bin ?? yokeBin(), ...args], {
    cwd: opts.cwd ?? env.HOME,
    env,
    stdin: opts.stdin === undefined ? "ignore" : "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  if (opts.stdin !== undefined && proc.stdin) {
    try {
      proc.stdin.write(opts.stdin);
      await proc.stdin.end();
    } catch {
      // The child exited without reading its input; its exit status tells the story.
    }
  }
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    proc.kill("SIGKILL");
  }, opts.timeoutMs ?? RUN_TIMEOUT_MS);
  const out = drain(proc.stdout);
  const err = drain(proc.stderr);
  await proc.exited;
  clearTimeout(timer);
  // A grandchild (a backgrounded tool command) may hold the pipes open past yoke's exit: read until both pipes end,
  // or until a second passes with nothing new, then take what arrived rather than hang the test. Idle, not a fixed
  // second: on a starved machine the timer can fire before reads of what yoke wrote before it exited are processed.
  await settlePipes([out, err]);
  out.cancel();
  err.cancel();
  return {
    code: proc.exitCode,
    signal: proc.signalCode == null ? null : String(proc.signalCode),
    stdout: out.text(),
    stderr: err.text(),
    durationMs: Math.round(performance.now() - started),
    timedOut,
    env,
  };
}
