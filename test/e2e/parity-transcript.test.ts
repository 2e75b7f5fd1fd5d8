// Issue 17 point 9: transcript lines as Claude Code 2.1.332 writes them, so usage tools (ccusage,
// claude-code-log, the SDK's session helpers) read yoke's transcripts as Claude Code's.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fakeApiEnv, startFakeAnthropic, type FakeAnthropic } from "../helpers/fake-anthropic.ts";
import { isolatedEnv, runYoke, yokeBin } from "../helpers/binary.ts";
import { gitRepo, tempDir } from "../helpers/tmp.ts";

// Each test runs the compiled binary (some several times): seconds apiece on a loaded 2-core machine.
setDefaultTimeout(30_000);

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

// roundtrip-transcript-shape.txt (observed in 2.1.332), the Write → Bash → text run's user and assistant lines.
const CC_PROMPT = "parentUuid, isSidechain, promptId, type, message, uuid, timestamp, permissionMode, promptSource, sentAtMs, rowSource, turnOrigin, turnPosition, userType, entrypoint, cwd, sessionId, version, gitBranch";
const CC_TOOL_RESULT = "parentUuid, isSidechain, promptId, type, message, uuid, timestamp, toolUseResult, sourceToolAssistantUUID, permissionDecision, userType, entrypoint, cwd, sessionId, version, gitBranch";
const CC_ASSISTANT = "parentUuid, isSidechain, message, apiBlockIndex, requestId, requestRef, requestedModel, promptCacheRequested, type, uuid, timestamp, effort, perTurnEffort, madeBy, userType, entrypoint, cwd, sessionId, version, gitBranch";
const CC_MESSAGE = "id, type, role, model, content, stop_reason, stop_sequence, usage, stop_details";
// Keys whose values yoke cannot know (internal ids, UI bookkeeping): left out rather than invented.
const OPAQUE = new Set(["promptSource", "sentAtMs", "rowSource", "turnOrigin", "turnPosition", "permissionDecision", "requestRef", "perTurnEffort", "madeBy"]);
const expected = (list: string) => list.split(", ").filter((k) => !OPAQUE.has(k));

describe("transcript line keys (issue 17.9)", () => {
  test("prompt, tool-result and assistant lines carry Claude Code's keys in its order", async () => {
    const cwd = tempDir();
    gitRepo(cwd);
    const env = envFor();
    fake.push({ content: [{ type: "tool_use", name: "Bash", input: { command: "echo hi" } }] }, { content: [{ type: "text", text: "done" }] });
    const r = await runYoke(["-p", "go", "--output-format", "json", "--allowedTools", "Bash"], { cwd, env });
    expect(r.code).toBe(0);
    const lines = sessionLines(env, JSON.parse(r.stdout).session_id);
    const prompt = lines.find((l) => l.type === "user" && !l.isMeta && !l.toolUseResult)!;
    const result = lines.find((l) => l.type === "user" && l.sourceToolAssistantUUID)!;
    const assistants = lines.filter((l) => l.type === "assistant");
    expect(Object.keys(prompt)).toEqual(expected(CC_PROMPT));
    expect(Object.keys(result)).toEqual(expected(CC_TOOL_RESULT));
    for (const a of assistants) {
      expect(Object.keys(a)).toEqual(expected(CC_ASSISTANT));
      expect(Object.keys(a.message)).toEqual(CC_MESSAGE.split(", "));
    }
    // One prompt: one promptId on every user line of it; the requested model and effort on every assistant line.
    expect(new Set(lines.filter((l) => l.type === "user").map((l) => l.promptId)).size).toBe(1);
    expect(assistants.map((a) => [a.requestedModel, a.effort, a.apiBlockIndex])).toEqual([
      ["claude-opus-5-5", "medium", 0],
      ["claude-opus-5-5", "medium", 0],
    ]);
    expect(prompt.permissionMode).toBe("default");
  });
});
