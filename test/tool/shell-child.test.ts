// Issue 21 (tool turns): the Bash tool starts its shell through Bun.spawn (src/tool/builtin/shell-child.ts) and reads
// the same events it read from Node's ChildProcess. These pin the events' order and meaning, the ones the tool's
// result depends on (contracts §7.2 Bash: output, exit code, a death by signal, a start that failed).
import { describe, expect, test } from "bun:test";
import { spawnPipedShell } from "../../src/tool/builtin/shell-child.ts";
import { bashTool } from "../../src/tool/builtin/bash.ts";
import { alive } from "../helpers/process-alive.ts";
import { tempDir } from "../helpers/tmp.ts";
import { waitFor } from "../helpers/wait-for.ts";
import { makeShellCtx } from "./shell-ctx.ts";

const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };

/** Every event in order, with what it carried. */
function record(argv: string[], cwd = tempDir("yoke-shell-child-"), e: Record<string, string> = env) {
  const events: string[] = [];
  const child = spawnPipedShell(argv, { cwd, env: e });
  const dec = new TextDecoder();
  child.stdout!.on("data", (c: Uint8Array) => events.push(`out:${dec.decode(c)}`));
  child.stderr!.on("data", (c: Uint8Array) => events.push(`err:${dec.decode(c)}`));
  child.once("exit", (code, signal) => events.push(`exit:${code}:${signal}`));
  child.once("error", (err) => events.push(`error:${(err as NodeJS.ErrnoException).code}`));
  const closed = new Promise<void>((r) => child.once("close", () => (events.push("close"), r())));
  return { child, events, closed };
}

describe("the shell's events through Bun.spawn", () => {
  test("output, then exit with its code, then close after every byte", async () => {
    const r = record(["/bin/sh", "-c", "printf a; printf b >&2; exit 3"]);
    await r.closed;
    expect(r.events.filter((e) => e.startsWith("out:")).join("")).toBe("out:a");
    expect(r.events.filter((e) => e.startsWith("err:")).join("")).toBe("err:b");
    expect(r.events.indexOf("exit:3:null")).toBeGreaterThan(-1);
    expect(r.events.at(-1)).toBe("close");
    expect(r.child.pid).toBeGreaterThan(0);
  });

  test("a death by signal: exit with no code and the signal's name", async () => {
    const r = record(["/bin/sh", "-c", "kill -TERM $$"]);
    await r.closed;
    expect(r.events).toContain("exit:null:SIGTERM");
  });

  test("a child that keeps the pipes: exit comes, close waits for the child", async () => {
    const r = record(["/bin/sh", "-c", "sleep 30 & echo $!"]);
    await waitFor(() => r.events.some((e) => e.startsWith("exit:")), "the shell's exit");
    const pid = Number(r.events.find((e) => e.startsWith("out:"))!.slice(4));
    expect(r.events).not.toContain("close");
    process.kill(pid, "SIGKILL");
    await r.closed;
    expect(alive(pid)).toBe(false);
  });

  test("a start that fails: error, then close, both after the caller's listeners are on", async () => {
    const r = record(["/bin/sh", "-c", "true"], "/nonexistent-yoke-dir");
    await r.closed;
    expect(r.events).toEqual(["error:ENOENT", "close"]);
  });
});

test("the Bash tool says a shell that could not start, with exit code 127 (an environment too large for exec)", async () => {
  const { ctx } = makeShellCtx({ env: { HUGE: "x".repeat(3_000_000) } });
  const r = await bashTool.run({ command: "mkdir never" }, ctx);
  expect(r.isError).toBe(true);
  expect(String(r.content)).toMatch(/^Exit code 127\n.*Failed to start the shell: .*E2BIG/s);
});
