// Forks run beside the main conversation: the main conversation's own effects must not fire inside them.
import { expect, test } from "bun:test";
import { runFork } from "../../src/loop/fork.ts";
import { runSubagent } from "../../src/loop/subagent.ts";
import { createTranscript } from "../../src/session/transcript.ts";
import { createToolRegistry } from "../../src/tool/registry.ts";
import { modeOnlyEvaluator } from "../helpers/mode-only-permissions.ts";
import { parentDeps } from "../helpers/loop-deps.ts";

// The main conversation's own effects, as an object carrying them would look. LoopDeps has no such fields
// (issue 11 point 1), so this only compiles by widening; the runtime check shows nothing reads them anyway.
const mainOnly = (fired: string[]) => ({
  onPrompt: () => void fired.push("onPrompt"),
  promptContext: async () => (fired.push("promptContext"), []),
  afterTools: () => (fired.push("afterTools"), []),
  beforeRequest: () => (fired.push("beforeRequest"), undefined),
  beforeEnd: () => (fired.push("beforeEnd"), undefined),
  structuredOutput: () => (fired.push("structuredOutput"), undefined),
  fallbackModel: () => (fired.push("fallbackModel"), undefined),
  takePlan: () => (fired.push("takePlan"), undefined),
});

test("LoopDeps cannot carry the main conversation's effects", () => {
  // @ts-expect-error onPrompt belongs to MainConversation, not LoopDeps
  parentDeps({ over: { onPrompt: () => {} } });
  // @ts-expect-error fallbackModel belongs to MainConversation, not LoopDeps
  parentDeps({ over: { fallbackModel: () => undefined } });
});

test("a fork starts no checkpoint turn, gets no instruction files, no end check and no fallback switch", async () => {
  const fired: string[] = [];
  const { deps: base } = parentDeps({ script: [{ content: [{ type: "text", text: "fork answer" }] }] });
  const deps = { ...base, ...mainOnly(fired) };
  const side: unknown[] = [];
  const { result } = await runFork(deps, {
    system: "fork system",
    prompt: "remember things",
    tools: createToolRegistry([]),
    maxTurns: 2,
    model: "claude-haiku-5-5",
    permissions: modeOnlyEvaluator("dontAsk"),
    transcript: createTranscript({ sessionId: "s1", path: "", append: (e) => void side.push(e) }, { cwd: () => "/tmp", version: "t", entrypoint: "t", uuid: () => "f", now: () => new Date(0) }),
    signal: new AbortController().signal,
  });
  expect(result.result).toBe("fork answer");
  expect(fired).toEqual([]);
  expect(side.length).toBeGreaterThan(0);
});

test("a subagent gets none of the main conversation's effects either, even from a parent object carrying them", async () => {
  const fired: string[] = [];
  const { deps: base } = parentDeps({ script: [{ content: [{ type: "text", text: "sub answer" }] }] });
  const run = await runSubagent({ ...base, ...mainOnly(fired) }, {
    agentType: "Explore",
    agentId: "a1",
    prompt: "look",
    system: [{ type: "text", text: "S" }],
    tools: createToolRegistry([]),
    model: "claude-haiku-5-5",
    transcript: createTranscript({ sessionId: "s1", path: "", append: () => {} }, { cwd: () => "/tmp", version: "t", entrypoint: "t", uuid: () => "x", now: () => new Date(0) }),
    signal: new AbortController().signal,
  });
  expect(run.text).toBe("sub answer");
  expect(fired).toEqual([]);
});
