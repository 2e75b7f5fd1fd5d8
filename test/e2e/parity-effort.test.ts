// Issue 17 point 7: `/effort` in headless runs, as Claude Code 2.1.332 answers it (observed in 2.1.332 with `-p` and
// stream-json input against the fake API): a local command, no model request, its answer as a synthetic assistant
// message and a result with num_turns 0 and local_command "effort"; the level holds for the rest of the session.
// Precedence observed: CLAUDE_CODE_EFFORT_LEVEL > /effort > --effort > effortLevel.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { fakeApiEnv, startFakeAnthropic, type FakeAnthropic } from "../helpers/fake-anthropic.ts";
import { isolatedEnv, runYoke, yokeBin } from "../helpers/binary.ts";
import { tempDir } from "../helpers/tmp.ts";

// Each test runs the compiled binary (some several times): seconds apiece on a loaded 2-core machine.

let fake: FakeAnthropic;
beforeAll(async () => {
  yokeBin();
  fake = await startFakeAnthropic();
});
afterAll(() => fake.stop());

const envFor = (extra: Record<string, string> = {}) => isolatedEnv({ ...fakeApiEnv(fake), YOKE_RETRY_BASE_MS: "5", ...extra });
const userLine = (text: string) => `${JSON.stringify({ type: "user", message: { role: "user", content: text } })}\n`;

/** Runs the prompts as stream-json input; returns the output lines and the request bodies this run made. */
async function session(prompts: string[], args: string[] = [], env: Record<string, string> = {}) {
  for (const p of prompts) if (!p.startsWith("/effort")) fake.push({ content: [{ type: "text", text: `re: ${p}` }] });
  const before = fake.requests.length;
  const r = await runYoke(["-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose", ...args], {
    cwd: tempDir(),
    env: envFor(env),
    stdin: prompts.map(userLine).join(""),
  });
  const lines = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
  return { r, lines, results: lines.filter((l) => l.type === "result"), bodies: fake.requests.slice(before).map((q) => q.body) };
}

describe("/effort (issue 17.7, observed in 2.1.332)", () => {
  test("sets the effort for the next requests without a request of its own; answered as a local command", async () => {
    const s = await session(["/effort low", "hello"]);
    expect(s.r.code).toBe(0);
    expect(s.bodies).toHaveLength(1);
    expect(s.bodies[0].output_config).toEqual({ effort: "low" });
    const text = "Set effort level to low (this session only): Quick, straightforward implementation with minimal overhead";
    expect(s.results[0]).toMatchObject({ subtype: "success", is_error: false, num_turns: 0, result: text, local_command: "effort" });
    const synthetic = s.lines.find((l) => l.type === "assistant" && l.message.model === "<synthetic>");
    expect(synthetic.message.content).toEqual([{ type: "text", text }]);
    expect(s.results[1].result).toBe("re: hello");
    expect(s.lines.find((l) => l.subtype === "init").slash_commands).toContain("effort");
  });

  test("beats --effort and effortLevel; CLAUDE_CODE_EFFORT_LEVEL beats it, and the answer says so; auto goes back", async () => {
    const a = await session(["/effort max", "one", "/effort auto", "two"], ["--effort", "high", "--settings", '{"effortLevel":"xhigh"}']);
    expect(a.bodies.map((b) => b.output_config.effort)).toEqual(["max", "high"]);
    expect(a.results[2].result).toBe("Effort level set to auto (this session only)");
    const b = await session(["/effort low", "one"], [], { CLAUDE_CODE_EFFORT_LEVEL: "high" });
    expect(b.results[0].result).toBe("CLAUDE_CODE_EFFORT_LEVEL=high overrides this session — clear it and low takes over");
    expect(b.bodies[0].output_config).toEqual({ effort: "high" });
  });

  test("no level, a bad level, or extra words: usage or the options, nothing changed, no request; -p works too", async () => {
    const s = await session(["/effort", "/effort bogus", "/effort  low extra", "/effort HIGH", "x"]);
    expect(s.results.map((r) => r.result)).toEqual([
      "Usage: /effort <low|medium|high|xhigh|max|auto>",
      "Unknown option: bogus. Options: low, medium, high, xhigh, max, auto",
      "Unknown option: low extra. Options: low, medium, high, xhigh, max, auto",
      "Set effort level to high (this session only): Comprehensive implementation with extensive testing and documentation",
      "re: x",
    ]);
    expect(s.bodies.map((b) => b.output_config.effort)).toEqual(["high"]);
    const before = fake.requests.length;
    const one = await runYoke(["-p", "/effort medium", "--output-format", "json"], { cwd: tempDir(), env: envFor() });
    expect(one.code).toBe(0);
    expect(JSON.parse(one.stdout)).toMatchObject({ result: "Set effort level to medium (this session only): Balanced approach with standard implementation and testing", num_turns: 0, local_command: "effort" });
    expect(fake.requests.length).toBe(before);
  });

  test("--disable-slash-commands sends /effort to the model as text", async () => {
    fake.push({ content: [{ type: "text", text: "plain" }] });
    const before = fake.requests.length;
    const r = await runYoke(["-p", "/effort low", "--disable-slash-commands"], { cwd: tempDir(), env: envFor() });
    expect(r.stdout.trim()).toBe("plain");
    expect(fake.requests[before]!.body.output_config).toEqual({ effort: "medium" });
  });
});
