// Issue 21 (tool turns): a Bash call that is a program and plain words runs as the shell's whole `-c` script, so
// bash runs it in place (no fork) and yoke keeps no cwd file for it (src/tool/builtin/bash-direct.ts). Everything the
// wrapper did that such a command could need still happens: directory changes through builtins, functions or
// BASH_ENV are still recorded, and a death by signal is still said (contracts §7.2 Bash).
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { bashTool } from "../../src/tool/builtin/bash.ts";
import { runsDirect, signalLine } from "../../src/tool/builtin/bash-direct.ts";
import { makeShellCtx } from "./shell-ctx.ts";

const run = (ctx: Parameters<typeof bashTool.run>[1], command: string) => bashTool.run({ command }, ctx);
const text = (r: { content: unknown }) => r.content as string;

describe("which commands run without the wrapper", () => {
  test("a program and plain words do; builtins, shell syntax, env files and what the environment can redefine do not", () => {
    for (const c of ["mkdir made", "git status --short", "bun test src/a.test.ts", "./build.sh --fast", "/usr/bin/env", "ls -la /tmp"]) expect([c, runsDirect(c, [], {})]).toEqual([c, true]);
    const wrapped = [
      // builtins, some of which change the shell's directory or run code in it
      "cd sub", "pushd sub", "popd", ". ./env.sh", "source env.sh", "eval cd sub", "builtin cd sub", "command cd sub", "exec ls", "trap cd EXIT", "echo hi", "true",
      // anything the plain parse refuses: operators, quotes, expansions, assignments, reserved words, newlines
      "cd sub && ls", "ls; cd sub", "echo $HOME", "ls 'a b'", "A=1 ls", "if true", "ls\ncd sub", "ls &", "ls | wc -l", "",
    ];
    for (const c of wrapped) expect([c, runsDirect(c, [], {})]).toEqual([c, false]);
    expect(runsDirect("mkdir made", ["/tmp/session-env/hook.sh"], {})).toBe(false);
    expect(runsDirect("mkdir made", [], { BASH_ENV: "/tmp/rc" })).toBe(false);
    expect(runsDirect("mkdir made", [], { ENV: "/tmp/rc" })).toBe(false);
    expect(runsDirect("mkdir made", [], { "BASH_FUNC_mkdir%%": "() {  cd /; }" })).toBe(false);
    expect(runsDirect("mkdir made", [], { BASH_ENV: "" })).toBe(true);
  });

  test("the signal line says what bash says, and nothing for SIGINT, SIGPIPE or a normal exit", () => {
    expect(signalLine("SIGSEGV", 42, "./crash")).toBe("bash: line 1: 42 Segmentation fault      ./crash");
    expect(signalLine("SIGKILL", 7, "big-job")).toBe("bash: line 1: 7 Killed                  big-job");
    expect(signalLine("SIGINT", 7, "x")).toBeUndefined();
    expect(signalLine("SIGPIPE", 7, "x")).toBeUndefined();
    expect(signalLine(null, 7, "x")).toBeUndefined();
  });
});

describe.skipIf(process.platform !== "linux")("Bash runs a plain program in place", () => {
  const ppidOf = (stat: string) => Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);

  test("the program is the shell's process (no fork), and no scratch folder or cwd file is made for it", async () => {
    const { ctx, dir } = makeShellCtx();
    const r = await run(ctx, "cat /proc/self/stat");
    expect(r.isError).toBeFalsy();
    // bash ran cat in its own place: cat's parent is whoever started the shell, this test process.
    expect(ppidOf(text(r))).toBe(process.pid);
    expect(ctx.session.tmpDir).toBeUndefined();
    expect(existsSync(join(dir, "..", `yoke-${ctx.sessionId}`))).toBe(false);
    // A wrapped command still forks, so the check above can fail.
    const w = await run(ctx, "cat /proc/self/stat && true");
    expect(ppidOf(text(w))).not.toBe(process.pid);
  });

  test("what the command sees is what the wrapper gave it: directory, environment, no arguments, stdin at end", async () => {
    const { ctx, dir } = makeShellCtx({ env: { YOKE_SEEN: "yes" } });
    const envOut = text(await run(ctx, "env"));
    expect(envOut).toContain("YOKE_SEEN=yes");
    expect(envOut).toContain(`PWD=${dir}`);
    expect(text(await run(ctx, "pwd"))).toBe(dir); // a builtin: wrapped, same answer
    expect(text(await run(ctx, "/bin/pwd"))).toBe(dir);
    expect(text(await run(ctx, "cat"))).toBe("(Bash completed with no output)");
    const missing = await run(ctx, "no-such-program-yoke --flag");
    expect(missing.isError).toBe(true);
    expect(text(missing)).toMatch(/^Exit code 127\n.*no-such-program-yoke: command not found/s);
  });

  test("long output still spills to a file in the session's scratch folder, made when needed", async () => {
    const { ctx, dir } = makeShellCtx({ env: { BASH_MAX_OUTPUT_LENGTH: "100" } });
    writeFileSync(join(dir, "big.txt"), "x".repeat(5000));
    const r = await run(ctx, "cat big.txt");
    expect(ctx.session.tmpDir).toBeDefined();
    const spilled = readdirSync(ctx.session.tmpDir!).filter((f) => f.startsWith("bash-output-"));
    expect(spilled.length).toBe(1);
    expect(readFileSync(join(ctx.session.tmpDir!, spilled[0]!), "utf8")).toBe("x".repeat(5000));
    expect(text(r)).toContain(join(ctx.session.tmpDir!, spilled[0]!));
  });

  test("a program killed by a signal: exit 128+N and bash's line about it", async () => {
    const { ctx, dir } = makeShellCtx();
    writeFileSync(join(dir, "crash"), "#!/bin/sh\nkill -SEGV $$\n");
    chmodSync(join(dir, "crash"), 0o755);
    const r = await run(ctx, "./crash now");
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/^Exit code 139\n/);
    expect(text(r)).toMatch(/Segmentation fault +\.\/crash now/);
  });

  test("a directory change the environment makes (an exported function, a BASH_ENV file) is still recorded", async () => {
    {
      const { ctx, dir } = makeShellCtx({ env: { "BASH_FUNC_mkdir%%": "() {  cd sub; }" } });
      mkdirSync(join(dir, "sub"));
      await run(ctx, "mkdir other");
      expect(ctx.session.cwd).toBe(join(dir, "sub"));
    }
    {
      const { ctx, dir, root } = makeShellCtx();
      mkdirSync(join(dir, "sub"));
      writeFileSync(join(root, "rc.sh"), `cd ${join(dir, "sub")}\n`);
      ctx.env.BASH_ENV = join(root, "rc.sh");
      await run(ctx, "ls");
      expect(ctx.session.cwd).toBe(join(dir, "sub"));
    }
  });
});

// Red team of 96c3445: the class of commands whose plain words the shell itself still reads.
describe.skipIf(process.platform !== "linux")("plain words the shell reads itself keep the wrapper", () => {
  test("a first word that starts with '-' is a command that is not found, not an option of bash -c", async () => {
    for (const c of ["-x", "-o", "--version", "-i now", "-"]) expect([c, runsDirect(c, [], {})]).toEqual([c, false]);
    const { ctx } = makeShellCtx();
    for (const c of ["-o", "--version", "-x foo"]) {
      const r = await run(ctx, c);
      expect([c, r.isError]).toEqual([c, true]);
      // The wrapper's answer (bash: line N: -o: command not found, exit 127), not bash's option parser's.
      expect(text(r)).toMatch(new RegExp(`^Exit code 127\\n.*${c.split(" ")[0]}: command not found`, "s"));
      expect(text(r)).not.toContain("option");
    }
  });

  test("without bash the shell is sh, whose `chdir` changes its directory: still recorded", async () => {
    expect(runsDirect("chdir sub", [], {})).toBe(false);
    const path = process.env.PATH;
    process.env.PATH = join(makeShellCtx().root, "no-bash-here");
    try {
      const { ctx, dir } = makeShellCtx();
      mkdirSync(join(dir, "sub"));
      await run(ctx, "chdir sub");
      expect(ctx.session.cwd).toBe(join(dir, "sub"));
    } finally {
      process.env.PATH = path;
    }
  });
});

// Run directly, the program is its process group's (and session's) leader, where through the wrapper bash is. util-linux
// setsid forks when it leads its group: `setsid false` came back at once with exit 0, its program left running on its own.
describe.skipIf(process.platform !== "linux" || !Bun.which("setsid"))("setsid keeps the wrapper", () => {
  test("its program's exit status is the call's, as through the wrapper", async () => {
    for (const c of ["setsid sleep 1", "/usr/bin/setsid -f x", "setsid"]) expect([c, runsDirect(c, [], {})]).toEqual([c, false]);
    const { ctx } = makeShellCtx();
    const r = await run(ctx, "setsid false");
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/^Exit code 1\b/);
    expect(text(await run(ctx, "setsid sh -c false"))).toMatch(/^Exit code 1\b/);
  });
});
