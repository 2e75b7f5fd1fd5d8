/**
 * One run at a time per session (issue 20.7): two runs appending to one transcript fork its chain, and the next
 * resume silently drops a branch. A run holds `<transcript>.lock` (its pid and the pid's start time) while it
 * appends; a second run fails at once naming the holder. The lock of a killed run is stale (its pid is gone, or
 * the pid now belongs to another process, told apart by its start time) and is taken over.
 *
 * acquireSessionLock throws SessionLockedError when a live run holds the lock; other failures (a read-only
 * folder) leave the run unlocked rather than failing it, since the lock protects, it is not the transcript.
 */
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, statSync, unlinkSync, utimesSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { dirname } from "node:path";

export class SessionLockedError extends Error {}

type Holder = { pid: number; start: string | null; at: string; host?: string };

/**
 * A holder on another host (a retried Kubernetes pod, a shared volume) cannot be asked by pid: its lock is a lease
 * that the live run renews every HEARTBEAT_MS, and one not renewed for LEASE_MS is stale.
 */
const HEARTBEAT_MS = 15_000;
export const LEASE_MS = 60_000;

/** Linux: the process state letter (/proc/<pid>/stat field 3); a killed run not yet reaped is a zombie (Z). */
function processState(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0] ?? null;
  } catch {
    return null;
  }
}

/** The start time of a process (Linux: /proc/<pid>/stat field 22, clock ticks since boot); null where unknown. */
export function processStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) is in parentheses and may hold spaces: count fields after the last ')'.
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? null;
  } catch {
    return null;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Whether the lock's holder is gone: dead or zombie pid, a live pid that started at another time (reused), or, for
 * a holder on another host, a lease not renewed for LEASE_MS (`renewedAt`: the lock file's mtime).
 */
export function holderIsStale(h: Holder, renewedAt = Date.now()): boolean {
  if (h.host !== undefined && h.host !== hostname()) return Date.now() - renewedAt > LEASE_MS;
  if (!Number.isInteger(h.pid) || h.pid <= 0 || !alive(h.pid)) return true;
  const state = processState(h.pid);
  if (state === "Z" || state === "X") return true;
  const now = processStart(h.pid);
  return h.start !== null && now !== null && now !== h.start;
}

function mtimeOf(lock: string): number {
  try {
    return statSync(lock).mtimeMs;
  } catch {
    return 0;
  }
}

function readHolder(lock: string): Holder | null {
  try {
    const h = JSON.parse(readFileSync(lock, "utf8")) as Holder;
    return typeof h.pid === "number" ? h : { pid: 0, start: null, at: "" };
  } catch {
    return existsSync(lock) ? { pid: 0, start: null, at: "" } : null; // torn or foreign content: stale
  }
}

/** Takes the lock of the transcript at `path`. Throws SessionLockedError naming the live holder. */
export function acquireSessionLock(path: string, sessionId: string): { release(): void } {
  const lock = `${path}.lock`;
  const me: Holder = { pid: process.pid, start: processStart(process.pid), at: new Date().toISOString(), host: hostname() };
  try {
    mkdirSync(dirname(lock), { recursive: true });
  } catch {
    return { release() {} };
  }
  for (let tries = 0; tries < 3; tries++) {
    let fd: number;
    try {
      fd = openSync(lock, "wx");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") return { release() {} };
      const h = readHolder(lock);
      if (h && !holderIsStale(h, mtimeOf(lock)))
        throw new SessionLockedError(
          `session ${sessionId} is in use by another yoke run (pid ${h.pid}, since ${h.at}): two runs would fork its transcript. ` +
            `Wait for it to end, or branch it with --resume ${sessionId} --fork-session`,
        );
      // Stale (a killed run): take it over. Remove only the lock we judged stale, then race for a fresh one.
      try {
        if (JSON.stringify(readHolder(lock)) === JSON.stringify(h)) unlinkSync(lock);
      } catch {
        // Someone else removed it first: race again.
      }
      continue;
    }
    writeSync(fd, JSON.stringify(me));
    closeSync(fd);
    const heartbeat = setInterval(() => {
      try {
        const t = new Date();
        utimesSync(lock, t, t);
      } catch {
        // The folder went away; the run goes on without renewing.
      }
    }, HEARTBEAT_MS);
    heartbeat.unref();
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      clearInterval(heartbeat);
      process.off("exit", release);
      try {
        const h = readHolder(lock);
        if (h?.pid === me.pid && h.start === me.start) unlinkSync(lock);
      } catch {
        // Already gone.
      }
    };
    process.on("exit", release);
    return { release };
  }
  throw new SessionLockedError(`session ${sessionId}: could not take its lock ${lock} (other runs keep taking it)`);
}
