// The compiled binary on a machine that lacks one of the sandbox's programs (issue 18: the image had no socat, which
// the sandbox library wants at every start, while yoke's start-up check asked for it only when a host was allowed, so
// the sandbox was called on and every Bash command then failed). Whichever piece is missing, the run behaves as the
// sandbox tests define for an unavailable sandbox (test/e2e/sandbox.test.ts, "sandbox unavailable or misconfigured"):
// optional, it says so once on stderr and in system/init and Bash runs under the static checks alone; required, the
// run ends with the cause before the model is asked; `yoke doctor` says why. test/sandbox/probe-deps.test.ts holds
// the check to the library's own.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runYoke, yokeBin } from "../helpers/binary.ts";
import { fakeApiEnv, toolResultsOf } from "../helpers/fake-anthropic.ts";
import { useFakeAnthropic } from "../helpers/e2e.ts";
import { tempDir } from "../helpers/tmp.ts";
import { probeSandbox } from "../../src/sandbox/probe.ts";
import { tmuxAvailable } from "../helpers/tmux.ts";
import { send, tuiSuite } from "./tui-helpers.ts";

const probe = await probeSandbox({ env: process.env });
if (!probe.ok) console.warn(`sandbox dependency e2e skipped: ${probe.reason}`);

const fake = useFakeAnthropic();
const session = tuiSuite();

/** This machine's /usr/bin as links, without `without`: the whole PATH of the run. */
function pathWithout(...without: string[]): string {
  const dir = join(tempDir("yoke-deps-path-"), "bin");
  mkdirSync(dir);
  for (const name of readdirSync("/usr/bin")) if (!without.includes(name)) symlinkSync(join("/usr/bin", name), join(dir, name));
  return dir;
}

function project(settings: Record<string, unknown>) {
  const root = tempDir("yoke-deps-");
  const cwd = join(root, "proj");
  const home = join(root, "home");
  mkdirSync(cwd, { recursive: true });
  mkdirSync(join(home, ".claude"), { recursive: true });
  writeFileSync(join(home, ".claude", "settings.json"), JSON.stringify(settings));
  return { cwd, home };
}

const run = (args: string[], p: { cwd: string; home: string }, env: Record<string, string | undefined>) =>
  runYoke(args, { cwd: p.cwd, env: { ...fakeApiEnv(fake), HOME: p.home, YOKE_SANDBOX: undefined, YOKE_RETRY_BASE_MS: "5", ...env }, timeoutMs: 60_000 });

const initOf = (stdout: string) =>
  stdout
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .find((m) => m.type === "system" && m.subtype === "init");

describe.skipIf(!probe.ok)("a sandbox program missing from the PATH", () => {
  for (const [tool, named] of [
    ["socat", "socat is not installed (apt-get install socat)"],
    ["bwrap", "bubblewrap (bwrap) is not installed (apt-get install bubblewrap)"],
    ["rg", "ripgrep (rg) is not installed (apt-get install ripgrep)"],
  ] as const) {
    test(`no ${tool}, sandbox wanted where possible: said once on stderr and in system/init; Bash runs under the static checks`, async () => {
      const p = project({ permissions: { allow: ["Bash(touch:*)"] } });
      const before = fake.requests.length;
      fake.push({ content: [{ type: "tool_use", id: "toolu_t", name: "Bash", input: { command: "touch ran.txt" } }] }, { content: [{ type: "text", text: "done" }] });
      const r = await run(["-p", "go", "--output-format", "stream-json", "--verbose"], p, { PATH: pathWithout(tool) });
      expect(r.code).toBe(0);
      const init = initOf(r.stdout);
      expect(init.sandbox_enabled).toBe(false);
      expect(init.sandbox_reason).toContain(named);
      expect(r.stderr.match(/the Bash sandbox is off/g)).toHaveLength(1);
      expect(r.stderr).toContain(named);
      const result = fake.requests.slice(before).flatMap((q) => toolResultsOf(q)).find((t) => t.tool_use_id === "toolu_t")!;
      expect(result.is_error).toBeFalsy();
      expect(existsSync(join(p.cwd, "ran.txt"))).toBe(true);
    }, 120_000);
  }

  test("no socat, sandbox.enabled: the run ends with the cause before the model is asked", async () => {
    const p = project({ sandbox: { enabled: true } });
    const before = fake.requests.length;
    const r = await run(["-p", "touch c.txt"], p, { PATH: pathWithout("socat") });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("the Bash sandbox was required (sandbox settings) but cannot start: socat is not installed");
    expect(fake.requests.length).toBe(before);
  }, 120_000);

  test("no bubblewrap and no socat, YOKE_SANDBOX=1: the run ends naming both", async () => {
    const p = project({});
    const before = fake.requests.length;
    const r = await run(["-p", "hi"], p, { PATH: pathWithout("socat", "bwrap"), YOKE_SANDBOX: "1" });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("the Bash sandbox was required (YOKE_SANDBOX=1) but cannot start: bubblewrap (bwrap), socat are not installed (apt-get install bubblewrap socat)");
    expect(fake.requests.length).toBe(before);
  }, 120_000);

  test("no socat, sandbox.enabled with failIfUnavailable: false: the run goes on and says so", async () => {
    const p = project({ sandbox: { enabled: true, failIfUnavailable: false } });
    fake.push({ content: [{ type: "text", text: "hello" }] });
    const r = await run(["-p", "hi"], p, { PATH: pathWithout("socat") });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("hello\n");
    expect(r.stderr).toContain("the Bash sandbox is off: socat is not installed");
  }, 120_000);

  test("yoke doctor: off with the cause (exit 0), required and missing (exit 1), on when everything is there", async () => {
    const p = project({});
    const off = await run(["doctor"], p, { PATH: pathWithout("socat") });
    expect(off.code).toBe(0);
    expect(off.stdout).toStartWith("sandbox: off — socat is not installed (apt-get install socat); the sandbox library checks for bubblewrap, ripgrep and socat at every start\n");
    const json = await run(["doctor", "--json"], p, { PATH: pathWithout("rg") });
    expect(JSON.parse(json.stdout)).toMatchObject({ sandbox: "off", reason: expect.stringContaining("ripgrep (rg) is not installed") });
    const required = await run(["doctor"], project({ sandbox: { enabled: true } }), { PATH: pathWithout("socat") });
    expect(required.code).toBe(1);
    expect(required.stderr).toContain("but cannot start: socat is not installed");
    const on = await run(["doctor"], p, { PATH: pathWithout() });
    expect(on.code).toBe(0);
    expect(on.stdout).toStartWith("sandbox: on — ");
  }, 120_000);

  test("the sandbox's helpers cannot be written (the config folder is under a file): off with the folder named (exit 0); required, exit 1", async () => {
    const p = project({});
    const blocker = join(tempDir("yoke-deps-cfg-"), "a-file");
    writeFileSync(blocker, "");
    // Not through runYoke: its helper makes YOKE_CONFIG_DIR, which under a file cannot be made.
    const doctor = async (env: Record<string, string>) => {
      const proc = Bun.spawn([yokeBin(), "doctor"], {
        cwd: p.cwd,
        env: { PATH: pathWithout(), HOME: p.home, YOKE_CONFIG_DIR: join(blocker, "yoke"), CLAUDE_CONFIG_DIR: join(p.home, ".claude"), ...env },
        stdout: "pipe",
        stderr: "pipe",
      });
      const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
      return { stdout, stderr, code };
    };
    const why = `the sandbox's helpers (its seccomp filter's loader) cannot be written to ${join(blocker, "yoke", "sandbox")}: ${blocker} is not a folder`;
    const off = await doctor({});
    expect(off.stdout).toStartWith(`sandbox: off — ${why}`);
    expect(off.code).toBe(0);
    const required = await doctor({ YOKE_SANDBOX: "1" });
    expect(required.code).toBe(1);
    expect(required.stderr).toContain(`but cannot start: ${why}`);
  }, 120_000);

  test.skipIf(!tmuxAvailable())("the interactive screen's /status says the sandbox is off and why", async () => {
    const { term } = await session([], { env: { PATH: pathWithout("socat"), YOKE_SANDBOX: undefined } });
    send(term, "/status");
    await term.waitFor("Sandbox: off (socat is not installed (apt-get install socat)", { timeoutMs: 30_000 });
  }, 120_000);
});
