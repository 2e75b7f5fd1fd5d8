// Forks run beside the main conversation: the main conversation's own effects must not fire inside them.
import { expect, test } from "bun:test";
import { runFork } from "../../src/loop/fork.ts";
import { createTranscript } from "../../src/session/transcript.ts";
import { createToolRegistry } from "../../src/tool/registry.ts";
import { modeOnlyEvaluator } from "../helpers/mode-only-permissions.ts";
import { parentDeps } from "../helpers/loop-deps.ts";

test("a fork starts no checkpoint turn, gets no instruction files, no end check and no fallback switch", async () => {
  const fired: string[] = [];
  const { deps } = parentDeps({
    script: [{ content: [{ type: "text", text: "fork answer" }] }],
    over: {
      onPrompt: () => void fired.push("onPrompt"),
      promptContext: async () => (fired.push("promptContext"), []),
      beforeEnd: () => (fired.push("beforeEnd"), undefined),
      fallbackModel: () => (fired.push("fallbackModel"), undefined),
      takePlan: () => (fired.push("takePlan"), undefined),
    },
  });
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
