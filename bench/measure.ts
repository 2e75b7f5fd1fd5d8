/**
 * Running one child process and measuring its wall time and peak resident set size.
 *
 * Why not Bun.spawn's resourceUsage().maxRSS: Bun starts children with vfork/posix_spawn, and Linux
 * carries the parent's RSS high-water mark into the child's ru_maxrss across execve, so a child
 * of a 300 MiB bench process "peaks" at 300 MiB whatever it does (checked on Bun 1.4.5). GNU time
 * forks from a process of a few MiB, so its %M is the child's own peak: that is the first choice.
 * Without it we poll /proc/<pid>/status VmHWM (Linux), which can miss a peak in the last
 * milliseconds before exit; elsewhere RSS is not measured.
 *
 * measure() never rejects for the child's sake: exit code, output and a timeout flag come back as
 * data. It rejects only when the executable cannot be spawned at all.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * "reaper": bench/reap-all.py (python3), which also waits for and counts what the run leaves behind after its exit
 * (its CPU time replaces wait4's); "gnu-time": /usr/bin/time's %M.
 */
export type RssMethod = "reaper" | "gnu-time" | "proc-vmhwm" | "none";

export type Sample = {
  /** performance.now() just before the spawn: wall time and other marks count from here. */
  startedAt: number;
  wallMs: number;
  /**
   * CPU time (user + system) of the process tree, in ms: wait4's usage of the child, which holds what its
   * reaped descendants (hooks, MCP servers) used. On a loaded shared machine it moves far less than wall time.
   * With the "reaper" method, the whole tree's, processes that outlived the child included (reap-all.py).
   */
  cpuMs: number | null;
  /** Peak RSS in KiB, or null when it could not be measured. */
  rssKiB: number | null;
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
};

const GNU_TIME = "/usr/bin/time";

const REAPER = join(import.meta.dir, "reap-all.py");

/**
 * The python3 executable itself, not a launcher in front of it: a pyenv shim is a chain of bash scripts whose own
 * processes would be the reaper's children, counted in its CPU figure. Null without python3.
 */
let pythonPath: string | null | undefined;
function python(): string | null {
  if (pythonPath !== undefined) return pythonPath;
  const r = Bun.which("python3") ? Bun.spawnSync(["python3", "-c", "import sys; print(sys.executable)"], { stderr: "ignore" }) : null;
  const exe = r?.exitCode === 0 ? r.stdout.toString().trim() : "";
  return (pythonPath = exe && existsSync(exe) ? exe : null);
}

/** The best RSS method that works on this machine (the reaper needs python3 and Linux; GNU time must accept -f and -o). */
export function detectRssMethod(): RssMethod {
  const py = python();
  if (py && process.platform === "linux") {
    const dir = mkdtempSync(join(tmpdir(), "yoke-bench-probe-"));
    try {
      const out = join(dir, "m");
      const r = Bun.spawnSync([py, REAPER, out, "true"], { stdout: "ignore", stderr: "ignore" });
      if (r.exitCode === 0 && /^\d+ [\d.]+\s*$/.test(readFileSync(out, "utf8"))) return "reaper";
    } catch {
      // No ctypes or prctl: fall through.
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  if (existsSync(GNU_TIME)) {
    const dir = mkdtempSync(join(tmpdir(), "yoke-bench-probe-"));
    try {
      const out = join(dir, "m");
      const r = Bun.spawnSync([GNU_TIME, "-f", "%M", "-o", out, "true"], { stdout: "ignore", stderr: "ignore" });
      if (r.exitCode === 0 && /^\d+\s*$/m.test(readFileSync(out, "utf8"))) return "gnu-time";
    } catch {
      // Not GNU time (BusyBox/BSD variants lack -o or %M): fall through.
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return existsSync("/proc/self/status") ? "proc-vmhwm" : "none";
}

const vmHwmKiB = (pid: number): number | null => {
  try {
    const m = /^VmHWM:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) : null;
  } catch {
    return null; // Exited between polls.
  }
};

/** Children of pid (Linux), so a timeout can kill the measured process and not only GNU time. */
const childrenOf = (pid: number): number[] => {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((t) =>
      readFileSync(`/proc/${pid}/task/${t}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number),
    );
  } catch {
    return [];
  }
};

async function readAll(stream: ReadableStream<Uint8Array>): Promise<string> {
  try {
    return await new Response(stream).text();
  } catch {
    return "";
  }
}

export type MeasureOptions = {
  cwd: string;
  env: Record<string, string>;
  rss: RssMethod;
  /** SIGKILL after this long. Default 60 000. */
  timeoutMs?: number;
};

/** Runs cmd to completion with stdin closed; wall time runs from spawn to exit. */
export async function measure(cmd: string[], opts: MeasureOptions): Promise<Sample> {
  const scratch = opts.rss === "gnu-time" || opts.rss === "reaper" ? mkdtempSync(join(tmpdir(), "yoke-bench-rss-")) : null;
  const rssFile = scratch ? join(scratch, "maxrss") : "";
  const argv = opts.rss === "reaper" ? [python() ?? "python3", REAPER, rssFile, ...cmd] : scratch ? [GNU_TIME, "-f", "%M", "-o", rssFile, ...cmd] : cmd;
  const started = performance.now();
  const proc = Bun.spawn(argv, { cwd: opts.cwd, env: opts.env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    for (const c of childrenOf(proc.pid)) {
      try {
        process.kill(c, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
    proc.kill("SIGKILL");
  }, opts.timeoutMs ?? 60_000);
  let polledKiB: number | null = null;
  let polling = opts.rss === "proc-vmhwm";
  const poller = (async () => {
    while (polling) {
      const v = vmHwmKiB(proc.pid);
      if (v !== null) polledKiB = Math.max(polledKiB ?? 0, v);
      await Bun.sleep(1);
    }
  })();
  const stdout = readAll(proc.stdout);
  const stderr = readAll(proc.stderr);
  await proc.exited;
  const wallMs = performance.now() - started;
  polling = false;
  clearTimeout(timer);
  await poller;
  let rssKiB: number | null = polledKiB;
  let treeCpuMs: number | null = null;
  if (opts.rss === "reaper") {
    try {
      const m = /^(\d+) ([\d.]+)/.exec(readFileSync(rssFile, "utf8"));
      rssKiB = m ? Number(m[1]) : null;
      treeCpuMs = m ? Number(m[2]) : null;
    } catch {
      rssKiB = null;
    }
    rmSync(scratch!, { recursive: true, force: true });
  } else if (scratch) {
    try {
      // GNU time writes "Command exited with non-zero status N" before %M on failure: take the last number.
      const nums = readFileSync(rssFile, "utf8").match(/^\d+$/gm);
      rssKiB = nums ? Number(nums.at(-1)) : null;
    } catch {
      rssKiB = null;
    }
    rmSync(scratch, { recursive: true, force: true });
  }
  const usage = proc.resourceUsage();
  // The reaper's own CPU is in wait4's usage; the tree's, without it, is in its file.
  const cpuMs = opts.rss === "reaper" ? treeCpuMs : usage ? (Number(usage.cpuTime.user) + Number(usage.cpuTime.system)) / 1000 : null;
  return { startedAt: started, wallMs, cpuMs, rssKiB, code: proc.exitCode, stdout: await stdout, stderr: await stderr, timedOut };
}

export type Stats = { median: number; min: number; max: number; samples: number[] };

/** Median (mean of the middle two for an even count), min and max; null for no samples. */
export function stats(values: number[]): Stats | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  const median = s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
  return { median, min: s[0]!, max: s.at(-1)!, samples: values };
}
