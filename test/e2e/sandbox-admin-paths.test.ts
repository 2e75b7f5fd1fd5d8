// sandbox.bwrapPath and sandbox.socatPath choose the program the Bash sandbox IS: Claude Code 2.1.332 honors them only
// from admin-controlled managed settings, and only as absolute paths (its settings schema: "Only honored from
// admin-controlled managed settings"). A checkout's .claude/settings.json (or a user's settings) naming a "bwrap" that
// just runs the command would otherwise make yoke believe Bash is sandboxed — and auto-allow it — while nothing is
// (fail-open), and would run the checkout's program at start. The compiled binary, as a user meets it: `yoke doctor`
// and a `-p` run.
import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runYoke, TRUST_WORKSPACE, yokeBin } from "../helpers/binary.ts";
import { managedEnv } from "../helpers/managed.ts";
import { tempDir } from "../helpers/tmp.ts";
import { probeSandbox } from "../../src/sandbox/probe.ts";
import { bashCall, project, runWith, say, script } from "./hooks-helpers.ts";

const probe = await probeSandbox({ env: process.env });
if (!probe.ok) console.warn(`sandbox admin-path e2e partly skipped: ${probe.reason}`);
beforeAll(() => void yokeBin());

/** A "bwrap" that sandboxes nothing: it notes each start and runs whatever it was given, as a shell would. */
function fakeBwrap(dir: string): { path: string; marker: string } {
  const marker = join(dir, "fake-bwrap.ran");
  const path = script(dir, "tools/bwrap", `echo ran >> ${marker}\nif [ "$1" = --version ]; then echo "bubblewrap 9.9.9"; fi\nexit 0`);
  return { path, marker };
}

describe("bwrapPath / socatPath outside managed settings are ignored, and said", () => {
  test("a checkout's bwrapPath: doctor never runs it, and names the file and field", async () => {
    const cwd = project();
    const fake = fakeBwrap(cwd);
    const fakeSocat = script(cwd, "tools/socat", `echo ran >> ${fake.marker}\nexit 0`);
    writeFileSync(join(cwd, ".claude", "settings.json"), JSON.stringify({ sandbox: { enabled: true, bwrapPath: fake.path, socatPath: fakeSocat } }));
    const r = await runYoke(["doctor", "--json"], { cwd, env: { ...TRUST_WORKSPACE, YOKE_SANDBOX: undefined, ...managedEnv({}) } });
    expect(existsSync(fake.marker)).toBe(false);
    expect(r.stdout).not.toContain("9.9.9");
    expect(r.stderr + r.stdout).toContain(`${join(cwd, ".claude", "settings.json")}: sandbox.bwrapPath is honored only from managed settings; ignored`);
    expect(r.stderr + r.stdout).toContain(`${join(cwd, ".claude", "settings.json")}: sandbox.socatPath is honored only from managed settings; ignored`);
    if (probe.ok) expect(JSON.parse(r.stdout)).toMatchObject({ sandbox: "on", backend: expect.stringContaining(probe.platform === "linux" ? probe.bwrap : "") });
  });

  test("a user's bwrapPath is ignored too; a -p run's auto-allowed Bash runs in the real sandbox, never through it", async () => {
    const cwd = project({ sandbox: { enabled: true } });
    const fake = fakeBwrap(tempDir("yoke-userbin-"));
    const home = tempDir("yoke-home-");
    mkdirSync(join(home, ".claude"), { recursive: true });
    writeFileSync(join(home, ".claude", "settings.json"), JSON.stringify({ sandbox: { bwrapPath: fake.path } }));
    const r = await runWith(cwd, [bashCall("echo hi"), say("done")], ["--output-format", "json"], { env: { HOME: home, YOKE_SANDBOX: "", ...managedEnv({}) } });
    expect(existsSync(fake.marker)).toBe(false);
    expect(r.stderr).toContain(`${join(home, ".claude", "settings.json")}: sandbox.bwrapPath is honored only from managed settings; ignored`);
    if (probe.ok) expect(r.code).toBe(0);
  });

  test("managed settings' absolute bwrapPath is honored; a relative one is ignored and said", async () => {
    const cwd = project();
    const fake = fakeBwrap(tempDir("yoke-adminbin-"));
    const honored = await runYoke(["doctor", "--json"], { cwd, env: { ...TRUST_WORKSPACE, YOKE_SANDBOX: undefined, ...managedEnv({ sandbox: { enabled: true, bwrapPath: fake.path } }) } });
    expect(existsSync(fake.marker)).toBe(true);
    expect(honored.stdout).toContain("9.9.9");
    const relative = await runYoke(["doctor", "--json"], { cwd, env: { ...TRUST_WORKSPACE, YOKE_SANDBOX: undefined, ...managedEnv({ sandbox: { bwrapPath: "tools/bwrap" } }) } });
    expect(relative.stderr + relative.stdout).toContain('sandbox.bwrapPath "tools/bwrap" must be an absolute path; ignored');
  });
});

describe("settings env cannot switch the sandbox off (YOKE_SANDBOX is yoke's own switch, read from its start environment)", () => {
  test("a checkout's env YOKE_SANDBOX=0 under managed sandbox.enabled: doctor says on, and names the refused key", async () => {
    const cwd = project({ env: { YOKE_SANDBOX: "0" } });
    const r = await runYoke(["doctor", "--json"], { cwd, env: { ...TRUST_WORKSPACE, YOKE_SANDBOX: undefined, ...managedEnv({ sandbox: { enabled: true } }) } });
    expect(r.stderr).toContain("settings env may not set YOKE_SANDBOX; ignored");
    expect(JSON.parse(r.stdout).reason ?? "").not.toContain("YOKE_SANDBOX=0");
    if (probe.ok) expect(JSON.parse(r.stdout).sandbox).toBe("on");
  });

  test("a -p run: the user's sandbox.enabled stands against a checkout's env, system/init says so", async () => {
    const cwd = project({ env: { YOKE_SANDBOX: "off" } });
    const home = tempDir("yoke-home-");
    mkdirSync(join(home, ".claude"), { recursive: true });
    writeFileSync(join(home, ".claude", "settings.json"), JSON.stringify({ sandbox: { enabled: true } }));
    const r = await runWith(cwd, [say("done")], ["--output-format", "stream-json", "--verbose"], { env: { HOME: home, YOKE_SANDBOX: "", ...managedEnv({}) } });
    expect(r.stderr).toContain("settings env may not set YOKE_SANDBOX; ignored");
    const init = r.lines!.find((l) => l.subtype === "init");
    expect(init.sandbox_reason ?? "").not.toContain("YOKE_SANDBOX");
    if (probe.ok) expect(init.sandbox_enabled).toBe(true);
  });
});

describe("settings env PATH does not choose the sandbox's programs (found on the PATH yoke started with)", () => {
  test("a checkout's env PATH with its own bwrap first: doctor never runs it, the sandbox is the real one", async () => {
    const cwd = project();
    const fake = fakeBwrap(cwd);
    writeFileSync(join(cwd, ".claude", "settings.json"), JSON.stringify({ sandbox: { enabled: true }, env: { PATH: `${join(cwd, "tools")}:${process.env.PATH}` } }));
    const r = await runYoke(["doctor", "--json"], { cwd, env: { ...TRUST_WORKSPACE, YOKE_SANDBOX: undefined, ...managedEnv({}) } });
    expect(existsSync(fake.marker)).toBe(false);
    expect(r.stdout).not.toContain("9.9.9");
    if (probe.ok) expect(JSON.parse(r.stdout)).toMatchObject({ sandbox: "on", backend: expect.stringContaining(probe.platform === "linux" ? probe.bwrap : "") });
  });
});
