import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { bashTool } from "../../src/tool/builtin/bash.ts";
import { killAllBackgroundShells, lingeringGroups } from "../../src/tool/builtin/background-shells.ts";
import { alive } from "../helpers/process-alive.ts";
import { makeShellCtx } from "./shell-ctx.ts";
import { waitFor } from "../helpers/wait-for.ts";

const run = (ctx: Parameters<typeof bashTool.run>[1], input: Record<string, unknown>) => bashTool.run(input, ctx);
const text = (r: { content: unknown }) => r.content as string;
const waitDead = (pid: number) => waitFor(() => !alive(pid), `process ${pid} to end`);

describe("Bash output and exit codes (contracts §7.2, §1.4)", () => {
  test("stdout is returned and tool_response has the Claude Code shape", async () => {
    const { ctx } = makeShellCtx();
    const r = await run(ctx, { command: "echo hello" });
    expect(r.isError).toBeFalsy();
    expect(text(r)).toBe("hello");
    expect(r.details).toEqual({ stdout: "hello", stderr: "", interrupted: false, isImage: false, noOutputExpected: false });
  });

  test("stderr only", async () => {
    const { ctx } = makeShellCtx();
    const r = await run(ctx, { command: "echo oops >&2" });
    expect(r.isError).toBeFalsy();
    expect(text(r)).toBe("oops");
    expect(r.details).toMatchObject({ stdout: "", stderr: "oops" });
  });

  test("stdout comes before stderr", async () => {
    const { ctx } = makeShellCtx();
    const r = await run(ctx, { command: "echo err >&2; echo out" });
    expect(text(r)).toBe("out\nerr");
  });

  test("non-zero exit is an error starting with 'Exit code N'", async () => {
    const { ctx } = makeShellCtx();
    const r = await run(ctx, { command: "echo partial; exit 3" });
    expect(r.isError).toBe(true);
    expect(text(r)).toBe("Exit code 3\npartial");
    const r2 = await run(ctx, { command: "false" });
    expect(text(r2)).toBe("Exit code 1");
  });

  test("exit 1 of grep/find/diff/test is a result, not an error (contracts §7.2)", async () => {
    const { ctx } = makeShellCtx();
    const g = await run(ctx, { command: "echo abc | grep -q zzz" });
    expect(g.isError).toBeFalsy();
    expect(text(g)).toBe("(exit code 1: no matches found)");
    const t = await run(ctx, { command: "X=1 test -f /nonexistent-yoke" });
    expect(text(t)).toBe("(exit code 1: the condition is false)");
    const d = await run(ctx, { command: "echo a > a; echo b > b; diff a b" });
    expect(d.isError).toBeFalsy();
    expect(text(d)).toContain("< a\n---\n> b");
    expect(text(d)).toEndWith("(exit code 1: the files differ)");
    const grep2 = await run(ctx, { command: "grep zzz /nonexistent-yoke" });
    expect(grep2.isError).toBe(true); // exit 2 is a real failure
    const notLast = await run(ctx, { command: "grep -q zzz a; false" });
    expect(notLast.isError).toBe(true);
  });

  test("no output", async () => {
    const { ctx } = makeShellCtx();
    const r = await run(ctx, { command: "true" });
    expect(r.isError).toBeFalsy();
    expect(text(r)).toBe("(Bash completed with no output)");
  });

  test("death by signal reports 128+N", async () => {
    const { ctx } = makeShellCtx();
    const r = await run(ctx, { command: "kill -TERM $$" });
    expect(text(r)).toStartWith("Exit code 143");
  });

  test("syntax errors come back from the shell, not from the wrapper", async () => {
    const { ctx } = makeShellCtx();
    const r = await run(ctx, { command: "if then fi (" });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/^Exit code 2\n.*syntax error/s);
  });

  test("the command sees no positional parameters and stdin is /dev/null", async () => {
    const { ctx } = makeShellCtx();
    const r = await run(ctx, { command: 'echo "[$#][$1]"; cat; echo done' });
    expect(text(r)).toBe("[0][]\ndone");
  });

  test("non-UTF-8 bytes become replacement characters", async () => {
    const { ctx } = makeShellCtx();
    const r = await run(ctx, { command: "printf 'a\\377\\376b\\n'" });
    expect(r.isError).toBeFalsy();
    expect(text(r)).toBe("a\uFFFD\uFFFDb");
  });

  test("huge output keeps head and tail within the limit", async () => {
    const { ctx } = makeShellCtx();
    const r = await run(ctx, { command: "seq 1 2000000" });
    const t = text(r);
    expect(t.length).toBeLessThanOrEqual(30_000);
    expect(t.length).toBeGreaterThan(29_000);
    expect(t).toStartWith("1\n2\n3\n");
    expect(t.split("\n\nThe complete output")[0]).toEndWith("1999999\n2000000");
    expect(t).toContain("truncated");
    expect((r.details as { stdout: string }).stdout.length).toBeLessThanOrEqual(30_000);
    // The note states the real size, not the size of what was kept in memory.
    expect(t).toMatch(/output was (\d+) characters/);
    const total = Number(/output was (\d+) characters/.exec(t)![1]);
    expect(total).toBe(Buffer.byteLength(Array.from({ length: 2_000_000 }, (_, i) => i + 1).join("\n")));
  });

  test("truncated output is saved in full to a file named in the result", async () => {
    const { ctx } = makeShellCtx();
    const r = await run(ctx, { command: "seq 1 20000; echo to-stderr >&2" });
    const m = /The complete output .* is in (\S+);/.exec(text(r));
    expect(m).not.toBeNull();
    const full = readFileSync(m![1]!, "utf8");
    expect(full).toContain("1\n2\n3\n"); // stdout and stderr interleave in arrival order, which the OS decides
    expect(full).toContain("\n20000\n");
    expect(full).toContain("to-stderr\n");
    const small = await run(ctx, { command: "seq 1 10" });
    expect(text(small)).not.toContain("complete output");
  });

  test("BASH_MAX_OUTPUT_LENGTH is honoured", async () => {
    const { ctx } = makeShellCtx({ env: { BASH_MAX_OUTPUT_LENGTH: "1000" } });
    const r = await run(ctx, { command: "seq 1 100000; echo tail-marker >&2" });
    const t = text(r);
    expect(t.length).toBeLessThanOrEqual(1000);
    expect(t).toStartWith("1\n2\n");
    expect(t.split("\n\nThe complete output")[0]).toEndWith("tail-marker");
  });

  test("invalid input is reported as an instruction", async () => {
    const { ctx } = makeShellCtx();
    const r = await run(ctx, { command: "  " });
    expect(r.isError).toBe(true);
    expect(text(r)).toContain("InputValidationError");
    const r2 = await run(ctx, { command: "echo", timeout: -5 });
    expect(text(r2)).toContain("timeout");
  });
});

describe("Bash timeouts and interruption kill the process group", () => {
  test("timeout kills the shell and its background child", async () => {
    const { ctx, dir } = makeShellCtx();
    // 2 s, not 400 ms: the shell must have written the pid (whole) and said "before" by then on a busy machine too.
    const r = await run(ctx, { command: `sleep 30 & echo $! > child.part && mv child.part child.pid; echo before; sleep 30`, timeout: 2000 });
    expect(r.isError).toBe(true);
    expect(text(r)).toContain("timed out after 2s");
    expect(text(r)).toContain("before");
    expect((r.details as { interrupted: boolean }).interrupted).toBe(true);
    const pid = Number(readFileSync(join(dir, "child.pid"), "utf8"));
    await waitDead(pid);
  });

  test("a child that ignores SIGTERM is SIGKILLed after the grace", async () => {
    const { ctx, dir } = makeShellCtx();
    // The shell waits for the stubborn child's pid (written whole) instead of 0.2 s, and the timeout leaves a busy
    // machine time to get there: killed before the child wrote it, there was no pid to check.
    const r = await run(ctx, { command: `bash -c 'trap "" TERM; echo $$ > stubborn.part && mv stubborn.part stubborn.pid; sleep 30' & until [ -e stubborn.pid ]; do sleep 0.01; done; sleep 30`, timeout: 2000 });
    expect(r.isError).toBe(true);
    const pid = Number(readFileSync(join(dir, "stubborn.pid"), "utf8"));
    await waitDead(pid);
  });

  test("BASH_DEFAULT_TIMEOUT_MS and BASH_MAX_TIMEOUT_MS from ctx.env", async () => {
    const { ctx } = makeShellCtx({ env: { BASH_DEFAULT_TIMEOUT_MS: "300" } });
    const r = await run(ctx, { command: "sleep 10" });
    expect(text(r)).toContain("timed out after 0.3s");
    const { ctx: ctx2 } = makeShellCtx({ env: { BASH_MAX_TIMEOUT_MS: "300", BASH_DEFAULT_TIMEOUT_MS: "200" } });
    const r2 = await run(ctx2, { command: "sleep 10", timeout: 100_000 });
    expect(text(r2)).toContain("timed out after 0.3s");
  });

  test("abort kills the group and reports an interruption", async () => {
    const ac = new AbortController();
    const { ctx, dir } = makeShellCtx({ signal: ac.signal });
    // Abort once the command has said "working" and started its child (a barrier: at a fixed 300 ms a busy machine
    // had not run the echo yet).
    const pending = run(ctx, { command: "sleep 30 & echo working; echo $! > child.pid.part && mv child.pid.part child.pid; wait" });
    await waitFor(() => existsSync(join(dir, "child.pid")), "the command to start its child");
    ac.abort();
    const r = await pending;
    expect(r.isError).toBe(true);
    expect(text(r)).toContain("interrupted");
    expect(text(r)).toContain("working");
    expect((r.details as { interrupted: boolean }).interrupted).toBe(true);
    await waitDead(Number(readFileSync(join(dir, "child.pid"), "utf8")));
  });

  test("an already aborted call runs nothing", async () => {
    const ac = new AbortController();
    ac.abort();
    const { ctx, dir } = makeShellCtx({ signal: ac.signal });
    const r = await run(ctx, { command: "touch ran" });
    expect(r.isError).toBe(true);
    expect(await Bun.file(join(dir, "ran")).exists()).toBe(false);
  });
});

describe("Bash with a grandchild holding the output pipe", () => {
  test("returns once the main shell exits; the child dies with the session", async () => {
    const { ctx } = makeShellCtx();
    const r = await run(ctx, { command: "sleep 30 & echo $!" });
    expect(r.isError).toBeFalsy();
    const pid = Number(text(r).split("\n")[0]);
    expect(text(r)).toContain("run_in_background");
    expect(alive(pid)).toBe(true);
    expect(lingeringGroups(ctx.session).size).toBe(1);
    await killAllBackgroundShells(ctx.session);
    await waitDead(pid);
  });

  test("a lingering group is forgotten once the holder exits", async () => {
    const { ctx, dir } = makeShellCtx();
    // The holder lives until the test lets it go (a barrier): after a fixed 0.5 s it could end inside the pipe grace
    // when a busy machine ran the shell's exit late, and there was nothing lingering to see.
    const r = await run(ctx, { command: "(until [ -e release ]; do sleep 0.01; done; echo late) & echo early" });
    expect(text(r)).toStartWith("early\n\nNote:");
    expect(text(r)).not.toContain("late");
    expect(lingeringGroups(ctx.session).size).toBe(1);
    writeFileSync(join(dir, "release"), "");
    await waitFor(() => lingeringGroups(ctx.session).size === 0, "the lingering group to be forgotten once its holder exits");
  });

  test("a child with its output redirected does not trigger the note", async () => {
    const { ctx } = makeShellCtx();
    const r = await run(ctx, { command: "sleep 30 > /dev/null 2>&1 & echo $!" });
    expect(text(r)).toMatch(/^\d+$/);
    const pid = Number(text(r));
    process.kill(pid, "SIGKILL");
  });
});

describe("Bash working directory and environment", () => {
  test("cd inside the working directories persists", async () => {
    const { ctx, dir } = makeShellCtx();
    mkdirSync(join(dir, "sub"));
    const r = await run(ctx, { command: "cd sub" });
    expect(text(r)).toBe("(Bash completed with no output)");
    expect(ctx.session.cwd).toBe(join(dir, "sub"));
    expect(text(await run(ctx, { command: "pwd" }))).toBe(join(dir, "sub"));
  });

  test("cd is recorded even when the command exits non-zero", async () => {
    const { ctx, dir } = makeShellCtx();
    mkdirSync(join(dir, "sub"));
    const r = await run(ctx, { command: "cd sub && exit 4" });
    expect(text(r)).toBe("Exit code 4");
    expect(ctx.session.cwd).toBe(join(dir, "sub"));
  });

  test("cd outside the working directories is reset with a note", async () => {
    const { ctx, dir, root } = makeShellCtx();
    const r = await run(ctx, { command: `cd ${root} && echo moved` });
    expect(text(r)).toStartWith("moved\n\n");
    expect(text(r)).toContain("outside the allowed working directories");
    expect(ctx.session.cwd).toBe(dir);
    expect(text(await run(ctx, { command: "pwd" }))).toBe(dir);
  });

  test("cd into an additional working directory persists", async () => {
    const { ctx, root } = makeShellCtx();
    const extra = join(root, "extra");
    mkdirSync(extra);
    ctx.workingDirectories.push(extra);
    await run(ctx, { command: `cd ${extra}` });
    expect(ctx.session.cwd).toBe(extra);
  });

  test("a vanished cwd falls back to the project dir", async () => {
    const { ctx, dir } = makeShellCtx();
    ctx.session.cwd = join(dir, "gone");
    const r = await run(ctx, { command: "pwd" });
    expect(text(r)).toStartWith(`${dir}\n`);
    expect(text(r)).toContain("no longer exists");
    expect(ctx.session.cwd).toBe(dir);
  });

  test("exported variables do not persist between calls", async () => {
    const { ctx } = makeShellCtx();
    await run(ctx, { command: "export YOKE_T=1" });
    expect(text(await run(ctx, { command: "echo ${YOKE_T:-unset}" }))).toBe("unset");
  });

  test("settings env (ctx.env) reaches the command", async () => {
    const { ctx } = makeShellCtx({ env: { FROM_SETTINGS: "settings-value" } });
    expect(text(await run(ctx, { command: "echo $FROM_SETTINGS" }))).toBe("settings-value");
  });

  test("env files are sourced before every command; a missing one is skipped", async () => {
    const { ctx, root } = makeShellCtx();
    const f = join(root, "env.sh");
    writeFileSync(f, "export FROM_ENV_FILE='a b'\nexport PATH=\"/opt/yoke-test:$PATH\"\n");
    ctx.session.envFiles = [join(root, "missing.sh"), f];
    const r = await run(ctx, { command: 'echo "$FROM_ENV_FILE"; echo "$PATH" | cut -d: -f1' });
    expect(r.isError).toBeFalsy();
    expect(text(r)).toBe("a b\n/opt/yoke-test");
    writeFileSync(f, "export FROM_ENV_FILE=changed\n");
    expect(text(await run(ctx, { command: 'echo "$FROM_ENV_FILE"' }))).toBe("changed");
  });

  test("falls back to /bin/sh when bash is not on the PATH yoke started with", async () => {
    const { ctx, dir, root } = makeShellCtx();
    const bin = join(root, "bin");
    mkdirSync(bin);
    mkdirSync(join(dir, "sub"));
    const saved = process.env.PATH;
    process.env.PATH = bin;
    try {
      const r = await run(ctx, { command: 'echo "${BASH_VERSION:-no-bash}"; cd sub; exit 3' });
      expect(text(r)).toBe("Exit code 3\nno-bash");
    } finally {
      process.env.PATH = saved;
    }
    expect(ctx.session.cwd).toBe(join(dir, "sub"));
  });

  test("the session's PATH (settings env) never picks the shell: a bash first on it is not run (issue 16 point 10)", async () => {
    const { ctx, root } = makeShellCtx();
    const bin = join(root, "evil-bin");
    mkdirSync(bin);
    writeFileSync(join(bin, "bash"), `#!/bin/sh\necho EVIL-BASH\n`, { mode: 0o755 });
    ctx.env.PATH = `${bin}:${process.env.PATH}`;
    const r = await run(ctx, { command: 'echo "ran in ${BASH_VERSION:+bash}"' });
    expect(text(r)).toBe("ran in bash");
  });

  test("symlinked project dir: cd inside still persists", async () => {
    const { ctx, root, dir } = makeShellCtx();
    const link = join(root, "link");
    require("node:fs").symlinkSync(dir, link);
    mkdirSync(join(dir, "a"));
    ctx.workingDirectories = [link];
    ctx.session.cwd = link;
    await run(ctx, { command: "cd a" });
    expect(ctx.session.cwd).toBe(realpathSync(join(dir, "a")));
  });
});
