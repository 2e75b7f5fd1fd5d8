import Anthropic, { APIError } from "@anthropic-ai/sdk";
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { startFakeAnthropic, toolResultsOf, type FakeAnthropic } from "./fake-anthropic.ts";
import { EXHAUSTED_TEXT } from "./fake-messages.ts";

let fake: FakeAnthropic;
let client: Anthropic;

beforeEach(async () => {
  fake = await startFakeAnthropic();
  client = new Anthropic({ baseURL: fake.url, apiKey: "test", maxRetries: 0 });
});
afterEach(async () => {
  await fake.stop();
});

const params = {
  model: "claude-test-1",
  max_tokens: 256,
  system: [{ type: "text" as const, text: "You are a test." }],
  messages: [{ role: "user" as const, content: "Say hello, then read a file." }],
};

/** Streams one request and collects the raw events the SDK yielded. */
async function streamRaw() {
  const s = client.messages.stream(params);
  const types: string[] = [];
  s.on("streamEvent", (e) => types.push(e.type));
  return { s, types };
}

/** The error a promise rejects with (fails the test if it resolves). */
async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error("expected a rejection, got a value");
}

describe("streaming replies through the real SDK", () => {
  test("text arrives as several text_delta chunks in the real event order", async () => {
    const text = "Hello from the fake Anthropic API, streamed in pieces.";
    fake.push({ content: [{ type: "text", text }] });
    const { s, types } = await streamRaw();
    const deltas: string[] = [];
    s.on("text", (d) => deltas.push(d));
    const msg = await s.finalMessage();

    expect(msg.content).toEqual([{ type: "text", text }] as any);
    expect(msg.stop_reason).toBe("end_turn");
    expect(msg.role).toBe("assistant");
    expect(msg.id).toMatch(/^msg_/);
    expect(msg.model).toBe("claude-test-1");
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("")).toBe(text);
    expect(types[0]).toBe("message_start");
    expect(types[1]).toBe("content_block_start");
    expect(types.at(-3)).toBe("content_block_stop");
    expect(types.at(-2)).toBe("message_delta");
    expect(types.at(-1)).toBe("message_stop");
    expect(s.request_id).toMatch(/^req_/);
    expect(fake.unexpected).toBe(0);
    expect(fake.pending).toBe(0);
  });

  test("the SSE wire carries a ping and event names match data.type", async () => {
    fake.push({ content: [{ type: "text", text: "abc def ghi" }] });
    const res = await fetch(`${fake.url}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": "k", "anthropic-version": "2023-06-01", "content-type": "application/json" },
      body: JSON.stringify({ ...params, stream: true }),
    });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const frames = (await res.text()).trim().split("\n\n");
    const names = frames.map((f) => f.split("\n")[0]!.replace("event: ", ""));
    expect(names).toContain("ping");
    expect(names.indexOf("ping")).toBe(2);
    for (const f of frames) {
      const [ev, data] = f.split("\n");
      expect(JSON.parse(data!.slice("data: ".length)).type).toBe(ev!.slice("event: ".length));
    }
  });

  test("tool_use input arrives as several input_json_delta chunks and parses back", async () => {
    const input = { file_path: "/tmp/some/long/path/file.ts", offset: 10, limit: 200, note: "ünïcödé ✓" };
    fake.push({ content: [{ type: "text", text: "Reading it." }, { type: "tool_use", name: "Read", input }] });
    const { s } = await streamRaw();
    const partials: string[] = [];
    s.on("inputJson", (p) => partials.push(p));
    const msg = await s.finalMessage();

    expect(msg.stop_reason).toBe("tool_use");
    const tu = msg.content[1]!;
    expect(tu.type).toBe("tool_use");
    if (tu.type !== "tool_use") throw new Error("unreachable");
    expect(tu.id).toMatch(/^toolu_/);
    expect(tu.name).toBe("Read");
    expect(tu.input).toEqual(input);
    expect(partials.filter((p) => p !== "").length).toBeGreaterThan(2);
    expect(partials.join("")).toBe(JSON.stringify(input));
  });

  test("explicit ids, stop_reason and usage override the defaults", async () => {
    fake.push({
      content: [{ type: "tool_use", id: "toolu_fixed", name: "Bash", input: { command: "ls" } }],
      stop_reason: "max_tokens",
      usage: { output_tokens: 77, cache_read_input_tokens: 5 },
    });
    const msg = await client.messages.stream(params).finalMessage();
    expect(msg.content[0]).toMatchObject({ id: "toolu_fixed", name: "Bash", input: { command: "ls" } });
    expect(msg.stop_reason).toBe("max_tokens");
    expect(msg.usage.output_tokens).toBe(77);
    expect(msg.usage.cache_read_input_tokens).toBe(5);
  });

  test("usage input_tokens is a chars/4 estimate of the request", async () => {
    fake.push({ content: [{ type: "text", text: "ok" }] });
    const big = "x".repeat(4000);
    const msg = await client.messages
      .stream({ ...params, messages: [{ role: "user", content: big }] })
      .finalMessage();
    expect(msg.usage.input_tokens).toBeGreaterThanOrEqual(1000);
    expect(msg.usage.input_tokens).toBeLessThan(1100);
    expect(msg.usage.output_tokens).toBeGreaterThan(0);
  });

  test("a thinking block streams with its signature", async () => {
    fake.push({ content: [{ type: "thinking", thinking: "Let me think about it.", signature: "sig" }, { type: "text", text: "Done." }] });
    const msg = await client.messages.stream(params).finalMessage();
    expect(msg.content[0]).toEqual({ type: "thinking", thinking: "Let me think about it.", signature: "sig" } as any);
    expect(msg.content[1]).toMatchObject({ type: "text", text: "Done." });
  });

  test("a script function sees the logged request", async () => {
    fake.push((req) => ({ content: [{ type: "text", text: `you said: ${req.body.messages[0].content}` }] }));
    const msg = await client.messages.stream(params).finalMessage();
    expect(msg.content[0]).toMatchObject({ text: "you said: Say hello, then read a file." });
  });

  test("a script function that throws becomes a 500 naming the cause and counts as unexpected", async () => {
    fake.push(() => {
      throw new Error("bad script");
    });
    const err = await rejection(client.messages.stream(params).finalMessage());
    expect(err).toBeInstanceOf(APIError);
    expect((err as APIError).status).toBe(500);
    expect((err as APIError).message).toContain("bad script");
    expect(fake.unexpected).toBe(1);
  });

  test("an exhausted script answers the default text and counts unexpected", async () => {
    const msg = await client.messages.stream(params).finalMessage();
    expect(msg.content).toEqual([{ type: "text", text: EXHAUSTED_TEXT }] as any);
    expect(msg.stop_reason).toBe("end_turn");
    expect(fake.unexpected).toBe(1);
  });
});

describe("faults", () => {
  const statuses = [
    [429, "rate_limit_error"],
    [529, "overloaded_error"],
    [500, "api_error"],
    [400, "invalid_request_error"],
    [401, "authentication_error"],
  ] as const;
  for (const [status, type] of statuses) {
    test(`HTTP ${status} arrives as APIError with status, type ${type} and request id`, async () => {
      fake.push({ fault: status, message: `scripted ${status}` });
      const err = await rejection(client.messages.stream(params).finalMessage());
      expect(err).toBeInstanceOf(APIError);
      const e = err as APIError;
      expect(e.status).toBe(status);
      expect(e.type).toBe(type);
      expect(e.apiMessage).toBe(`scripted ${status}`);
      expect(e.requestID).toMatch(/^req_/);
      expect(e.headers?.get("retry-after")).toBeNull();
    });
  }

  test("retryAfter becomes a retry-after header (seconds)", async () => {
    fake.push({ fault: 429, retryAfter: 7 });
    const err = (await rejection(client.messages.stream(params).finalMessage())) as APIError;
    expect(err.status).toBe(429);
    expect(err.headers?.get("retry-after")).toBe("7");
  });

  test("the SDK's own retry honours the fault then succeeds on the next entry", async () => {
    fake.push({ fault: 529, retryAfter: 0 }, { content: [{ type: "text", text: "second time lucky" }] });
    const retrying = new Anthropic({ baseURL: fake.url, apiKey: "test", maxRetries: 1 });
    const msg = await retrying.messages.stream(params).finalMessage();
    expect(msg.content[0]).toMatchObject({ text: "second time lucky" });
    expect(fake.requests.length).toBe(2);
    expect(fake.pending).toBe(0);
  });

  test("a cut stream delivers some deltas, then the SDK throws", async () => {
    // The reset waits until a delta has been read: on a loaded machine it could otherwise land first and drop them.
    let read!: () => void;
    fake.push({ fault: "cut", after: new Promise<void>((r) => (read = r)) });
    const s = client.messages.stream(params);
    const deltas: string[] = [];
    s.on("text", (d) => {
      deltas.push(d);
      read();
    });
    const err = await rejection(s.finalMessage());
    expect(err).toBeInstanceOf(Error);
    expect(deltas.length).toBeGreaterThan(0);
  });

  test("a cut stream also breaks raw iteration of messages.create({stream:true})", async () => {
    // As above: the reset waits until a delta has been read (seen lost under load, train 41 candidate).
    let read!: () => void;
    fake.push({ fault: "cut", after: new Promise<void>((r) => (read = r)) });
    const seen: string[] = [];
    const err = await rejection(
      (async () => {
        const stream = await client.messages.create({ ...params, stream: true });
        for await (const e of stream) {
          seen.push(e.type);
          if (e.type === "content_block_delta") read();
        }
      })(),
    );
    expect(err).toBeInstanceOf(Error);
    expect(seen).toContain("content_block_delta");
    expect(seen).not.toContain("message_stop");
  });

  test("an error event mid-stream makes the SDK throw an overloaded APIError", async () => {
    fake.push({ fault: "error_event", message: "busy now" });
    const s = client.messages.stream(params);
    const types: string[] = [];
    s.on("streamEvent", (e) => types.push(e.type));
    const err = await rejection(s.finalMessage());
    expect(err).toBeInstanceOf(APIError);
    expect((err as APIError).type).toBe("overloaded_error");
    expect((err as APIError).message).toContain("busy now");
    expect(types).toContain("content_block_delta");
  });

  test("a hung stream ends when the client aborts", async () => {
    fake.push({ fault: "hang" });
    const ac = new AbortController();
    const s = client.messages.stream(params, { signal: ac.signal });
    await s.emitted("connect");
    setTimeout(() => ac.abort(), 50);
    const err = await rejection(s.finalMessage());
    expect((err as Error).name).toContain("Abort");
  });
});

describe("request log and validation", () => {
  test("requests record method, path, lower-cased headers, parsed body and time", async () => {
    fake.push({ content: [{ type: "text", text: "one" }] }, { content: [{ type: "text", text: "two" }] });
    const before = Date.now();
    await client.messages.stream(params).finalMessage();
    await client.messages.stream({ ...params, tools: [{ name: "Read", description: "read", input_schema: { type: "object" } }] }).finalMessage();
    expect(fake.requests.length).toBe(2);
    const [a, b] = fake.requests;
    expect(a!.method).toBe("POST");
    expect(a!.path).toBe("/v1/messages");
    // SDK 1.x sends the key as a bearer token; older ones as x-api-key.
    expect(a!.headers["authorization"] ?? a!.headers["x-api-key"]).toContain("test");
    expect(a!.headers["anthropic-version"]).toBeString();
    expect(a!.body.stream).toBe(true);
    expect(a!.body.model).toBe("claude-test-1");
    expect(a!.body.system).toEqual(params.system);
    expect(a!.body.messages).toEqual(params.messages);
    expect(b!.body.tools[0].name).toBe("Read");
    expect(a!.at).toBeGreaterThanOrEqual(before);
    expect(b!.at).toBeGreaterThanOrEqual(a!.at);
  });

  test("a request without max_tokens is refused like the real API and keeps the queue", async () => {
    fake.push({ content: [{ type: "text", text: "kept" }] });
    const res = await fetch(`${fake.url}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": "k", "anthropic-version": "2023-06-01" },
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }),
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as any;
    expect(body.type).toBe("error");
    expect(body.error.type).toBe("invalid_request_error");
    expect(body.error.message).toContain("max_tokens");
    expect(fake.rejected).toBe(1);
    expect(fake.pending).toBe(1);
  });

  test("a request without an API key gets 401 authentication_error", async () => {
    const res = await fetch(`${fake.url}/v1/messages`, { method: "POST", body: JSON.stringify(params) });
    expect(res.status).toBe(401);
    expect(((await res.json()) as any).error.type).toBe("authentication_error");
  });

  test("GET /health answers and is not logged; unknown routes are 404 not_found_error", async () => {
    const h = await fetch(`${fake.url}/health`);
    expect(h.status).toBe(200);
    expect(fake.requests.length).toBe(0);
    const nf = await fetch(`${fake.url}/v1/nothing`, { method: "POST" });
    expect(nf.status).toBe(404);
    expect(((await nf.json()) as any).error.type).toBe("not_found_error");
  });
});

describe("tool round trips and real-API validation", () => {
  test("a tool_use answered by a tool_result goes through; toolResultsOf reads it back", async () => {
    fake.push({ content: [{ type: "tool_use", id: "toolu_a", name: "Read", input: { file_path: "/x" } }] });
    fake.push((req) => ({ content: [{ type: "text", text: `saw ${toolResultsOf(req)[0]?.text}` }] }));
    const first = await client.messages.stream(params).finalMessage();
    const second = await client.messages
      .stream({
        ...params,
        messages: [
          ...params.messages,
          { role: "assistant", content: first.content as any },
          { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_a", content: [{ type: "text", text: "file body" }], is_error: true }] },
        ],
      })
      .finalMessage();
    expect(second.content[0]).toMatchObject({ text: "saw file body" });
    expect(toolResultsOf(fake.requests[1]!)).toEqual([{ tool_use_id: "toolu_a", text: "file body", is_error: true }]);
    expect(toolResultsOf(fake.requests[0]!)).toEqual([]);
  });

  test("a tool_use left unanswered is a 400 like the real API, and the queue is kept", async () => {
    fake.push({ content: [{ type: "text", text: "never sent" }] });
    const err = (await rejection(
      client.messages
        .stream({
          ...params,
          messages: [
            ...params.messages,
            { role: "assistant", content: [{ type: "tool_use", id: "toolu_b", name: "Bash", input: {} }] },
            { role: "user", content: "forgot the result" },
          ],
        })
        .finalMessage(),
    )) as APIError;
    expect(err.status).toBe(400);
    expect(err.type).toBe("invalid_request_error");
    expect(err.apiMessage).toContain("toolu_b");
    expect(fake.rejected).toBe(1);
    expect(fake.pending).toBe(1);
  });

  test("validate:false lets such a request through", async () => {
    const lax = await startFakeAnthropic({ validate: false, script: [{ content: [{ type: "text", text: "ok" }] }] });
    try {
      const c = new Anthropic({ baseURL: lax.url, apiKey: "test", maxRetries: 0 });
      const msg = await c.messages.stream({ ...params, messages: [{ role: "user", content: [{ type: "text", text: "" }] }] }).finalMessage();
      expect(msg.content[0]).toMatchObject({ text: "ok" });
      expect(lax.rejected).toBe(0);
    } finally {
      await lax.stop();
    }
  });
});

describe("timing", () => {
  test("chunkDelayMs spaces the frames out; delayMs holds the first byte back", async () => {
    const slow = await startFakeAnthropic({ chunkDelayMs: 15 });
    try {
      const c = new Anthropic({ baseURL: slow.url, apiKey: "test", maxRetries: 0 });
      slow.push({ content: [{ type: "text", text: "one two three four five six" }] });
      const s = c.messages.stream(params);
      const at: number[] = [];
      s.on("text", () => at.push(performance.now()));
      await s.finalMessage();
      expect(at.length).toBeGreaterThan(1);
      expect(at.at(-1)! - at[0]!).toBeGreaterThanOrEqual(10);

      slow.push({ content: [{ type: "text", text: "late" }], delayMs: 200 });
      // A lower bound only (the fake's own delay feature); upper bounds would be flaky on a busy machine.
      const t0 = performance.now();
      await c.messages.stream(params).finalMessage();
      expect(performance.now() - t0).toBeGreaterThanOrEqual(190);
    } finally {
      await slow.stop();
    }
  });

  test("stop() ends a hung stream: the client sees an error, stop resolves promptly", async () => {
    fake.push({ fault: "hang" });
    const s = client.messages.stream(params);
    await s.emitted("connect");
    await fake.stop();
    const err = await rejection(s.finalMessage());
    expect(err).toBeInstanceOf(Error);
  });
});

describe("non-streaming replies (side queries)", () => {
  test("stream:false returns one JSON message", async () => {
    fake.push({ content: [{ type: "text", text: '{"title":"fake"}' }] });
    const msg = await client.messages.create(params);
    expect(msg.content).toEqual([{ type: "text", text: '{"title":"fake"}' }] as any);
    expect(msg.stop_reason).toBe("end_turn");
    expect(msg.usage.input_tokens).toBeGreaterThan(0);
    expect(fake.requests[0]!.body.stream).toBeUndefined();
  });

  test("stream:false faults are HTTP errors; error_event maps to 529", async () => {
    fake.push({ fault: 429, retryAfter: 3 }, { fault: "error_event" });
    const e1 = (await rejection(client.messages.create(params))) as APIError;
    expect(e1.status).toBe(429);
    expect(e1.headers?.get("retry-after")).toBe("3");
    const e2 = (await rejection(client.messages.create(params))) as APIError;
    expect(e2.status).toBe(529);
    expect(e2.type).toBe("overloaded_error");
  });

  test("stream:false cut makes the SDK throw", async () => {
    fake.push({ fault: "cut" });
    const err = await rejection(client.messages.create(params));
    expect(err).toBeInstanceOf(Error);
  });

  test("stream:false hang ends when the client aborts", async () => {
    fake.push({ fault: "hang" });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    const err = await rejection(client.messages.create(params, { signal: ac.signal }));
    expect((err as Error).name).toContain("Abort");
  });

  test("count_tokens answers an estimate without consuming the queue", async () => {
    fake.push({ content: [{ type: "text", text: "x" }] });
    const r = await client.messages.countTokens({ model: params.model, messages: params.messages });
    expect(r.input_tokens).toBeGreaterThan(0);
    expect(fake.pending).toBe(1);
  });
});
