/**
 * Compaction of a ~150,000-token session (also run at the end of bench/sessions.ts) against the fake Anthropic API (issue 7 item 7):
 * harness time of one auto compaction (tool-output clearing, summary request build and send,
 * transcript lines, context rebuild) excluding the model's latency, target < 1 s.
 *   bun bench/compaction.ts [tokens]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { eventPayload } from "../src/hook/events/index.ts";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHookBus } from "../src/hook/bus.ts";
import { createCompactor } from "../src/loop/compaction.ts";
import { createUsageTracker } from "../src/loop/usage.ts";
import { anthropicConfigFromEnv, createAnthropicProvider } from "../src/provider/anthropic/provider.ts";
import type { Message, Provider } from "../src/provider/types.ts";
import { estimateTokens } from "../src/session/compact.ts";
import { createSessionStore } from "../src/session/store.ts";
import { createTranscript } from "../src/session/transcript.ts";
import { startFakeAnthropic } from "../test/helpers/fake-anthropic.ts";

const target = Number(process.argv[2] ?? 150_000);
const dir = mkdtempSync(join(tmpdir(), "yoke-bench-compact-"));
const env = { YOKE_CONFIG_DIR: join(dir, ".yoke"), HOME: dir } as Record<string, string>;
const fake = await startFakeAnthropic();

function session(textHeavy: boolean): Message[] {
  const msgs: Message[] = [];
  let i = 0;
  while (estimateTokens(msgs) < target) {
    msgs.push({ role: "user", content: `Step ${i}: look at src/mod${i}.ts and fix what fails.` });
    const id = `toolu_${i}`;
    msgs.push({ role: "assistant", content: [{ type: "text", text: "Reading it." }, { type: "tool_use", id, name: "Read", input: { file_path: `${dir}/src/mod${i}.ts` } }] });
    msgs.push({ role: "user", content: [{ type: "tool_result", tool_use_id: id, content: `export const v${i} = ${i}; // some code here\n`.repeat(textHeavy ? 2 : 60) }] });
    msgs.push({ role: "assistant", content: [{ type: "text", text: `Fixed step ${i}; the tests pass now. ${"Notes on the change. ".repeat(textHeavy ? 120 : 10)}` }] });
    i++;
  }
  return msgs;
}

const modelMsOf = (runs: Array<{ model: number }>) => runs[0]!.model;
async function bench(trigger: "auto" | "manual", textHeavy: boolean) {
const runs: Array<{ total: number; model: number; pre: number; post: number; kind: string }> = [];
for (let r = 0; r < 5; r++) {
  const sessionId = crypto.randomUUID();
  const store = createSessionStore({ cwd: dir, sessionId, env, persist: true });
  const transcript = createTranscript(store, { cwd: () => dir, version: "bench", entrypoint: "bench", uuid: () => crypto.randomUUID(), now: () => new Date() });
  const convo = { messages: session(textHeavy) };
  for (const m of convo.messages) if (m.role === "user") transcript.user(m); else if (m.role === "assistant") transcript.assistant({ id: "msg_x", type: "message", role: "assistant", model: "claude-sonnet-5-5", content: m.content, stop_reason: "end_turn", stop_sequence: null, usage: { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } });
  const inner = createAnthropicProvider(anthropicConfigFromEnv({ ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: "sk-bench" }, "bench"));
  let modelMs = 0;
  // The fake answers at once, so what the provider spends is serialization and HTTP: counted as harness;
  // only the fake's own think time (delayMs) would be model latency.
  const provider: Provider = { stream: inner.stream };
  if (trigger === "manual" || textHeavy) {
    fake.push({ content: [{ type: "text", text: `<summary>${"Summary line of the earlier work. ".repeat(200)}</summary>` }], delayMs: 200 });
    modelMs = 200;
  }
  const hooks = createHookBus({ settings: { merged: {}, sources: [] }, projectDir: dir, cwd: () => dir, env, sessionId, yokeDir: env.YOKE_CONFIG_DIR! });
  const usage = createUsageTracker();
  const compactor = createCompactor({
    provider,
    model: () => "claude-sonnet-5-5",
    tools: () => [],
    hooks,
    hookPayload: (event, fields) => eventPayload(event, {}, fields),
    transcript,
    usage,
    env,
    settings: {},
    summaryProviders: () => [],
    compactInstructions: () => "",
    startupContext: () => [],
    lastResponseTokens: () => 0,
    transcriptPath: store.path,
  });
  const t0 = performance.now();
  const gen = compactor.compact(convo, { trigger, signal: new AbortController().signal });
  let step = await gen.next();
  while (!step.done) step = await gen.next();
  const total = performance.now() - t0;
  if (!step.value.ok) throw new Error(`compaction failed: ${step.value.reason}`);
  runs.push({ total, model: modelMs, pre: step.value.preTokens, post: step.value.postTokens, kind: step.value.kind });
  store.close?.();
}
const harness = runs.map((r) => r.total - r.model).sort((a, b) => a - b);
const med = harness[Math.floor(harness.length / 2)]!;
console.log(`compaction bench (${trigger}, ${textHeavy ? "text-heavy" : "tool-output-heavy"} session, ${runs[0]!.kind}): ~${runs[0]!.pre} tokens → ${runs[0]!.post} tokens${modelMsOf(runs) ? " (model summary via the fake API, 200 ms simulated model latency subtracted)" : ""}`);
console.log(`  harness time excluding model latency: median ${med.toFixed(0)} ms (min ${harness[0]!.toFixed(0)}, max ${harness.at(-1)!.toFixed(0)})  (target < 1000 ms)`);
}
await bench("auto", false);
await bench("auto", true);
await bench("manual", false);
await fake.stop();
rmSync(dir, { recursive: true, force: true });
