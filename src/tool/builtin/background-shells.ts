import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { SessionToolState, ToolContext } from "../types.ts";
import { DEFAULT_SPILL_MAX_BYTES, envInt, exitStatus, killGroup, sessionTempDir, spawnShell, spillSink, type ShellLauncher } from "./shell-exec.ts";

/** Characters of unread output kept in memory per stream; older unread text is dropped (the file keeps it). */
export const UNREAD_CAP_CHARS = 1_000_000;

/** contracts §7.2: background commands may run for at most 2 hours. */
export const MAX_BACKGROUND_TIMEOUT_MS = 7_200_000;

export type ShellStatus = "running" | "completed" | "killed";

/** One `run_in_background` command. Lives in `session.shells`. */
export type BackgroundShell = {
  id: string;
  command: string;
  description?: string;
  pid: number;
  startedAt: number;
  status: ShellStatus;
  exitCode: number | null;
  /**
   * stdout and stderr as they arrived, capped like spill files (YOKE_SPILL_MAX_BYTES, 64 MiB): past the cap the
   * file keeps its newest half under a first line saying how many bytes were cut (issue 20 point 4).
   */
  outputFile: string;
  /** True until both output pipes closed (a child of the command may hold them after it exits). */
  outputOpen: boolean;
  /** Output not yet returned by BashOutput. */
  unread: { stdout: string; stderr: string; dropped: number };
  /** Resolves when the pipes closed, or shortly after the shell exited if a child holds them. */
  done: Promise<void>;
};

type Registry = Map<string, BackgroundShell>;

/** The session's background shells by ID, created on first use. Never throws. */
export function shellRegistry(session: SessionToolState): Registry {
  return (session.shells ??= new Map());
}

/**
 * Process groups of foreground commands whose background children still hold our output pipe.
 * They are left running (the user may want them) but die with the session.
 */
export function lingeringGroups(session: SessionToolState): Set<number> {
  return (session.lingeringGroups ??= new Set());
}

function appendUnread(sh: BackgroundShell, key: "stdout" | "stderr", text: string): void {
  let s = sh.unread[key] + text;
  if (s.length > UNREAD_CAP_CHARS) {
    sh.unread.dropped += s.length - UNREAD_CAP_CHARS;
    s = s.slice(s.length - UNREAD_CAP_CHARS);
  }
  sh.unread[key] = s;
}

/**
 * Starts `command` in the background in its own process group. Returns the shell record.
 * May throw if the session temp dir cannot be created; a spawn failure marks the shell completed
 * with exit code 127 and the error in its stderr.
 */
export function startBackgroundShell(
  ctx: ToolContext,
  o: { command: string; description?: string; cwd: string; timeoutMs?: number; launch?: ShellLauncher; onEnd?: () => void },
): BackgroundShell {
  const reg = shellRegistry(ctx.session);
  const id = `bash_${reg.size + 1}`;
  const outputFile = join(sessionTempDir(ctx), `${id}.output`);
  writeFileSync(outputFile, "");
  const child = (o.launch ?? spawnShell)({ command: o.command, cwd: o.cwd, env: ctx.env, envFiles: ctx.session.envFiles });
  let resolveDone!: () => void;
  const sh: BackgroundShell = {
    id,
    command: o.command,
    description: o.description,
    pid: child.pid ?? -1,
    startedAt: Date.now(),
    status: "running",
    exitCode: null,
    outputFile,
    outputOpen: true,
    unread: { stdout: "", stderr: "", dropped: 0 },
    done: new Promise((r) => (resolveDone = r)),
  };
  reg.set(id, sh);
  // The file is a convenience (memory keeps the unread tail regardless); the sink never throws.
  const file = spillSink(0, outputFile, envInt(ctx.env, "YOKE_SPILL_MAX_BYTES", DEFAULT_SPILL_MAX_BYTES));
  for (const key of ["stdout", "stderr"] as const) {
    const dec = new TextDecoder("utf-8");
    child[key]?.on("data", (chunk: Uint8Array) => {
      file.push(chunk);
      appendUnread(sh, key, dec.decode(chunk, { stream: true }));
    });
  }
  const timer = o.timeoutMs ? setTimeout(() => void killShell(sh), Math.min(o.timeoutMs, MAX_BACKGROUND_TIMEOUT_MS)) : undefined;
  let ended = false;
  const end = (exitCode: number) => {
    if (ended) return;
    ended = true;
    o.onEnd?.();
    clearTimeout(timer);
    sh.exitCode = exitCode;
    if (sh.status === "running") sh.status = "completed";
  };
  child.on("error", (err) => {
    appendUnread(sh, "stderr", `Failed to start: ${err.message}\n`);
    end(127);
    sh.outputOpen = false;
    resolveDone();
  });
  // The command is over when the shell exits; output may still trickle in from children that
  // hold the pipes, and is collected until the pipes close.
  child.on("exit", (code, signal) => {
    end(exitStatus(code, signal));
    setTimeout(resolveDone, 300).unref();
  });
  child.on("close", (code, signal) => {
    end(exitStatus(code, signal));
    file.close();
    sh.outputOpen = false;
    resolveDone();
  });
  return sh;
}

/**
 * Kills the shell's process group (SIGTERM, then SIGKILL after a grace) if it still runs or a child
 * still holds its output. Resolves when done. Never throws.
 */
export async function killShell(sh: BackgroundShell): Promise<void> {
  if (sh.status !== "running" && !sh.outputOpen) return;
  if (sh.status === "running") sh.status = "killed";
  if (sh.pid > 0) await killGroup(sh.pid);
  await Promise.race([sh.done, Bun.sleep(500)]);
}

/**
 * Kills every running background shell of the session and every lingering process group left by
 * foreground commands. Call on session end. Resolves when all are gone. Never throws.
 */
export async function killAllBackgroundShells(session: SessionToolState): Promise<void> {
  const shells = [...shellRegistry(session).values()].filter((s) => s.status === "running" || s.outputOpen);
  const groups = [...lingeringGroups(session)];
  lingeringGroups(session).clear();
  await Promise.all([...shells.map(killShell), ...groups.map((g) => killGroup(g))]);
}

/**
 * The Stop payload's `background_tasks` (contracts §1.4): the shells still running, each as Claude Code 2.1.332
 * sends it (observed: `{id, type: "shell", status: "running", description, command}`, the command standing in
 * for a missing description).
 */
export function runningBackgroundTasks(session: SessionToolState): Array<{ id: string; type: "shell"; status: "running"; description: string; command: string }> {
  return [...shellRegistry(session).values()]
    .filter((s) => s.status === "running")
    .map((s) => ({ id: s.id, type: "shell" as const, status: "running" as const, description: s.description || s.command, command: s.command }));
}

/** Takes the unread output of a shell, optionally keeping only lines that match `filter`. */
export function takeUnread(sh: BackgroundShell, filter?: RegExp): { stdout: string; stderr: string; dropped: number } {
  const keep = (s: string) => (filter ? s.split("\n").filter((l) => filter.test(l)).join("\n") : s);
  // A partial last line stays unread when the shell still runs, so a filter never sees half a line.
  const split = (s: string): [string, string] => {
    if (!filter || !sh.outputOpen) return [s, ""];
    const nl = s.lastIndexOf("\n");
    return nl < 0 ? ["", s] : [s.slice(0, nl + 1), s.slice(nl + 1)];
  };
  const [out, outRest] = split(sh.unread.stdout);
  const [err, errRest] = split(sh.unread.stderr);
  const dropped = sh.unread.dropped;
  sh.unread = { stdout: outRest, stderr: errRest, dropped: 0 };
  return { stdout: keep(out), stderr: keep(err), dropped };
}
