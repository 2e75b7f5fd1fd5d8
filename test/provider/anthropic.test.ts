import { describe, expect, test } from "bun:test";
import { createAnthropicProvider, withCacheControl } from "../../src/provider/anthropic/provider.ts";
import { classifyError, retryDelay } from "../../src/provider/anthropic/retry.ts";
import { resolveModel, costUsd } from "../../src/provider/models.ts";
import type { ProviderEvent } from "../../src/provider/types.ts";
import { startFakeAnthropic } from "../helpers/fake-anthropic.ts";

describe("provider pieces", () => {
  test("cache_control on the last system block and the last message's last block", () => {
    const r = withCacheControl(
      [{ type: "text", text: "a" }, { type: "text", text: "b" }],
      [{ role: "user", content: "hi" }, { role: "assistant", content: [{ type: "text", text: "x" }] }, { role: "user", content: "again" }],
    );
    expect(r.system[0]!.cache_control).toBeUndefined();
    expect(r.system[1]!.cache_control).toEqual({ type: "ephemeral" });
    expect(r.messages[0]!.content).toBe("hi");
    expect(r.messages[2]!.content).toEqual([{ type: "text", text: "again", cache_control: { type: "ephemeral" } }]);
  });
  test("classification: retryable statuses and connection errors; 400/401 are not", () => {
    expect(classifyError({ status: 429 }).retryable).toBe(true);
    expect(classifyError({ status: 529 }).kind).toBe("overloaded");
    expect(classifyError({ status: 503 }).retryable).toBe(true);
    expect(classifyError({ status: 400 }).retryable).toBe(false);
    expect(classifyError({ status: 401 }).kind).toBe("authentication_failed");
    expect(classifyError(new Error("socket hang up")).retryable).toBe(true);
    const h = new Headers({ "retry-after": "7" });
    expect(classifyError({ status: 429, headers: h }).retryAfterMs).toBe(7000);
  });
  test("backoff grows, is capped, and retry-after wins", () => {
    const mid = () => 0.5;
    expect(retryDelay(1, 500, null, mid)).toBe(500);
    expect(retryDelay(3, 500, null, mid)).toBe(2000);
    expect(retryDelay(20, 500, null, mid)).toBe(32000);
    expect(retryDelay(1, 500, 1234, mid)).toBe(1234);
  });
  test("aliases resolve from one table; cost counts cache tokens", () => {
    expect(resolveModel("opus")).toContain("opus");
    expect(resolveModel("claude-x-1")).toBe("claude-x-1");
    expect(costUsd("claude-sonnet-5-5", { input_tokens: 1e6, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 1e6 })).toBeCloseTo(2.2);
  });
});

describe("provider against the fake API", () => {
  const collect = async (it: AsyncIterable<ProviderEvent>) => {
    const out: ProviderEvent[] = [];
    for await (const e of it) out.push(e);
    return out;
  };
  const req = { model: "claude-sonnet-5-5", system: [{ type: "text" as const, text: "s" }], messages: [{ role: "user" as const, content: "hi" }], tools: [], maxTokens: 100 };

  test("done carries the response's request-id header (transcript requestId, stream-json request_id)", async () => {
    const fake = await startFakeAnthropic({ script: [{ content: [{ type: "text", text: "hi" }] }] });
    const p = createAnthropicProvider({ baseURL: fake.url, apiKey: "k", maxRetries: 0, retryBaseMs: 1, timeoutMs: 30_000, idleTimeoutMs: 30_000, userAgent: "t" });
    const done = (await collect(p.stream(req, new AbortController().signal))).at(-1)!;
    expect(done.type === "done" && done.requestId).toMatch(/^req_/);
    await fake.stop();
  });
  test("an in-stream error event is retried; at most maxRetries; the last error is reported", async () => {
    const fake = await startFakeAnthropic({ script: [{ fault: "error_event" }, { fault: 529 }, { fault: 529 }] });
    const p = createAnthropicProvider({ baseURL: fake.url, apiKey: "k", maxRetries: 2, retryBaseMs: 1, timeoutMs: 30_000, idleTimeoutMs: 30_000, userAgent: "t" });
    const evs = await collect(p.stream(req, new AbortController().signal));
    expect(evs.filter((e) => e.type === "retry").length).toBe(2);
    const last = evs.at(-1)!;
    expect(last.type).toBe("error");
    if (last.type === "error") expect(last.error.status).toBe(529);
    await fake.stop();
  });
  test("tool_use input assembled from input_json_delta chunks; prompt caching sent", async () => {
    const fake = await startFakeAnthropic({ script: [{ content: [{ type: "tool_use", name: "Read", input: { file_path: "/a/b", n: [1, 2, 3] } }] }] });
    const p = createAnthropicProvider({ baseURL: fake.url, apiKey: "k", maxRetries: 0, retryBaseMs: 1, timeoutMs: 30_000, idleTimeoutMs: 30_000, userAgent: "t" });
    const evs = await collect(p.stream(req, new AbortController().signal));
    const done = evs.at(-1)!;
    expect(done.type).toBe("done");
    if (done.type === "done") expect(done.message.content[0]).toMatchObject({ type: "tool_use", name: "Read", input: { file_path: "/a/b", n: [1, 2, 3] } });
    expect(fake.requests[0]!.body.system[0].cache_control).toEqual({ type: "ephemeral" });
    await fake.stop();
  });
  test("a stream that goes silent mid-way is dropped after the idle timeout and retried (headless runs never hang)", async () => {
    const fake = await startFakeAnthropic({ script: [{ fault: "hang" }, { content: [{ type: "text", text: "second try" }] }] });
    // The idle timer also runs from the retry's start to its first event: 200 ms could trip it again on a busy machine.
    const p = createAnthropicProvider({ baseURL: fake.url, apiKey: "k", maxRetries: 2, retryBaseMs: 1, timeoutMs: 30_000, idleTimeoutMs: 1000, userAgent: "t" });
    const evs = await collect(p.stream(req, new AbortController().signal));
    const retry = evs.find((e) => e.type === "retry");
    expect(retry).toMatchObject({ type: "retry", info: { attempt: 1, error_status: null } });
    const done = evs.at(-1)!;
    expect(done.type).toBe("done");
    if (done.type === "done") expect(done.message.content[0]).toMatchObject({ type: "text", text: "second try" });
    await fake.stop();
  });
  test("abort mid-request ends with an aborted error, never a throw", async () => {
    const fake = await startFakeAnthropic({ script: [{ fault: "hang" }] });
    const p = createAnthropicProvider({ baseURL: fake.url, apiKey: "k", maxRetries: 3, retryBaseMs: 1, timeoutMs: 30_000, idleTimeoutMs: 30_000, userAgent: "t" });
    const ctrl = new AbortController();
    setTimeout(() => ctrl.abort(), 50);
    const evs = await collect(p.stream(req, ctrl.signal));
    expect(evs.at(-1)).toMatchObject({ type: "error", error: { kind: "aborted" } });
    await fake.stop();
  });
});
