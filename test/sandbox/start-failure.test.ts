// Issue 16 review point 4: when the sandbox fails before a command starts, the Bash tool says what failed and
// what to do, from the sandbox's own word (the line announces on fd 3 when the command starts), never by reading
// the command's output. Real bubblewrap, a real kept sandbox, and an nsenter that refuses to join.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { LoadedSettings } from "../../src/config/load.ts";
import { createPermissionEvaluator } from "../../src/permission/index.ts";
import { createBashSandbox, probeSandbox, type SandboxSetup } from "../../src/sandbox/index.ts";
import { failedStage, startFailure } from "../../src/sandbox/start-failure.ts";
import { bashTool } from "../../src/tool/builtin/bash.ts";
import { makeCtx } from "../tool/ctx.ts";
import { tempDir } from "../helpers/tmp.ts";

describe("the message names what failed and what to do", () => {
  test("each stage by the tool's own words", () => {
    expect(failedStage("nsenter: reassociate to namespace 'ns/user' failed: Operation not permitted\n")).toEqual({ stage: "nsenter", said: "nsenter: reassociate to namespace 'ns/user' failed: Operation not permitted" });
    expect(failedStage("noise\nbwrap: Can't mount proc on /newroot/proc: Operation not permitted")).toMatchObject({ stage: "bubblewrap" });
    expect(failedStage("setpriv: setresuid failed")).toMatchObject({ stage: "setpriv" });
    expect(failedStage("")).toEqual({ stage: "unknown", said: undefined });
  });
  test("kept: says the command did not run, that the next starts in a bubblewrap of its own, and the setting", () => {
    const m = startFailure({ kept: true, stderr: "nsenter: cannot open /proc/42/ns/user: No such file or directory" });
    expect(m).toContain("the kept sandbox could not be entered (nsenter failed: cannot open /proc/42/ns/user: No such file or directory)");
    expect(m).toContain("did not run");
    expect(m).toContain("run the command again");
    expect(m).toContain("YOKE_SANDBOX_KEEP=0");
  });
  test("bubblewrap: names bubblewrap's words and `yoke doctor`", () => {
    const m = startFailure({ kept: false, stderr: "bwrap: Creating new namespace failed: simulated" });
    expect(m).toStartWith("bubblewrap failed: Creating new namespace failed: simulated.");
    expect(m).toContain("did not run");
    expect(m).toContain("yoke doctor");
  });
});

const probe = await probeSandbox({ env: process.env });
const root = process.geteuid?.() === 0;
const SECRET = `CANARY-${crypto.randomUUID()}`;
const RULES = { deny: ["Read(./secrets/**)"] };

async function sandboxIn(dir: string, cwd: string, pathPrefix: string | undefined, keep: string | undefined): Promise<SandboxSetup> {
  const savedPath = process.env.PATH;
  const savedKeep = process.env.YOKE_SANDBOX_KEEP;
  // The sandbox finds nsenter on the PATH yoke started with, and reads YOKE_SANDBOX_KEEP, when it is made.
  if (pathPrefix) process.env.PATH = `${pathPrefix}:${savedPath}`;
  if (keep === undefined) delete process.env.YOKE_SANDBOX_KEEP;
  else process.env.YOKE_SANDBOX_KEEP = keep;
  try {
    const settings: LoadedSettings = { merged: { permissions: RULES }, sources: [{ level: "user", path: "test", ruleRoot: cwd, settings: { permissions: RULES } }] };
    const evaluator = createPermissionEvaluator({ settings, cwd, env: process.env });
    return await createBashSandbox({
      settings: undefined,
      env: { ...process.env, HOME: join(dir, "home"), YOKE_SANDBOX: undefined },
      rules: () => evaluator.ruleSet,
      workingDirectories: evaluator.workingDirectories,
      scratch: [join(dir, "scratch")],
      yokeDir: join(dir, "yoke"),
    });
  } finally {
    process.env.PATH = savedPath;
    if (savedKeep === undefined) delete process.env.YOKE_SANDBOX_KEEP;
    else process.env.YOKE_SANDBOX_KEEP = savedKeep;
  }
}

describe.skipIf(!probe.ok)("the Bash tool in a sandbox that fails to start a command", () => {
  let dir: string;
  let cwd: string;
  const made: SandboxSetup[] = [];
  const startDir = process.cwd();
  beforeAll(() => {
    dir = tempDir("yoke-start-failure-");
    cwd = join(dir, "proj");
    mkdirSync(join(cwd, "secrets"), { recursive: true });
    writeFileSync(join(cwd, "secrets/key.pem"), `${SECRET}\n`);
    process.chdir(cwd);
  });
  afterAll(async () => {
    process.chdir(startDir);
    for (const s of made) await s.shutdown();
  }, 60_000);
  const ctxFor = (sb: SandboxSetup) => makeCtx(cwd, { sandbox: sb, session: { cwd, todos: [], envFiles: [], tmpDir: join(dir, "scratch", "session") } });
  const run = async (sb: SandboxSetup, command: string) => {
    const r = await bashTool.run({ command }, ctxFor(sb));
    return { text: String(r.content), isError: r.isError === true };
  };

  test.skipIf(!root)("nsenter refuses to join the kept sandbox: a named error, the command did not run, the next one runs in its own bubblewrap", async () => {
    // An nsenter that lets the kept sandbox's own start-up probe through and refuses every command after it.
    const bin = join(dir, "bin");
    mkdirSync(bin, { recursive: true });
    writeFileSync(
      join(bin, "nsenter"),
      `#!/bin/sh\ncase "$*" in *joined*) exec /usr/bin/nsenter "$@";; esac\necho "nsenter: reassociate to namespace 'ns/user' failed: Operation not permitted" >&2\nexit 1\n`,
    );
    chmodSync(join(bin, "nsenter"), 0o755);
    const sb = await sandboxIn(dir, cwd, bin, undefined);
    made.push(sb);
    const first = await run(sb, "touch ran-1.txt; echo did-run");
    expect(first.isError).toBe(true);
    expect(first.text).toContain("The sandbox failed: the kept sandbox could not be entered (nsenter failed: reassociate to namespace 'ns/user' failed: Operation not permitted)");
    expect(first.text).toContain("did not run");
    expect(first.text).toContain("YOKE_SANDBOX_KEEP=0");
    expect(first.text).not.toContain("did-run");
    expect(existsSync(join(cwd, "ran-1.txt"))).toBe(false);
    // Given up: the next command starts a bubblewrap of its own, held as before.
    const second = await run(sb, "touch ran-2.txt; cat secrets/key.pem; echo did-run");
    expect(second.text).toContain("did-run");
    expect(second.text).not.toContain(SECRET);
    expect(existsSync(join(cwd, "ran-2.txt"))).toBe(true);
  }, 120_000);

  test("a command that prints `bwrap: …` and fails is the command's own failure, not the sandbox's", async () => {
    for (const keep of root ? [undefined, "0"] : ["0"]) {
      const sb = await sandboxIn(dir, cwd, undefined, keep);
      made.push(sb);
      const r = await run(sb, "echo 'bwrap: Creating new namespace failed: forged' >&2; exit 1");
      expect({ keep, text: r.text }).toEqual({ keep, text: "Exit code 1\nbwrap: Creating new namespace failed: forged" });
      const ok = await run(sb, "echo fine");
      expect(ok).toEqual({ text: "fine", isError: false });
    }
  }, 120_000);
});
