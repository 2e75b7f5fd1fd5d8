// Issue 21 point 2: the connection to the API opens while the run composes, and the first request uses it;
// housekeeping waits until the first request has left.
import { expect, test } from "bun:test";
import { createAnthropicProvider } from "../../src/provider/anthropic/provider.ts";
import { afterFirstRequest } from "../../src/cli/after-first-request.ts";
import { startFakeAnthropic } from "../helpers/fake-anthropic.ts";
import { scriptedProvider } from "../helpers/scripted-provider.ts";
import { waitFor } from "../helpers/wait-for.ts";

const cfg = (baseURL: string) => ({ baseURL, apiKey: "k", maxRetries: 0, retryBaseMs: 1, timeoutMs: 30_000, idleTimeoutMs: 30_000, userAgent: "t" });

test("warm() opens a TCP connection to the base URL before any request, and never throws", async () => {
  let opened = 0;
  const server = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { open: () => void opened++, data: () => {} } });
  try {
    const p = createAnthropicProvider(cfg(`http://127.0.0.1:${server.port}`));
    expect(p.warm).toBeDefined();
    p.warm!();
    await waitFor(() => opened > 0, "the preconnected socket at the server");
    // A base URL that cannot be parsed or reached: warm() still returns quietly; the request will say why.
    createAnthropicProvider(cfg("not a url")).warm!();
    createAnthropicProvider(cfg("http://127.0.0.1:1")).warm!();
  } finally {
    server.stop(true);
  }
});

test("after warm(), the first request goes through and is answered once (one client for both callers)", async () => {
  const fake = await startFakeAnthropic({ script: [{ content: [{ type: "text", text: "hi" }] }] });
  try {
    const p = createAnthropicProvider(cfg(fake.url));
    p.warm!();
    const events = [];
    for await (const ev of p.stream({ model: "test-model", system: [{ type: "text", text: "s" }], messages: [{ role: "user", content: "hello" }], tools: [], maxTokens: 64 }, new AbortController().signal)) events.push(ev);
    expect(events.at(-1)).toMatchObject({ type: "done" });
    expect(fake.requests).toHaveLength(1);
  } finally {
    await fake.stop();
  }
});

test("afterFirstRequest: the callback runs once, only after the first request has started, never before", async () => {
  const inner = scriptedProvider([{ content: [{ type: "text", text: "a" }] }, { content: [{ type: "text", text: "b" }] }]);
  let calls = 0;
  let requestsWhenCalled = -1;
  const p = afterFirstRequest(inner, () => {
    calls++;
    requestsWhenCalled = inner.requests.length;
  });
  const req = { model: "m", system: [], messages: [{ role: "user" as const, content: "x" }], tools: [], maxTokens: 8 };
  await Bun.sleep(0);
  expect(calls).toBe(0);
  for await (const _ of p.stream(req, new AbortController().signal));
  await waitFor(() => calls === 1, "the callback after the first request");
  expect(requestsWhenCalled).toBe(1);
  for await (const _ of p.stream(req, new AbortController().signal));
  await Bun.sleep(0);
  expect(calls).toBe(1);
});
