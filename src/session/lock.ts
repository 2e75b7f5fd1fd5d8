/**
 * One run at a time per session (issue 20.7): two runs appending to one transcript fork its chain, and the next
 * resume silently drops a branch. A run holds `<transcript>.lock` (its pid and the pid's start time) while it
 * appends; a second run fails at once naming the holder. The lock of a killed run is stale (its pid is gone, or
 * the pid now belongs to another process, told apart by its start time) and is taken over.
 *
 * acquireSessionLock throws SessionLockedError when a live run holds the lock; other failures (a read-only
 * folder) leave the run unlocked rather than failing it, since the lock protects, it is not the transcript.
 */
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import { dirname } from "node:path";

export class SessionLockedError extends Error {}

type Holder = { pid: number; start: string | null; at: string };

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

/** Whether the lock's holder is gone: dead pid, or a live pid that started at another time (reused). */
export function holderIsStale(h: Holder): boolean {
  if (!Number.isInteger(h.pid) || h.pid <= 0 || !alive(h.pid)) return true;
  const now = processStart(h.pid);
  return h.start !== null && now !== null && now !== h.start;
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
  const me: Holder = { pid: process.pid, start: processStart(process.pid), at: new Date().toISOString() };
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
      if (h && !holderIsStale(h))
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
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
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
