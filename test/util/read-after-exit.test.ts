// Issue 21 (tool turns): a child's pipes are taken and read once it exited (src/util/read-after-exit.ts). Bun 1.4.5
// costs the JavaScript heap a 256 KiB buffer for each pipe taken while its child runs and then read empty, and a git
// call's or a hook's two pipes are nearly always empty: those buffers brought a three-turn run's one garbage
// collection into its tool turns. What is measured here is JavaScriptCore's own count of large ("oversized") bytes
// allocated before its first collection, which it prints with BUN_JSC_logGC: bytes, not time.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { readAfterExit } from "../../src/util/read-after-exit.ts";
import { runProcess } from "../../src/util/subprocess.ts";
import { runHookCommand } from "../../src/hook/command.ts";
import { spawnPipedShell } from "../../src/tool/builtin/shell-child.ts";
import { tempDir } from "../helpers/tmp.ts";

const src = join(import.meta.dir, "..", "..", "src");
const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
// Longer than any start of `sh -c 'exit 0'` on a loaded machine: the pipes here are always read after the exit.
const LATE = 30_000;
const RUNS = 6;

/**
 * Runs `body` (RUNS children of one kind at once, each with two empty pipes: one after another, Bun may hand the same
 * buffer on from one child to the next) in a fresh Bun, then allocates small objects until
 * JavaScriptCore collects: its log line gives the large bytes allocated since start, the children's pipe buffers among them.
 */
function oversizedBytes(body: string): number {
  const dir = tempDir("yoke-read-after-exit-");
  const script = join(dir, "probe.ts");
  writeFileSync(
    script,
    `${body}\nlet junk: unknown[] = [];\nfor (let i = 0; i < 3_000_000; i++) { junk.push({ i }); if (junk.length > 1000) junk = []; }\nprocess.exit(0);\n`,
  );
  const r = Bun.spawnSync([process.execPath, script], { env: { ...process.env, BUN_JSC_logGC: "1" }, stdout: "pipe", stderr: "pipe" });
  const log = r.stderr.toString();
  expect(r.exitCode, log.slice(-2000)).toBe(0);
  const m = /oversized bytes: (\d+)/.exec(log);
  if (!m) throw new Error(`no collection logged by BUN_JSC_logGC (a Bun without it?):\n${log.slice(0, 2000)}`);
  return Number(m[1]);
}

describe("readAfterExit", () => {
  test("resolves when the child exits, a timer left behind none the wiser", async () => {
    let exit!: () => void;
    const exited = new Promise<void>((r) => (exit = r));
    let resolved = false;
    const p = readAfterExit(exited, LATE).then(() => (resolved = true));
    await Promise.resolve();
    expect(resolved).toBe(false);
    exit();
    await p;
    expect(resolved).toBe(true);
  });
  test("resolves after its time for a child still running, and on a rejected exit", async () => {
    await readAfterExit(new Promise(() => {}), 1);
    await readAfterExit(Promise.reject(new Error("spawn failed")), LATE);
  });
});

describe("children's empty pipes cost the heap no buffers (issue 21)", () => {
  // Before: at least 256 KiB a child (1.5 MiB for 6 runProcess calls). A read as the child ran costs 64 KiB a pipe or more.
  const bound = 256 * 1024;
  test("runProcess (git and helper commands)", () => {
    const bytes = oversizedBytes(
      `import { runProcess } from ${JSON.stringify(join(src, "util/subprocess.ts"))};\n` +
        `const rs = await Promise.all(Array.from({ length: ${RUNS} }, () => runProcess(["/bin/sh", "-c", "exit 0"], { timeoutMs: 30_000, readAfterMs: ${LATE} })));\n` +
        `if (rs.some((r) => r.code !== 0)) throw new Error(JSON.stringify(rs));`,
    );
    expect(bytes).toBeLessThan(bound);
  });
  test("command hooks", () => {
    const bytes = oversizedBytes(
      `import { runHookCommand } from ${JSON.stringify(join(src, "hook/command.ts"))};\n` +
        `const rs = await Promise.all(Array.from({ length: ${RUNS} }, () => runHookCommand({ command: "exit 0", cwd: "/", env: ${JSON.stringify(env)}, stdin: "{}", timeoutMs: 30_000, readAfterMs: ${LATE} })));\n` +
        `if (rs.some((r) => r.exitCode !== 0)) throw new Error(JSON.stringify(rs));`,
    );
    expect(bytes).toBeLessThan(bound);
  });
  test("the Bash tool's shell", () => {
    const bytes = oversizedBytes(
      `import { spawnPipedShell } from ${JSON.stringify(join(src, "tool/builtin/shell-child.ts"))};\n` +
        `await Promise.all(Array.from({ length: ${RUNS} }, () => new Promise((r) => spawnPipedShell(["/bin/sh", "-c", "exit 0"], { cwd: "/", env: ${JSON.stringify(env)}, readAfterMs: ${LATE} }).once("close", r))));`,
    );
    expect(bytes).toBeLessThan(bound);
  });
});

describe("what is read after the exit is what the child wrote", () => {
  test("runProcess: both streams whole, the cap still applied", async () => {
    const r = await runProcess(["/bin/sh", "-c", "printf out; printf err >&2; head -c 5000 /dev/zero | tr '\\0' x"], { timeoutMs: 30_000, readAfterMs: LATE, maxOutputBytes: 1003 });
    expect(r.stdout).toBe(`out${"x".repeat(1000)}`);
    expect(r.stderr).toBe("err");
    expect(r.cutBytes).toBe(4000);
  });
  test("runProcess: a child still running past readAfterMs is read as it runs (more than a pipe holds)", async () => {
    const r = await runProcess(["/bin/sh", "-c", "head -c 300000 /dev/zero | tr '\\0' y; sleep 0.2"], { timeoutMs: 30_000, readAfterMs: 1 });
    expect(r.stdout.length).toBe(300_000);
  });
  test("a hook: stdout and stderr after its exit, and the async form still seen while it runs", async () => {
    const cwd = tempDir("yoke-read-after-exit-hook-");
    const r = await runHookCommand({ command: "printf out; printf err >&2", cwd, env, stdin: "{}", timeoutMs: 30_000, readAfterMs: LATE });
    expect(r).toMatchObject({ exitCode: 0, stdout: "out", stderr: "err" });
    // The hook waits for the gate: only a read as it runs can have seen its first line.
    const gate = join(cwd, "gate");
    const bg = await runHookCommand({ command: `echo '{"async":true}'; while [ ! -e ${gate} ]; do sleep 0.01; done; echo later`, cwd, env, stdin: "{}", timeoutMs: 60_000, allowAsync: true, readAfterMs: 1 });
    expect(bg.background).toBeDefined();
    expect(bg.stdout).toBe('{"async":true}\n');
    writeFileSync(gate, "");
    expect((await bg.background!).stdout).toBe("later\n");
  });
  test("the Bash tool's shell: exit, then every byte, then close", async () => {
    const child = spawnPipedShell(["/bin/sh", "-c", "printf a; printf b >&2; exit 4"], { cwd: tempDir("yoke-read-after-exit-sh-"), env, readAfterMs: LATE });
    const events: string[] = [];
    const dec = new TextDecoder();
    child.stdout!.on("data", (c: Uint8Array) => events.push(`out:${dec.decode(c)}`));
    child.stderr!.on("data", (c: Uint8Array) => events.push(`err:${dec.decode(c)}`));
    child.once("exit", (code) => events.push(`exit:${code}`));
    await new Promise<void>((r) => child.once("close", () => r()));
    expect(events.slice().sort()).toEqual(["err:b", "exit:4", "out:a"]);
  });
});
