import { describe, expect, test } from "bun:test";
import { eventPayload } from "../../src/hook/events/index.ts";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createHookBus } from "../../src/hook/bus.ts";
import { autoCompactThreshold, createCompactor, isCompactCommand, type CompactionDeps } from "../../src/loop/compaction.ts";
import { createUsageTracker } from "../../src/loop/usage.ts";
import type { LoopEvent } from "../../src/loop/events.ts";
import type { Message } from "../../src/provider/types.ts";
import { compactInstructionsOf, formatModelSummary, keepFromIndex } from "../../src/session/compact-prompt.ts";
import { SUMMARY_PREAMBLE } from "../../src/session/compact.ts";
import { createTranscript } from "../../src/session/transcript.ts";
import type { MetaEntry, SessionEntry } from "../../src/session/types.ts";
import { scriptedProvider, type ScriptedEntry } from "../helpers/scripted-provider.ts";
import { tempDir } from "../helpers/tmp.ts";

describe("autoCompactThreshold (internals §6.1, seed 000)", () => {
  test("200K window − 20K output reserve − 13K buffer = 167K", () => {
    expect(autoCompactThreshold("claude-sonnet-4-5", {})).toBe(167_000);
    // The 5.5 generation has a 1,000,000-token window (observed in 2.1.332; provider/models.ts).
    expect(autoCompactThreshold("claude-sonnet-5-5", {})).toBe(967_000);
  });
  test("CLAUDE_CODE_AUTO_COMPACT_WINDOW and autoCompactWindow set the window (clamped to 100K–1M); the env wins", () => {
    expect(autoCompactThreshold("claude-sonnet-4-5", { CLAUDE_CODE_AUTO_COMPACT_WINDOW: "120000" })).toBe(87_000);
    expect(autoCompactThreshold("claude-sonnet-4-5", {}, { autoCompactWindow: 500_000 })).toBe(467_000);
    expect(autoCompactThreshold("claude-sonnet-4-5", { CLAUDE_CODE_AUTO_COMPACT_WINDOW: "120000" }, { autoCompactWindow: 500_000 })).toBe(87_000);
    expect(autoCompactThreshold("claude-sonnet-4-5", { CLAUDE_CODE_AUTO_COMPACT_WINDOW: "5000" })).toBe(67_000);
    expect(autoCompactThreshold("claude-sonnet-4-5", { CLAUDE_CODE_AUTO_COMPACT_WINDOW: "junk" })).toBe(167_000);
  });
  test("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE can only lower the threshold", () => {
    expect(autoCompactThreshold("claude-sonnet-4-5", { CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: "50" })).toBe(90_000);
    expect(autoCompactThreshold("claude-sonnet-4-5", { CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: "100" })).toBe(167_000);
  });
});

describe("summary prompt pieces", () => {
  test("formatModelSummary drops the analysis and labels the summary (internals §6.3)", () => {
    expect(formatModelSummary("<analysis>scratch</analysis>\n<summary>Kept work</summary>")).toBe("Summary:\nKept work");
  });
  test("compactInstructionsOf takes the Compact Instructions section up to the next heading of its level", () => {
    const md = "# A\n\n## Compact Instructions\nkeep X\n### detail\nkeep Y\n## Next\nnot this\n";
    expect(compactInstructionsOf(md)).toBe("keep X\n### detail\nkeep Y");
    expect(compactInstructionsOf("# Summary instructions\nZ")).toBe("Z");
    expect(compactInstructionsOf("# Nothing\n")).toBe("");
  });
  test("keepFromIndex never starts the kept tail with a tool_result", () => {
    const msgs: Message[] = [
      { role: "user", content: "go" },
      { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "Read", input: {} }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "x" }] },
      { role: "assistant", content: [{ type: "text", text: "done" }] },
    ];
    expect(keepFromIndex(msgs, 2)).toBe(1);
    expect(keepFromIndex(msgs, 1)).toBe(3);
  });
  test("isCompactCommand", () => {
    expect(isCompactCommand("/compact")).toBe(true);
    expect(isCompactCommand("  /compact focus on x")).toBe(true);
    expect(isCompactCommand("/compaction")).toBe(false);
    expect(isCompactCommand("please /compact")).toBe(false);
  });
});

function setup(o: { script?: ScriptedEntry[]; env?: Record<string, string>; deps?: Partial<CompactionDeps>; settings?: Record<string, unknown> } = {}) {
  const dir = tempDir();
  const provider = scriptedProvider(o.script ?? []);
  const lines: Array<SessionEntry | MetaEntry> = [];
  const store = { sessionId: "s1", path: join(dir, "s1.jsonl"), append: (e: SessionEntry | MetaEntry) => void lines.push(e) };
  const transcript = createTranscript(store, { cwd: () => dir, version: "t", entrypoint: "test", uuid: () => crypto.randomUUID(), now: () => new Date() });
  const env = { YOKE_CONFIG_DIR: join(dir, ".yoke"), ...(o.env ?? {}) };
  const hooks = createHookBus({ settings: { merged: (o.settings ?? {}) as never, sources: [] }, projectDir: dir, cwd: () => dir, env, sessionId: "s1", yokeDir: env.YOKE_CONFIG_DIR });
  const compactor = createCompactor({
    provider,
    model: () => "claude-sonnet-5-5",
    tools: () => [],
    hooks,
    hookPayload: (event, fields) => eventPayload(event, { session_id: "s1" }, fields),
    transcript,
    usage: createUsageTracker(),
    env,
    settings: {},
    summaryProviders: () => [],
    compactInstructions: () => "",
    startupContext: () => ["<system-reminder>\nSTARTUP-CONTEXT\n</system-reminder>"],
    lastResponseTokens: () => 0,
    transcriptPath: store.path,
    ...o.deps,
  });
  return { dir, provider, lines, compactor, transcript, hooks };
}

const chat = (n: number, size = 40): Message[] =>
  Array.from({ length: n }, (_, i): Message => (i % 2 === 0 ? { role: "user", content: `question ${i} ${"q".repeat(size)}` } : { role: "assistant", content: [{ type: "text", text: `answer ${i} ${"a".repeat(size)}` }] }));

async function drain<T>(gen: AsyncGenerator<LoopEvent, T>): Promise<{ events: LoopEvent[]; value: T }> {
  const events: LoopEvent[] = [];
  for (;;) {
    const s = await gen.next();
    if (s.done) return { events, value: s.value };
    events.push(s.value);
  }
}
const collect = async (it: AsyncIterable<LoopEvent>) => {
  const out: LoopEvent[] = [];
  for await (const e of it) out.push(e);
  return out;
};
const ac = () => new AbortController().signal;

describe("createCompactor", () => {
  test("model summary: boundary (parentUuid null) + isCompactSummary + kept lines; conversation restarts from the summary with the startup context", async () => {
    const { compactor, lines, provider } = setup({ script: [{ content: [{ type: "text", text: "<summary>THE-SUMMARY</summary>" }] }] });
    const convo = { messages: chat(10) };
    const { events, value } = await drain(compactor.compact(convo, { trigger: "manual", focus: "the parser", signal: ac() }));
    expect(value).toMatchObject({ ok: true, kind: "summary", removed: 6 });
    expect(events.map((e) => (e.type === "system" ? `${e.subtype}:${JSON.stringify(e.data)}` : e.type))).toEqual([
      'status:{"status":"compacting"}',
      expect.stringContaining('compact_boundary:{"compact_metadata":{"trigger":"manual","pre_tokens":'),
      'status:{"status":null}',
    ]);
    const sent = JSON.stringify(provider.requests[0]!.messages);
    expect(sent).toContain("Focus requested for this compaction: the parser");
    expect(provider.requests[0]!.messages.length).toBe(7); // 6 condensed + the instruction
    const first = convo.messages[0]!;
    expect(first.role).toBe("user");
    expect(JSON.stringify(first.content)).toContain("Summary:\\nTHE-SUMMARY");
    expect(JSON.stringify(first.content)).toContain("STARTUP-CONTEXT");
    expect(convo.messages.length).toBe(4); // summary merged with the first kept user message, then 3 more
    expect(JSON.stringify(first.content)).toContain("question 6");
    const boundary = lines.find((l) => (l as SessionEntry).type === "system") as SessionEntry & { subtype: string };
    expect(boundary).toMatchObject({ subtype: "compact_boundary", parentUuid: null, compactMetadata: { trigger: "manual" } });
    const after = lines.slice(lines.indexOf(boundary) + 1) as SessionEntry[];
    expect(after[0]).toMatchObject({ type: "user", isCompactSummary: true, parentUuid: boundary.uuid });
    expect(after.length).toBe(5);
  });

  test("SessionStart hooks fire with source compact; their context joins the summary", async () => {
    const { compactor, hooks } = setup({ script: [{ content: [{ type: "text", text: "<summary>S</summary>" }] }] });
    const sources: unknown[] = [];
    hooks.registerInProcess(
      "SessionStart",
      (p) => {
        sources.push(p.source);
        return { hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: "HOOK-CONTEXT-AFTER-COMPACT" } };
      },
      { source: "test" },
    );
    const convo = { messages: chat(10) };
    await drain(compactor.compact(convo, { trigger: "auto", signal: ac() }));
    expect(sources).toEqual(["compact"]);
    expect(JSON.stringify(convo.messages[0]!.content)).toContain("HOOK-CONTEXT-AFTER-COMPACT");
  });

  test("a model failure falls back to the local summary, so the session never dead-ends", async () => {
    const { compactor } = setup({ script: [{ fault: 500 }, { fault: 500 }, { fault: 500 }, { fault: 500 }, { fault: 500 }] });
    const convo = { messages: chat(10) };
    const { events, value } = await drain(compactor.compact(convo, { trigger: "auto", signal: ac() }));
    expect(value).toMatchObject({ ok: true, kind: "local" });
    expect(events.some((e) => e.type === "system" && e.subtype === "notification" && String(e.data.message).includes("local summary"))).toBe(true);
    expect(JSON.stringify(convo.messages[0]!.content)).toContain(SUMMARY_PREAMBLE);
  });

  test("a plugin summary provider answers first: no model call", async () => {
    const { compactor, provider } = setup({ deps: { summaryProviders: () => [async () => ({ summary: "FROM-SESSION-MEMORY", keepRecent: 2 })] } });
    const convo = { messages: chat(10) };
    const { value } = await drain(compactor.compact(convo, { trigger: "auto", signal: ac() }));
    expect(value).toMatchObject({ ok: true, kind: "provider", removed: 8 });
    expect(provider.requests.length).toBe(0);
    expect(JSON.stringify(convo.messages[0]!.content)).toContain("FROM-SESSION-MEMORY");
  });

  test("a PreCompact hook that blocks (decision block) stops compaction; /compact reports it as an error result", async () => {
    const { compactor, provider, hooks } = setup();
    let seen: Record<string, unknown> = {};
    hooks.registerInProcess(
      "PreCompact",
      (p) => {
        seen = p;
        return { decision: "block", reason: "no compaction today" };
      },
      { source: "test" },
    );
    const convo = { messages: chat(10) };
    const before = convo.messages;
    const { value } = await drain(compactor.manual(convo, "/compact", ac()));
    expect(value.isError).toBe(true);
    expect(value.result).toContain("PreCompact hook blocked");
    expect(value.result).toContain("no compaction today");
    expect(convo.messages).toBe(before);
    expect(provider.requests.length).toBe(0);
    expect(seen).toMatchObject({ hook_event_name: "PreCompact", trigger: "manual", custom_instructions: "" });
  });

  test("auto: clearing old tool outputs is enough when it frees the context (no summary call)", async () => {
    const { compactor, provider } = setup({ env: { CLAUDE_CODE_AUTO_COMPACT_WINDOW: "100000", CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: "10" } });
    const msgs: Message[] = [{ role: "user", content: "start" }];
    for (let i = 0; i < 20; i++) {
      msgs.push({ role: "assistant", content: [{ type: "tool_use", id: `t${i}`, name: "Read", input: { file_path: `/x/${i}` } }] });
      msgs.push({ role: "user", content: [{ type: "tool_result", tool_use_id: `t${i}`, content: "z".repeat(2000) }] });
    }
    const convo = { messages: msgs };
    const events = await collect(compactor.beforeRequest(convo, ac()));
    expect(events.some((e) => e.type === "system" && e.subtype === "status")).toBe(true);
    expect(provider.requests.length).toBe(0);
    expect(JSON.stringify(convo.messages)).toContain("Older tool output removed");
    expect(convo.messages.length).toBe(msgs.length);
  });

  test("after 3 failed auto compactions in a row it stops trying and says so", async () => {
    // Two huge messages: over the threshold, but too little conversation to compact.
    const { compactor } = setup({ env: { CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: "1" } });
    const convo = { messages: [{ role: "user", content: "x".repeat(20_000) }, { role: "assistant", content: [{ type: "text", text: "y".repeat(20_000) }] }] as Message[] };
    const notices: string[] = [];
    for (let i = 0; i < 5; i++)
      for (const e of await collect(compactor.beforeRequest(convo, ac()))) if (e.type === "system" && e.subtype === "notification") notices.push(String(e.data.message));
    expect(notices.filter((n) => n.startsWith("auto-compaction failed:")).length).toBe(3);
    expect(notices.at(-1)).toContain("failed 3 times in a row");
  });

  test("recently touched files come back after compaction; one over 5,000 tokens as its path only", async () => {
    const { compactor, dir } = setup({ script: [{ content: [{ type: "text", text: "<summary>S</summary>" }] }] });
    const small = join(dir, "small.ts");
    const large = join(dir, "large.ts");
    writeFileSync(small, "export const SMALL = 1;\n");
    writeFileSync(large, "x".repeat(30_000));
    compactor.noteToolCalls([
      { type: "tool_use", id: "a", name: "Read", input: { file_path: small } },
      { type: "tool_use", id: "b", name: "Edit", input: { file_path: large } },
    ]);
    const convo = { messages: chat(10) };
    await drain(compactor.compact(convo, { trigger: "manual", signal: ac() }));
    const first = JSON.stringify(convo.messages[0]!.content);
    expect(first).toContain("export const SMALL = 1;");
    expect(first).toContain(`${large} was read earlier in this session; it is too large`);
    expect(first).not.toContain("xxxxxxxxxx");
  });
});
