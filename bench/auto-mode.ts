/**
 * Auto mode's cost per classified action (issue 19 point 5). Prints medians:
 *  - harness time per classified action: runToolCall in auto mode with a classifier that answers at once
 *    (in process), minus the same call allowed by a rule (target < 10 ms);
 *  - the same over real HTTP/SSE to the local fake Anthropic API, and that minus one bare request of the
 *    same size to the same fake (what the harness adds around the request);
 *  - classifier tokens per 100 actions in a session that grows to 100 tool calls with ~1.5 KB results
 *    (the fake's estimate, about 4 characters a token), and the cost at the default classifier model.
 * Run: bun run bench/auto-mode.ts
 */
import { rmSync } from "node:fs";
import { z } from "zod";
import { runToolCall, type ToolRunnerDeps } from "../src/loop/tool-runner.ts";
import { createAutoMode } from "../src/permission/auto/auto-mode.ts";
import { createClassifier } from "../src/permission/auto/classifier.ts";
import { denialLogPath, recordDenial } from "../src/permission/auto/denial-log.ts";
import { createPermissionEvaluator } from "../src/permission/index.ts";
import { anthropicConfigFromEnv, createAnthropicProvider } from "../src/provider/anthropic/provider.ts";
import { costUsd, resolveModel } from "../src/provider/models.ts";
import type { Message, Provider, Usage } from "../src/provider/types.ts";
import { defineTool } from "../src/tool/define-tool.ts";
import { createFileState } from "../src/tool/file-state.ts";
import { createToolRegistry } from "../src/tool/registry.ts";
import { newSessionState } from "../src/tool/types.ts";
import { startFakeAnthropic } from "../test/helpers/fake-anthropic.ts";
import { createHookBus } from "../src/hook/bus.ts";
import { tempDir } from "../test/helpers/tmp.ts";

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ACTIONS = 100;
const root = tempDir("yoke-bench-auto-");
const MODEL = resolveModel("haiku");

const tool = defineTool({ name: "Net", description: "an action no rule allows", input: z.object({ command: z.string() }), readOnly: false, execute: () => ({ content: "ok" }) });

/** A session of `n` earlier actions: the user's request, then Bash calls with ~1.5 KB results. */
function history(n: number): Message[] {
  const out: Message[] = [{ role: "user", content: "Upgrade the test runner, fix what breaks, and open a branch with the changes." }];
  for (let i = 0; i < n; i++) {
    out.push({ role: "assistant", content: [{ type: "text", text: `Step ${i}: checking.` }, { type: "tool_use", id: `toolu_h${i}`, name: "Bash", input: { command: `npm test -- --grep case-${i} && git diff --stat` } }] });
    out.push({ role: "user", content: [{ type: "tool_result", tool_use_id: `toolu_h${i}`, content: `PASS case-${i}\n${"  ✓ some test line with output\n".repeat(50)}` }] });
  }
  return out;
}

function deps(provider: Provider | undefined, usage?: { add(m: string, u: Usage, ms: number): void }, allowRule = false): ToolRunnerDeps {
  const settings = { permissions: { allow: allowRule ? ["Net"] : [], deny: ["Bash(rm:*)", "Read(./.env)"] } };
  const env = { HOME: root, YOKE_CONFIG_DIR: `${root}/.yoke` };
  const file = denialLogPath(root, env);
  const session = newSessionState(root);
  return {
    tools: createToolRegistry([tool]),
    hooks: createHookBus({ settings: { merged: {}, sources: [] }, projectDir: root, cwd: () => root, env, sessionId: "bench", yokeDir: `${root}/.yoke` }),
    permissions: createPermissionEvaluator({ settings: { merged: settings, sources: [{ level: "local", path: "s.json", ruleRoot: root, settings }] }, mode: "auto", cwd: root, env }),
    hookPayload: (event, fields) => ({ hook_event_name: event, ...fields }),
    context: (toolUseId, signal) => ({ cwd: root, projectDir: root, workingDirectories: [root], sessionId: "bench", signal, env, fileState: createFileState(), session, toolUseId }),
    clock: () => Date.now(),
    autoMode: provider
      ? createAutoMode({
          classify: createClassifier({ provider, model: MODEL, instructions: () => [], usage, timeoutMs: 60_000 }),
          rules: () => ({ allow: [], ask: [], deny: ["Bash(rm:*)", "Read(./.env)"] }),
          sessionId: "bench",
          record: (d) => recordDenial(file, d),
        })
      : undefined,
  };
}

const ALLOW = JSON.stringify({ decision: "allow", reason: "part of the upgrade the user asked for" });
const instant: Provider = {
  async *stream(req) {
    const message = { id: "msg_b", type: "message" as const, role: "assistant" as const, model: req.model, content: [{ type: "text" as const, text: ALLOW }], stop_reason: "end_turn" as const, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } };
    yield { type: "done", message, durationMs: 0 };
  },
};

async function perAction(d: ToolRunnerDeps, rounds: number, h: Message[]): Promise<number[]> {
  const xs: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t = performance.now();
    const out = await runToolCall(d, { type: "tool_use", id: `toolu_${i}`, name: "Net", input: { command: `make release-${i}` } }, new AbortController().signal, h);
    xs.push(performance.now() - t);
    if (out.block.is_error) throw new Error(`bench action failed: ${String(out.block.content)}`);
  }
  return xs;
}

const h50 = history(50);
// warm up
await perAction(deps(instant), 50, h50);
await perAction(deps(undefined, undefined, true), 50, h50);
const classified = median(await perAction(deps(instant), 400, h50));
const byRule = median(await perAction(deps(undefined, undefined, true), 400, h50));

// Over HTTP to the fake.
const fake = await startFakeAnthropic({ validate: false });
const http = createAnthropicProvider(anthropicConfigFromEnv({ ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: "sk-bench" }, "bench"));
const answer = () => ({ content: [{ type: "text" as const, text: ALLOW }] });
const ROUNDS = 60;
for (let i = 0; i < ROUNDS * 2 + 10; i++) fake.push(answer());
await perAction(deps(http), 10, h50);
const overHttp = median(await perAction(deps(http), ROUNDS, h50));
const bareReq = fake.requests.at(-1)!.body;
const bare: number[] = [];
for (let i = 0; i < ROUNDS; i++) {
  const t = performance.now();
  for await (const ev of http.stream({ model: bareReq.model, system: bareReq.system, messages: bareReq.messages, tools: bareReq.tools, maxTokens: bareReq.max_tokens }, new AbortController().signal))
    if (ev.type === "error") throw new Error(ev.error.message);
  bare.push(performance.now() - t);
}
const bareMs = median(bare);

// Tokens per 100 actions in a growing session.
const tokens = { input: 0, output: 0, requests: 0 };
let cost = 0;
const counting = { add: (m: string, u: Usage) => ((tokens.input += u.input_tokens), (tokens.output += u.output_tokens), tokens.requests++, (cost += costUsd(m, u))) };
for (let i = 0; i < ACTIONS; i++) fake.push({ content: [{ type: "text", text: ALLOW }] });
const growing = deps(http, counting);
for (let i = 0; i < ACTIONS; i++) await perAction(growing, 1, history(i));
await fake.stop();
rmSync(root, { recursive: true, force: true });

const f = (ms: number) => `${ms.toFixed(2)} ms`;
console.log("| figure | median |");
console.log("| --- | --- |");
console.log(`| harness time per classified action (in-process instant classifier, 50 earlier actions) | ${f(classified - byRule)} (classified ${f(classified)} − rule-allowed ${f(byRule)}); target < 10 ms |`);
console.log(`| per classified action over HTTP/SSE to the local fake | ${f(overHttp)} |`);
console.log(`| … minus one bare request of the same size to the same fake | ${f(overHttp - bareMs)} (bare request ${f(bareMs)}) |`);
console.log(`| classifier tokens per ${ACTIONS} actions (session growing 0→${ACTIONS - 1} earlier actions) | ${tokens.input} input + ${tokens.output} output in ${tokens.requests} requests (${Math.round(tokens.input / tokens.requests)} input per action) |`);
console.log(`| classifier cost per ${ACTIONS} actions at ${MODEL} | $${cost.toFixed(4)} |`);
