import { describe, expect, test } from "bun:test";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { directArgv, runHookCommand } from "../../src/hook/command.ts";
import { tmp } from "./helpers.ts";

const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: tmp() };
// A limit only a hang reaches: the commands here end at once, but a busy machine can take seconds to start a shell.
const base = { cwd: tmp(), env, stdin: '{"a":1}', timeoutMs: 30_000 };

describe("runHookCommand", () => {
  test("payload on stdin, exit code, both streams", async () => {
    const r = await runHookCommand({ ...base, command: "cat; echo oops >&2; exit 3" });
    expect(r).toMatchObject({ exitCode: 3, stdout: '{"a":1}', stderr: "oops\n", timedOut: false });
  });
  test("stdin is not a socket, so bash does not source ~/.bashrc", async () => {
    writeFileSync(join(env.HOME, ".bashrc"), "echo SOURCED >&2\n");
    const r = await runHookCommand({ ...base, command: "[ -S /dev/stdin ] && echo socket; true" });
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe("");
  });
  test("no controlling terminal (own session)", async () => {
    const r = await runHookCommand({ ...base, command: "exec 3</dev/tty && echo has-tty || echo no-tty" });
    expect(r.stdout.trim()).toBe("no-tty");
  });
  test("a child left holding stdout does not hang the run", async () => {
    const r = await runHookCommand({ ...base, command: "sleep 3 & echo done" });
    expect(r.stdout).toBe("done\n");
  });
  test("exec form: no shell, args passed verbatim", async () => {
    const script = join(base.cwd, "echo-args.sh");
    writeFileSync(script, '#!/bin/sh\nfor a in "$@"; do echo "[$a]"; done\n');
    chmodSync(script, 0o755);
    const r = await runHookCommand({ ...base, command: script, args: ["$HOME", "a;b"] });
    expect(r.stdout).toBe("[$HOME]\n[a;b]\n");
  });
  test("exec form with a missing executable reports spawnError", async () => {
    const r = await runHookCommand({ ...base, command: "/no/such/hook", args: [] });
    expect(r.spawnError).toContain("/no/such/hook");
    expect(r.exitCode).toBeNull();
  });
  test("timeout kills and marks the run", async () => {
    const r = await runHookCommand({ ...base, command: "sleep 10", timeoutMs: 100 });
    expect(r.timedOut).toBe(true);
  });
  test("output beyond the cap is dropped and flagged", async () => {
    const r = await runHookCommand({ ...base, command: "head -c 100000 /dev/zero | tr '\\0' x", maxOutputChars: 1000 });
    expect(r.stdout.length).toBe(1000);
    expect(r.truncated).toBe(true);
  });

  test("plain-word commands skip bash; anything shell-like goes through bash", () => {
    const cwd = base.cwd;
    expect(directArgv("true", cwd, env)?.[0]).toMatch(/\/true$/);
    expect(directArgv("true --x a/b", cwd, env)?.slice(1)).toEqual(["--x", "a/b"]);
    for (const c of ["echo hi", "true; false", "FOO=1 true", "true $HOME", "true 'a'", "true > x", "true *", "cd /", "no-such-cmd-xyz", "./missing.sh"])
      expect(directArgv(c, cwd, env), c).toBeUndefined();
  });
  test("direct exec sets PWD; a script without a shebang falls back to bash", async () => {
    const script = join(base.cwd, "noshebang.sh");
    writeFileSync(script, 'echo "pwd=$PWD"\n');
    chmodSync(script, 0o755);
    expect(directArgv(script, base.cwd, env)).toEqual([script]);
    const r = await runHookCommand({ ...base, command: script });
    expect(r).toMatchObject({ exitCode: 0, stdout: `pwd=${base.cwd}\n` });
  });
  test("a missing command still exits 127 through bash", async () => {
    const r = await runHookCommand({ ...base, command: "no-such-cmd-xyz" });
    expect(r.exitCode).toBe(127);
  });
});

describe("runHookCommand: the async form (contracts §1.6, issue 17.2)", () => {
  const base = { cwd: "/", env: { PATH: process.env.PATH ?? "" }, stdin: "{}", timeoutMs: 10_000 };
  test('{"async":true} on the first line: returns at once, the rest of the run settles later without that line', async () => {
    const dir = tmp();
    const gate = join(dir, "gate");
    const r = await runHookCommand({ ...base, allowAsync: true, command: `echo '{"async":true}'; while [ ! -e ${gate} ]; do sleep 0.01; done; echo '{"systemMessage":"later"}'` });
    // The hook is still waiting for the gate: only the async path can have returned.
    expect(r.background).toBeDefined();
    expect(r.stdout.trim()).toBe('{"async":true}');
    writeFileSync(gate, "");
    const rest = await r.background!;
    expect(rest.exitCode).toBe(0);
    expect(rest.stdout.trim()).toBe('{"systemMessage":"later"}');
  });
  test("a hook that declares async and finishes at once: declaredAsync, stdout is the rest; without allowAsync nothing changes", async () => {
    const cmd = `echo '{"async":true}'; echo '{"systemMessage":"done"}'`;
    const fast = await runHookCommand({ ...base, allowAsync: true, command: cmd });
    if (fast.background) expect((await fast.background).stdout.trim()).toBe('{"systemMessage":"done"}');
    else {
      expect(fast.declaredAsync).toBe(true);
      expect(fast.stdout.trim()).toBe('{"systemMessage":"done"}');
    }
    const plain = await runHookCommand({ ...base, command: cmd });
    expect(plain.background).toBeUndefined();
    expect(plain.stdout).toContain('{"async":true}');
  });
});
