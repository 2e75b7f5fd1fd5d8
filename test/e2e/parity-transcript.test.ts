// Issue 17 point 9: transcript lines as Claude Code 2.1.332 writes them, so usage tools (ccusage,
// claude-code-log, the SDK's session helpers) read yoke's transcripts as Claude Code's.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fakeApiEnv, startFakeAnthropic, type FakeAnthropic } from "../helpers/fake-anthropic.ts";
import { isolatedEnv, runYoke, yokeBin } from "../helpers/binary.ts";
import { tempDir } from "../helpers/tmp.ts";

let fake: FakeAnthropic;
beforeAll(async () => {
  yokeBin();
  fake = await startFakeAnthropic();
});
afterAll(() => fake.stop());

const envFor = () => isolatedEnv({ ...fakeApiEnv(fake), YOKE_RETRY_BASE_MS: "5" });

function sessionLines(env: Record<string, string>, id: string): any[] {
  const projects = join(env.YOKE_CONFIG_DIR!, "projects");
  for (const d of readdirSync(projects)) {
    const p = join(projects, d, `${id}.jsonl`);
    if (existsSync(p)) return readFileSync(p, "utf8").trim().split("\n").map((l) => JSON.parse(l));
  }
  throw new Error(`no transcript for ${id} under ${projects}`);
}

describe("transcript assistant lines (issue 17.9)", () => {
  test("every assistant line carries the API request id; blocks of one message share it, messages differ", async () => {
    // contracts §5.2: `requestId` on assistant lines (written by 2.1.332 for every content block;
    // roundtrip-transcript-shape.txt). Usage tools de-duplicate a message's usage on it.
    const cwd = tempDir();
    const env = envFor();
    fake.push(
      { content: [{ type: "text", text: "first I look" }, { type: "tool_use", name: "Bash", input: { command: "echo hi" } }] },
      { content: [{ type: "text", text: "done" }] },
    );
    const r = await runYoke(["-p", "go", "--output-format", "json", "--allowedTools", "Bash"], { cwd, env });
    expect(r.stderr + r.stdout).toContain("session_id");
    expect(r.code).toBe(0);
    const id = JSON.parse(r.stdout.trim().split("\n").at(-1)!).session_id;
    const assistants = sessionLines(env, id).filter((l) => l.type === "assistant");
    expect(assistants.length).toBe(3);
    for (const a of assistants) expect(a.requestId).toMatch(/^req_/);
    expect(assistants[0].requestId).toBe(assistants[1].requestId);
    expect(assistants[0].message.id).toBe(assistants[1].message.id);
    expect(assistants[2].requestId).not.toBe(assistants[0].requestId);
  });
});
