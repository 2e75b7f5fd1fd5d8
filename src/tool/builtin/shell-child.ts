import type { ChildProcess } from "node:child_process";
import { EventEmitter } from "node:events";
import { spawnPiped } from "../../util/subprocess.ts";
import { readAfterExit } from "../../util/read-after-exit.ts";

/** A command still running after this is read as it runs (its output reaches the terminal's live tail by then). */
const SHELL_READ_AFTER_MS = 100;

/** What the Bash tool reads of its shell's process: Node's ChildProcess, or the same events from Bun's spawn. */
export type ShellChild = Pick<ChildProcess, "pid" | "stdout" | "stderr" | "stdio" | "once" | "on">;

/**
 * Starts `argv` as spawnProcess would (own process group, watchdog token, stdin at end of file) through Bun.spawn, and
 * gives the ChildProcess events the Bash tool listens to: `data` on stdout and stderr, `exit` (code, signal), `close`
 * once both pipes ended and the process exited, `error` (then `close`) when it could not start. Node's ChildProcess and
 * its stream objects cost ~1.5 ms more CPU per command (util/subprocess.ts runProcess; issue 21: a Bash call's path).
 */
export function spawnPipedShell(argv: string[], o: { cwd: string; env: Record<string, string>; readAfterMs?: number }): ShellChild {
  const child = new EventEmitter() as EventEmitter & { pid?: number; stdout: EventEmitter; stderr: EventEmitter; stdio: unknown[] };
  child.stdout = new EventEmitter();
  child.stderr = new EventEmitter();
  child.stdio = [null, child.stdout, child.stderr];
  let proc: ReturnType<typeof spawnPiped>;
  try {
    proc = spawnPiped(argv, { cwd: o.cwd, env: o.env, stdin: "ignore" });
  } catch (e) {
    // After the caller's listeners are on (Node emits a failed start the same way, later than the spawn call).
    setImmediate(() => {
      child.emit("error", e instanceof Error ? e : new Error(String(e)));
      child.emit("close", null, null);
    });
    return child as unknown as ShellChild;
  }
  child.pid = proc.pid;
  // The pipes are taken once the command exited (its output in one buffer each), or as it runs when it takes longer;
  // not before: taking one early costs the heap 256 KiB even when it stays empty (util/read-after-exit.ts).
  const readable = readAfterExit(proc.exited, o.readAfterMs ?? SHELL_READ_AFTER_MS);
  const pump = async (take: () => ReadableStream<Uint8Array>, to: EventEmitter) => {
    try {
      await readable;
      for await (const c of take()) to.emit("data", c);
    } catch {
      // A pipe that fails reads as ended.
    }
  };
  const drained = Promise.all([pump(() => proc.stdout, child.stdout), pump(() => proc.stderr, child.stderr)]);
  void proc.exited.then(() => {
    child.emit("exit", proc.exitCode, proc.signalCode);
    void drained.then(() => child.emit("close", proc.exitCode, proc.signalCode));
  });
  return child as unknown as ShellChild;
}
