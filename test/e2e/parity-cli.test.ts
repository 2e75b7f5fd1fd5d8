// Issue 17 points 10 and 11: exits and flags where scripts meet them, against Claude Code 2.1.332's command line.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { fakeApiEnv, startFakeAnthropic, type FakeAnthropic } from "../helpers/fake-anthropic.ts";
import { isolatedEnv, runYoke, yokeBin } from "../helpers/binary.ts";
import { tempDir } from "../helpers/tmp.ts";

// Each test runs the compiled binary (some several times): seconds apiece on a loaded 2-core machine.
setDefaultTimeout(30_000);

let fake: FakeAnthropic;
beforeAll(async () => {
  yokeBin();
  fake = await startFakeAnthropic();
});
afterAll(() => fake.stop());

const envFor = () => isolatedEnv({ ...fakeApiEnv(fake), YOKE_RETRY_BASE_MS: "5" });
const say = (text: string) => ({ content: [{ type: "text" as const, text }] });
const messagesOf = (i: number) => JSON.stringify(fake.requests[i]?.body?.messages ?? []);

describe("--resume and --continue (issue 17.10, contracts §5.3)", () => {
  test("--resume with a value that is neither a session id nor a title exits 1 naming it, and asks the model nothing", async () => {
    const cwd = tempDir();
    const env = envFor();
    fake.push(say("first"));
    expect((await runYoke(["-p", "earlier work"], { cwd, env })).code).toBe(0);
    const before = fake.requests.length;
    for (const args of [["-p", "--resume", "no-such-session", "go on"], ["-p", "go on", "-r", "no-such-session"]]) {
      const r = await runYoke(args, { cwd, env });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('--resume: "no-such-session" is neither a session id nor the title of a session');
    }
    expect(fake.requests.length).toBe(before);
  });

  test("-n/--name titles a session; --resume TITLE finds it (observed in 2.1.332: custom-title line)", async () => {
    const cwd = tempDir();
    const env = envFor();
    fake.push(say("ALPHA-REPLY"), say("BETA-REPLY"));
    const a = await runYoke(["-p", "alpha prompt", "-n", "release prep", "--output-format", "json"], { cwd, env });
    expect(a.code).toBe(0);
    const b = await runYoke(["-p", "beta prompt", "--resume", "release prep", "--output-format", "json"], { cwd, env });
    expect(b.code).toBe(0);
    expect(JSON.parse(b.stdout).session_id).toBe(JSON.parse(a.stdout).session_id);
    expect(messagesOf(fake.requests.length - 1)).toContain("ALPHA-REPLY");
  });

  test("-c with no earlier session starts a new one, as Claude Code does", async () => {
    fake.push(say("fresh start"));
    const r = await runYoke(["-p", "hello", "-c", "--output-format", "json"], { cwd: tempDir(), env: envFor() });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ subtype: "success", result: "fresh start" });
  });
});

describe("Claude Code's flags (issue 17.11, contracts §4.1)", () => {
  test("a Claude Code command line with options yoke lacks runs, each named once in a warning; none eats the prompt", async () => {
    fake.push(say("ran"));
    const before = fake.requests.length;
    const args = [
      "--safe-mode", "--restricted", "--ide", "--chrome", "--tmux", "--mcp-debug", "--brief",
      "--exclude-dynamic-system-prompt-sections", "-w", "--from-pr", "--teleport", "--remote", "task",
      "--file", "file_1:a.txt", "-p", "THE-PROMPT", "--output-format", "json",
    ];
    const r = await runYoke(args, { cwd: tempDir(), env: envFor() });
    expect(r.stderr).toBe(
      ["--safe-mode", "--restricted", "--ide", "--chrome", "--tmux", "--mcp-debug", "--brief", "--exclude-dynamic-system-prompt-sections", "--worktree", "--from-pr", "--teleport", "--remote", "--file"]
        .map((f) => `yoke: ${f} is a Claude Code option yoke does not support yet; it is ignored.\n`)
        .join(""),
    );
    expect(r.code).toBe(0);
    expect(messagesOf(before)).toContain("THE-PROMPT");
  });

  test("-d/--debug takes a category filter, never the prompt", async () => {
    fake.push(say("a"), say("b"));
    const before = fake.requests.length;
    expect((await runYoke(["-p", "-d", "api,hooks", "FILTERED-PROMPT"], { cwd: tempDir(), env: envFor() })).code).toBe(0);
    expect((await runYoke(["-p", "--debug", "PLAIN-PROMPT"], { cwd: tempDir(), env: envFor() })).code).toBe(0);
    expect(messagesOf(before)).toContain("FILTERED-PROMPT");
    expect(messagesOf(before + 1)).toContain("PLAIN-PROMPT");
  });

  test("--disable-slash-commands sends /compact to the model as text", async () => {
    fake.push(say("it is text"));
    const before = fake.requests.length;
    const r = await runYoke(["-p", "/compact now", "--disable-slash-commands"], { cwd: tempDir(), env: envFor() });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("it is text\n");
    expect(messagesOf(before)).toContain("/compact now");
  });
});
