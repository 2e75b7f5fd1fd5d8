// Red team of issue 21 (cd5c4c9: command hooks start through Bun.spawn): what the Node-spawned hook did, the
// Bun-spawned one does. Variants command.test.ts does not name: the whole group ends on a timeout and on cancel, a
// payload larger than a pipe buffer (read or ignored), a payload that cannot go through a temp file, exactly the env
// given, the cwd, a signal death, a folder that is not there, multibyte text cut across reads.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { runHookCommand } from "../../src/hook/command.ts";
import { alive } from "../helpers/process-alive.ts";
import { waitFor } from "../helpers/wait-for.ts";
import { tmp } from "./helpers.ts";

const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: tmp() };
const base = { cwd: tmp(), env, stdin: '{"a":1}', timeoutMs: 30_000 };

describe("command hooks through Bun.spawn", () => {
  test("a timeout ends the whole group: a grandchild that ignores SIGTERM too", async () => {
    const pidFile = join(tmp(), "grandchild.pid");
    // The pid is written whole (.part, then mv), and 2 s leaves the shell time to write it on a busy machine: killed
    // at 300 ms before its echo, it left an empty file (pid 0) or none.
    const r = await runHookCommand({ ...base, command: `(trap '' TERM; sleep 30) & echo $! > ${pidFile}.part && mv ${pidFile}.part ${pidFile}; wait`, timeoutMs: 2000 });
    expect(r.timedOut).toBe(true);
    const pid = Number(readFileSync(pidFile, "utf8"));
    expect(pid).toBeGreaterThan(0);
    await waitFor(() => !alive(pid), `grandchild ${pid} to end`);
  });

  test("cancel (abort) ends the whole group and marks the run", async () => {
    const pidFile = join(tmp(), "grandchild.pid");
    const ctrl = new AbortController();
    const run = runHookCommand({ ...base, command: `sleep 30 & echo $! > ${pidFile}; wait`, signal: ctrl.signal });
    await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").endsWith("\n"), "grandchild pid");
    ctrl.abort();
    const r = await run;
    expect(r.cancelled).toBe(true);
    const pid = Number(readFileSync(pidFile, "utf8"));
    await waitFor(() => !alive(pid), `grandchild ${pid} to end`);
  });

  test("a payload larger than a pipe buffer arrives whole; a hook that never reads it still ends", async () => {
    const big = JSON.stringify({ x: "y".repeat(300_000) });
    const r = await runHookCommand({ ...base, stdin: big, command: "wc -c" });
    expect(r.stdout.trim()).toBe(String(big.length));
    const ignored = await runHookCommand({ ...base, stdin: big, command: "echo fine" });
    expect(ignored).toMatchObject({ exitCode: 0, stdout: "fine\n", timedOut: false });
  });

  test("no temp file possible (TMPDIR not there): the payload goes through a pipe, whole", async () => {
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = join(tmp(), "missing", "dir");
    try {
      const big = JSON.stringify({ x: "z".repeat(200_000) });
      const r = await runHookCommand({ ...base, stdin: big, command: "wc -c" });
      expect(r.stdout.trim()).toBe(String(big.length));
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
  });

  test("exactly the env given (nothing of yoke's own leaks) and the cwd", async () => {
    process.env.YOKE_RT2_LEAK = "leaked";
    try {
      const r = await runHookCommand({ ...base, env: { ...env, ONLY: "me" }, command: 'echo "$ONLY|${YOKE_RT2_LEAK:-none}|$(pwd -P)"' });
      expect(r.stdout.trim()).toBe(`me|none|${realpathSync(base.cwd)}`);
    } finally {
      delete process.env.YOKE_RT2_LEAK;
    }
  });

  test("a hook killed by a signal: no exit code, the signal named", async () => {
    const r = await runHookCommand({ ...base, command: "kill -KILL $$" });
    expect(r.exitCode).toBeNull();
    expect(r.signal).toBe("SIGKILL");
  });

  test("a cwd that is not there: a spawn error, not a throw", async () => {
    const r = await runHookCommand({ ...base, cwd: join(tmp(), "gone"), command: "echo hi" });
    expect(r.exitCode).toBeNull();
    expect(r.spawnError).toBeTruthy();
  });

  test("multibyte text split across reads comes out whole", async () => {
    const r = await runHookCommand({ ...base, command: "printf '\\xc3'; sleep 0.05; printf '\\xa9\\xe2\\x82'; sleep 0.05; printf '\\xac\\n'" });
    expect(r.stdout).toBe("é€\n");
  });
});
