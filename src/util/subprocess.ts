/**
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
import { readdirSync, readFileSync } from "node:fs";

/** Pause between SIGTERM and SIGKILL when a process group is stopped. */
export const KILL_GRACE_MS = 1500;

const WATCHDOG = `trap '' INT TERM HUP
groups=" "
while read -r op pg; do
  case "$op" in
    +) groups="$groups$pg " ;;
    -) groups=$(printf '%s' "$groups" | sed "s/ $pg / /") ;;
  esac
done
for pg in $groups; do kill -s KILL -- "-$pg" 2>/dev/null; done`;

let watchdog: { write(line: string): void } | null | undefined;

function startWatchdog(): { write(line: string): void } | null {
  try {
    const proc = Bun.spawn(["/bin/sh", "-c", WATCHDOG], { stdin: "pipe", stdout: "ignore", stderr: "ignore", detached: true });
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
  w.write(`+ ${pgid}\n`);
  let done = false;
  return () => {
    if (done) return;
    done = true;
    w.write(`- ${pgid}\n`);
  };
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

