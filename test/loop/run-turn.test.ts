// The loop with a scripted Provider (DESIGN rule 10): ordering, concurrency, Stop hooks, abort.
import { describe, expect, test } from "bun:test";
import { eventPayload } from "../../src/hook/events/index.ts";
import { z } from "zod";
import type { HookBus, HookEventName, HookOutcome } from "../../src/hook/types.ts";
import { emptyOutcome } from "../../src/hook/types.ts";
import type { LoopEvent, TurnResult } from "../../src/loop/events.ts";
import { cutToolUse, runTurn, type Conversation, type LoopDeps } from "../../src/loop/run-turn.ts";
import { createUsageTracker } from "../../src/loop/usage.ts";
import { modeOnlyEvaluator } from "../helpers/mode-only-permissions.ts";
import { createTranscript } from "../../src/session/transcript.ts";
import type { SessionEntry, MetaEntry } from "../../src/session/types.ts";
import { defineTool } from "../../src/tool/define-tool.ts";
import { createFileState } from "../../src/tool/file-state.ts";
import { createToolRegistry } from "../../src/tool/registry.ts";
import type { Tool } from "../../src/tool/types.ts";
import { scriptedProvider, type ScriptedEntry } from "../helpers/scripted-provider.ts";
import { waitFor } from "../helpers/wait-for.ts";

const log: string[] = [];
const sleepTool = (name: string, readOnly: boolean) =>
  defineTool({
    name,
    description: "test tool",
    input: z.object({ ms: z.number(), tag: z.string() }),
    readOnly,
    async execute({ ms, tag }, ctx) {
      log.push(`start ${tag}`);
      await new Promise<void>((r) => {
        const t = setTimeout(r, ms);
        ctx.signal.addEventListener("abort", () => (clearTimeout(t), r()));
      });
      log.push(`end ${tag}`);
      return { content: `done ${tag}` };
    },
  });

/** A HookBus for tests: answers from a table, records payloads. */
function tableBus(answers: Partial<Record<HookEventName, (p: any) => Partial<HookOutcome>>>) {
  const seen: Array<{ event: HookEventName; payload: any }> = [];
  const bus: HookBus = {
    has: (e) => e in answers,
    async emit(event, payload) {
      seen.push({ event, payload });
      return { ...emptyOutcome(), ...(answers[event]?.(payload) ?? {}) };
    },
  };
  return { bus, seen };
}

function deps(script: ScriptedEntry[], over: Partial<LoopDeps> = {}, tools: Tool[] = [sleepTool("Slow", true), sleepTool("Mut", false)]) {
  const provider = scriptedProvider(script);
  const lines: Array<SessionEntry | MetaEntry> = [];
  let n = 0;
  const transcript = createTranscript(
    { sessionId: "s1", path: "", append: (e) => void lines.push(e) },
    { cwd: () => "/tmp", version: "t", entrypoint: "test", uuid: () => `u${++n}`, now: () => new Date(0) },
  );
  const d: LoopDeps = {
    provider,
    tools: createToolRegistry(tools),
    hooks: tableBus({}).bus,
    permissions: modeOnlyEvaluator("bypassPermissions"),
    hookPayload: (event, fields) => eventPayload(event, { session_id: "s1" }, fields),
    context: (toolUseId, signal) => ({
      cwd: "/tmp",
      projectDir: "/tmp",
      workingDirectories: ["/tmp"],
      sessionId: "s1",
      signal,
      env: {},
      fileState: createFileState(),
      session: { cwd: "/tmp", todos: [], envFiles: [] },
      toolUseId,
    }),
    clock: () => Date.now(),
    model: () => "claude-sonnet-5-5",
    maxTokens: 1000,
    system: () => [{ type: "text", text: "sys" }],
    transcript,
    usage: createUsageTracker(),
    ...over,
  };
  return { d, provider, lines };
}

async function drain(gen: AsyncGenerator<LoopEvent, TurnResult>) {
  const events: LoopEvent[] = [];
  for (;;) {
    const s = await gen.next();
    if (s.done) return { events, result: s.value };
    events.push(s.value);
  }
}

describe("runTurn", () => {
  test("read-only calls run concurrently; a mutating call runs alone; results keep their order", async () => {
    log.length = 0;
    const { d, provider } = deps([
      {
        content: [
          { type: "tool_use", name: "Slow", input: { ms: 60, tag: "a" } },
          { type: "tool_use", name: "Slow", input: { ms: 10, tag: "b" } },
          { type: "tool_use", name: "Mut", input: { ms: 5, tag: "c" } },
        ],
      },
      { content: [{ type: "text", text: "fin" }] },
    ]);
    const convo: Conversation = { messages: [] };
    const { result } = await drain(runTurn(d, convo, "go", new AbortController().signal));
    expect(result.result).toBe("fin");
    expect(log).toEqual(["start a", "start b", "end b", "end a", "start c", "end c"]);
    const toolMsg = provider.requests[1]!.messages.at(-1)!;
    const ids = (toolMsg.content as any[]).map((b) => b.content);
    expect(ids).toEqual(["done a", "done b", "done c"]);
  });

  test("Stop hook block sends the loop on with the reason; stop_hook_active on re-entry (contracts §1.6)", async () => {
    let calls = 0;
    const { bus, seen } = tableBus({ Stop: () => (++calls === 1 ? { blocked: true, blockReason: "run the tests" } : {}) });
    const { d, provider } = deps([{ content: [{ type: "text", text: "one" }] }, { content: [{ type: "text", text: "two" }] }], { hooks: bus });
    const { result } = await drain(runTurn(d, { messages: [] }, "go", new AbortController().signal));
    expect(result.result).toBe("two");
    expect(seen.map((s) => s.payload.stop_hook_active)).toEqual([false, true]);
    const fb = provider.requests[1]!.messages.at(-1)!;
    expect(JSON.stringify(fb.content)).toContain("Stop hook feedback:\\nrun the tests");
  });

  test("at most 8 Stop blocks in a row", async () => {
    const { bus } = tableBus({ Stop: () => ({ blocked: true, blockReason: "again" }) });
    const script = Array.from({ length: 12 }, (_, i) => ({ content: [{ type: "text" as const, text: `t${i}` }] }));
    const { d, provider } = deps(script, { hooks: bus });
    const { result } = await drain(runTurn(d, { messages: [] }, "go", new AbortController().signal));
    expect(provider.requests.length).toBe(9);
    expect(result.isError).toBe(false);
  });

  test("PreToolUse block becomes an is_error result and a denial; the tool never runs", async () => {
    log.length = 0;
    const { bus } = tableBus({ PreToolUse: () => ({ blocked: true, blockReason: "no slow things" }) });
    const { d, provider } = deps([{ content: [{ type: "tool_use", name: "Slow", input: { ms: 1, tag: "x" } }] }, { content: [{ type: "text", text: "ok" }] }], { hooks: bus });
    const { result } = await drain(runTurn(d, { messages: [] }, "go", new AbortController().signal));
    expect(log).toEqual([]);
    expect(result.permissionDenials).toHaveLength(1);
    const tr = (provider.requests[1]!.messages.at(-1)!.content as any[])[0];
    expect(tr).toMatchObject({ is_error: true, content: "PreToolUse:Slow hook error: no slow things" });
  });

  test("PreToolUse updatedInput replaces the input; PostToolUse context reaches the model", async () => {
    log.length = 0;
    const { bus, seen } = tableBus({
      PreToolUse: () => ({ permissionDecision: "allow", updatedInput: { ms: 1, tag: "rewritten" } }),
      PostToolUse: () => ({ additionalContext: ["formatted it"] }),
    });
    const { d, provider } = deps([{ content: [{ type: "tool_use", name: "Slow", input: { ms: 1, tag: "orig" } }] }, { content: [{ type: "text", text: "ok" }] }], { hooks: bus });
    await drain(runTurn(d, { messages: [] }, "go", new AbortController().signal));
    expect(log).toEqual(["start rewritten", "end rewritten"]);
    const post = seen.find((s) => s.event === "PostToolUse")!;
    expect(post.payload).toMatchObject({ tool_name: "Slow", tool_input: { tag: "rewritten" }, tool_response: "done rewritten" });
    expect(JSON.stringify(provider.requests[1]!.messages.at(-1))).toContain("formatted it");
  });

  test("abort during a tool ends with aborted_tools and every tool_use has a result", async () => {
    const ctrl = new AbortController();
    const { d } = deps([{ content: [{ type: "tool_use", name: "Mut", input: { ms: 5000, tag: "abort-me" } }, { type: "tool_use", name: "Mut", input: { ms: 1, tag: "next" } }] }]);
    const convo: Conversation = { messages: [] };
    // Abort once the tool runs (at a fixed 50 ms a starved process could still be streaming: aborted_streaming).
    void waitFor(() => log.includes("start abort-me"), "the long tool to start").then(() => ctrl.abort());
    const { result } = await drain(runTurn(d, convo, "go", ctrl.signal));
    expect(result.terminalReason).toBe("aborted_tools");
    expect(result.isError).toBe(true);
    const last = convo.messages.at(-1)!;
    expect((last.content as any[]).filter((b) => b.type === "tool_result")).toHaveLength(2);
  });

  test("transcript: one assistant line per content block, chained by parentUuid (contracts §5.2)", async () => {
    const { d, lines } = deps([{ content: [{ type: "text", text: "a" }, { type: "tool_use", name: "Slow", input: { ms: 1, tag: "t" } }] }, { content: [{ type: "text", text: "b" }] }]);
    await drain(runTurn(d, { messages: [] }, "go", new AbortController().signal));
    const conv = lines as any[];
    expect(conv.map((l) => l.type)).toEqual(["user", "assistant", "assistant", "user", "assistant"]);
    for (let i = 1; i < conv.length; i++) expect(conv[i].parentUuid).toBe(conv[i - 1].uuid);
    expect(conv[3].toolUseResult).toBe("done t");
    expect(conv[3].sourceToolAssistantUUID).toBe(conv[2].uuid);
  });

  test("UserPromptSubmit block ends the turn without a model call", async () => {
    const { bus } = tableBus({ UserPromptSubmit: () => ({ blocked: true, blockReason: "no secrets" }) });
    const { d, provider } = deps([], { hooks: bus });
    const { result } = await drain(runTurn(d, { messages: [] }, "my password is", new AbortController().signal));
    expect(provider.requests).toHaveLength(0);
    expect(result.isError).toBe(true);
    expect(result.result).toContain("no secrets");
  });
});

describe("endedOnDenial (headless exit 3, issue 5 §6)", () => {
  const slow = (tag: string) => ({ type: "tool_use" as const, name: "Slow", input: { ms: 1, tag } });
  const mut = (tag: string) => ({ type: "tool_use" as const, name: "Mut", input: { ms: 1, tag } });
  const text = (t: string) => ({ content: [{ type: "text" as const, text: t }] });
  const runWith = async (script: ScriptedEntry[], maxTurns?: number) => {
    const { d } = deps(script, { permissions: modeOnlyEvaluator("default"), maxTurns });
    return (await drain(runTurn(d, { messages: [] }, "go", new AbortController().signal))).result;
  };
  test("set when the last denial came after the last successful call", async () => {
    const r = await runWith([{ content: [slow("a")] }, { content: [mut("b")] }, text("gave up")]);
    expect(r.permissionDenials).toHaveLength(1);
    expect(r.endedOnDenial).toBe(true);
  });
  test("cleared by a later successful call, even in the same batch", async () => {
    expect((await runWith([{ content: [mut("a")] }, { content: [slow("b")] }, text("ok")])).endedOnDenial).toBeUndefined();
    expect((await runWith([{ content: [mut("a"), slow("b")] }, text("ok")])).endedOnDenial).toBeUndefined();
    expect((await runWith([{ content: [slow("b"), mut("a")] }, text("stuck")])).endedOnDenial).toBe(true);
  });
  test("not set on error results (max turns): those exit 1 anyway", async () => {
    const r = await runWith([{ content: [mut("a")] }, { content: [mut("b")] }], 1);
    expect(r.subtype).toBe("error_max_turns");
    expect(r.endedOnDenial).toBeUndefined();
  });
});

describe("a reply cut by max_tokens inside a tool_use (issue 11 point 8)", () => {
  test.each([
    ["input that does not parse", { __invalid_json__: '{"ms": 5, "tag": "hal' }],
    // What arrived may even parse (cut right after a value): it is still not the whole input.
    ["input that happens to parse", { ms: 5, tag: "half" }],
  ])("the cut call never runs (%s); calls before it do; the model is told to send a smaller input", async (_what, cutInput) => {
    log.length = 0;
    const { d, provider } = deps([
      {
        content: [
          { type: "text", text: "Writing both." },
          { type: "tool_use", name: "Mut", input: { ms: 1, tag: "whole" } },
          { type: "tool_use", name: "Mut", input: cutInput },
        ],
        stop_reason: "max_tokens",
      },
      { content: [{ type: "text", text: "ok, smaller" }] },
    ]);
    const { result } = await drain(runTurn(d, { messages: [] }, "go", new AbortController().signal));
    expect(result.result).toBe("ok, smaller");
    expect(log).toEqual(["start whole", "end whole"]);
    const results = provider.requests[1]!.messages.at(-1)!.content as any[];
    expect(results[0]).toMatchObject({ type: "tool_result", is_error: false });
    expect(results[1]).toMatchObject({ type: "tool_result", is_error: true, content: cutToolUse("Mut") });
  });

  test("max_tokens after a complete text reply ends the turn as before (nothing to guard)", async () => {
    const { d } = deps([{ content: [{ type: "text", text: "long answer, cut" }], stop_reason: "max_tokens" }]);
    const { result } = await drain(runTurn(d, { messages: [] }, "go", new AbortController().signal));
    expect(result).toMatchObject({ result: "long answer, cut", stopReason: "max_tokens", isError: false });
  });
});
