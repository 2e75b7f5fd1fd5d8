// The real Agent SDK 0.3.332 against the compiled binary (issue 15 point 8): the Options that travel as flags
// (contracts §4.7) behave as with Claude Code: maxTurns, model, disallowedTools, includePartialMessages, continue.
import { expect, test } from "bun:test";
import { fakeApiEnv } from "../helpers/fake-anthropic.ts";
import { isolatedEnv } from "../helpers/binary.ts";
import { sdkRun } from "../helpers/agent-sdk.ts";
import { tempDir } from "../helpers/tmp.ts";
import { useFakeAnthropic } from "../helpers/e2e.ts";

const fake = useFakeAnthropic({ perTest: true });

const say = (text: string) => ({ content: [{ type: "text" as const, text }] });

test("maxTurns ends with error_max_turns, which the SDK reports as Claude Code's error result", async () => {
  fake.push({ content: [{ type: "tool_use", name: "Bash", input: { command: "echo 1" } }] }, { content: [{ type: "tool_use", name: "Bash", input: { command: "echo 2" } }] });
  const r = await sdkRun(fake, "loop", { maxTurns: 1, allowedTools: ["Bash"] });
  expect(r.result).toMatchObject({ subtype: "error_max_turns", is_error: true, errors: ["Reached maximum number of turns (1)"] });
  expect(r.error).toContain("Reached maximum number of turns (1)");
});

test("model, disallowedTools and includePartialMessages reach the run", async () => {
  fake.push(say("streamed answer"));
  const r = await sdkRun(fake, "hi", { model: "haiku", disallowedTools: ["WebFetch"], includePartialMessages: true });
  expect(r.error).toBeNull();
  const body = fake.requests[0]!.body;
  expect(body.model).toBe("claude-haiku-5-5");
  expect(body.tools.map((t: any) => t.name)).not.toContain("WebFetch");
  const deltas = r.of("stream_event").filter((m: any) => m.event.type === "content_block_delta");
  expect(deltas.length).toBeGreaterThan(0);
});

test("continue picks up the latest session the SDK ran in this folder", async () => {
  const cwd = tempDir();
  const env = isolatedEnv({ ...fakeApiEnv(fake) });
  fake.push(say("FIRST-ANSWER"), say("second"));
  const a = await sdkRun(fake, "first", { cwd, env });
  const b = await sdkRun(fake, "second", { cwd, env, continue: true });
  expect(b.result!.session_id).toBe(a.result!.session_id);
  expect(JSON.stringify(fake.requests[1]!.body.messages)).toContain("FIRST-ANSWER");
});
