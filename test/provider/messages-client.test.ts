// Issue 21 point 4: the Messages API call sent by fetch and read by @anthropic-ai/sdk's own streaming and error modules
// (src/provider/anthropic/messages-client.ts), without the SDK's client object. What the API and the provider see must not change: the same request headers as the SDK sends
// (compared with the SDK itself over real HTTP), the same events out of every way SSE may be framed, and errors with the
// fields the provider's classifyError reads from the SDK's.
import Anthropic from "@anthropic-ai/sdk";
import { afterAll, describe, expect, test } from "bun:test";
import { ANTHROPIC_VERSION, APIConnectionError, APIError, createMessagesClient, sseEvents } from "../../src/provider/anthropic/messages-client.ts";
import { classifyError } from "../../src/provider/anthropic/retry.ts";
import { startFakeAnthropic } from "../helpers/fake-anthropic.ts";

const body = { model: "claude-sonnet-5-5", max_tokens: 10, messages: [{ role: "user", content: "hi" }], stream: true };
const signal = () => new AbortController().signal;

/** A real HTTP server answering every request with `respond`. */
function serve(respond: (req: Request) => Response | Promise<Response>) {
  const s = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: respond });
  servers.push(s);
  return `http://127.0.0.1:${s.port}`;
}
const servers: Array<{ stop(force?: boolean): void }> = [];
afterAll(() => servers.forEach((s) => s.stop(true)));

/** A byte stream of these chunks, as the network may cut them. */
const chunked = (...parts: string[]) =>
  new ReadableStream<Uint8Array>({
    start(c) {
      for (const p of parts) c.enqueue(new TextEncoder().encode(p));
      c.close();
    },
  });
const all = async <T>(it: AsyncIterable<T>) => {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
};

describe("the request is the SDK's", () => {
  for (const cred of ["apiKey", "authToken"] as const) {
    test(`${cred}: credential, version, content type, accept and user-agent headers equal @anthropic-ai/sdk's`, async () => {
      const fake = await startFakeAnthropic({ script: [{ content: [{ type: "text", text: "a" }] }, { content: [{ type: "text", text: "b" }] }] });
      try {
        const sdk = new Anthropic({ apiKey: cred === "apiKey" ? "sk-1" : null, authToken: cred === "authToken" ? "tok-1" : null, baseURL: fake.url, maxRetries: 0, defaultHeaders: { "user-agent": "yoke/t" } });
        for await (const _ of (await sdk.messages.create(body as never)) as unknown as AsyncIterable<unknown>) void _;
        const ours = createMessagesClient({ apiKey: cred === "apiKey" ? "sk-1" : null, authToken: cred === "authToken" ? "tok-1" : null, baseURL: fake.url, defaultHeaders: { "user-agent": "yoke/t" } });
        const { data, request_id } = await ours.messages.create(body, { signal: signal() }).withResponse();
        const events = await all(data);
        expect(request_id).toMatch(/^req_/);
        expect(events.map((e) => e.type)).toContain("message_stop");
        const [theirs, mine] = fake.requests.map((r) => r.headers);
        for (const h of ["authorization", "x-api-key", "anthropic-version", "content-type", "accept", "user-agent"]) expect({ h, v: mine![h] }).toEqual({ h, v: theirs![h] });
        expect(mine!["anthropic-version"]).toBe(ANTHROPIC_VERSION);
        expect(fake.requests[1]!.body).toEqual(fake.requests[0]!.body);
        expect(fake.requests[1]!.path).toBe(fake.requests[0]!.path);
      } finally {
        await fake.stop();
      }
    });
  }

  test("a base URL with a path or a trailing slash keeps its path; the request goes to …/v1/messages", async () => {
    const paths: string[] = [];
    const url = serve((req) => {
      paths.push(new URL(req.url).pathname);
      return new Response("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n", { headers: { "content-type": "text/event-stream" } });
    });
    for (const base of [`${url}/proxy/anthropic`, `${url}/proxy/anthropic/`, `${url}/`]) {
      const { data } = await createMessagesClient({ apiKey: "k", authToken: null, baseURL: base }).messages.create(body, { signal: signal() }).withResponse();
      await all(data);
    }
    expect(paths).toEqual(["/proxy/anthropic/v1/messages", "/proxy/anthropic/v1/messages", "/v1/messages"]);
  });
});

describe("SSE framing: every way the stream may be cut and ended gives the same events", () => {
  const expected = [
    { event: "message_start", data: '{"a":1}' },
    { event: "content_block_delta", data: 'line one\nline two' },
  ];
  const variants: Array<[string, string[]]> = [
    ["\\n line ends", ["event: message_start\ndata: {\"a\":1}\n\nevent: content_block_delta\ndata: line one\ndata: line two\n\n"]],
    ["\\r\\n line ends", ["event: message_start\r\ndata: {\"a\":1}\r\n\r\nevent: content_block_delta\r\ndata: line one\r\ndata: line two\r\n\r\n"]],
    ["bare \\r line ends", ["event: message_start\rdata: {\"a\":1}\r\revent: content_block_delta\rdata: line one\rdata: line two\r\r"]],
    ["a \\r\\n cut between its two bytes", ["event: message_start\r", "\ndata: {\"a\":1}\r", "\n\r", "\nevent: content_block_delta\r\ndata: line one\r\ndata: line two\r\n\r\n"]],
    ["a field cut mid-word and a UTF-8 character cut mid-byte", ["event: message_st", "art\ndata: {\"a\":1}\n\nevent: content_block_delta\ndata: line one\ndata: line t", "wo\n\n"]],
    ["comments, no space after the colon", [": keep-alive\nevent:message_start\ndata:{\"a\":1}\n\n:comment\nevent: content_block_delta\ndata: line one\ndata: line two\n\n"]],
  ];
  for (const [name, parts] of variants)
    test(name, async () => {
      expect(await all(sseEvents(chunked(...parts)))).toEqual(expected);
    });

  // The SDK's decoder (what yoke's client before this one used) drops an event the stream ends without its blank line;
  // the API ends every event with one, and a stream cut short misses message_stop, which the accumulator reports.
  test("an event not ended by a blank line when the stream ends is not delivered, as in the SDK", async () => {
    expect(await all(sseEvents(chunked("event: message_start\ndata: {\"a\":1}\n\nevent: message_stop\ndata: {}")))).toEqual([expected[0]!]);
  });

  test("a multi-byte character split across chunks is decoded whole", async () => {
    const bytes = new TextEncoder().encode('event: x\ndata: {"t":"é—😀"}\n\n');
    const at = bytes.indexOf(0xf0) + 2; // inside the emoji's four bytes
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(bytes.slice(0, at));
        c.enqueue(bytes.slice(at));
        c.close();
      },
    });
    expect(await all(sseEvents(stream))).toEqual([{ event: "x", data: '{"t":"é—😀"}' }]);
  });
});

describe("errors carry what the provider classifies, as the SDK's did", () => {
  const client = (base: string) => createMessagesClient({ apiKey: "k", authToken: null, baseURL: base });

  test("an HTTP error: status, headers (retry-after), the parsed body and the request id", async () => {
    const url = serve(() => Response.json({ type: "error", error: { type: "rate_limit_error", message: "slow down" } }, { status: 429, headers: { "retry-after": "7", "request-id": "req_x" } }));
    const err = await client(url).messages.create(body, { signal: signal() }).withResponse().catch((e) => e);
    expect(err).toBeInstanceOf(APIError);
    expect(err).not.toBeInstanceOf(APIConnectionError);
    expect({ status: err.status, retryAfter: err.headers.get("retry-after"), requestID: err.requestID, type: err.type }).toEqual({ status: 429, retryAfter: "7", requestID: "req_x", type: "rate_limit_error" });
    expect(classifyError(err)).toMatchObject({ status: 429, kind: "rate_limit", message: "slow down", retryable: true, retryAfterMs: 7000 });
  });

  test("an HTTP error whose body is not JSON: its text is the message", async () => {
    const url = serve(() => new Response("<html>bad gateway</html>", { status: 502 }));
    const err = await client(url).messages.create(body, { signal: signal() }).withResponse().catch((e) => e);
    expect(err.message).toBe("502 <html>bad gateway</html>");
    expect(classifyError(err)).toMatchObject({ status: 502, kind: "server_error", retryable: true });
  });

  test("an error event inside the stream: no status, the event's body", async () => {
    const url = serve(() => new Response('event: message_start\ndata: {"type":"message_start"}\n\nevent: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n', { headers: { "content-type": "text/event-stream" } }));
    const { data } = await client(url).messages.create(body, { signal: signal() }).withResponse();
    const seen: string[] = [];
    const err = await (async () => {
      for await (const e of data) seen.push(e.type);
    })().catch((e) => e);
    expect(seen).toEqual(["message_start"]);
    expect(err).toBeInstanceOf(APIError);
    expect(classifyError(err)).toMatchObject({ status: null, kind: "overloaded", message: "Overloaded", retryable: true });
  });

  test("pings and events without data are skipped, as the SDK skips them", async () => {
    const url = serve(() => new Response('event: ping\ndata: {"type":"ping"}\n\nevent: message_delta\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n', { headers: { "content-type": "text/event-stream" } }));
    const { data } = await client(url).messages.create(body, { signal: signal() }).withResponse();
    expect((await all(data)).map((e) => e.type)).toEqual(["message_stop"]);
  });

  test("nobody listening: an APIConnectionError whose cause is fetch's error", async () => {
    const s = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
    const url = `http://127.0.0.1:${s.port}`;
    s.stop(true);
    const err = await client(url).messages.create(body, { signal: signal() }).withResponse().catch((e) => e);
    expect(err).toBeInstanceOf(APIConnectionError);
    expect(err.cause).toBeDefined();
    expect(err.status).toBeUndefined();
  });

  test("a URL or a header fetch refuses fails before the request leaves: not a connection error", async () => {
    const bad = await client("http://exa mple.com").messages.create(body, { signal: signal() }).withResponse().catch((e) => e);
    expect(bad).toBeInstanceOf(Error);
    expect(bad).not.toBeInstanceOf(APIConnectionError);
    const header = await createMessagesClient({ apiKey: "k\ney", authToken: null, baseURL: "http://127.0.0.1:9" }).messages.create(body, { signal: signal() }).withResponse().catch((e) => e);
    expect(header).toBeInstanceOf(Error);
    expect(header).not.toBeInstanceOf(APIConnectionError);
  });

  test("an abort before the answer rejects with the abort, not a connection error; an abort mid-stream ends the events", async () => {
    let release: () => void = () => {};
    const url = serve(
      () =>
        new Response(
          new ReadableStream({
            start(c) {
              c.enqueue(new TextEncoder().encode('event: message_start\ndata: {"type":"message_start"}\n\n'));
              release = () => c.close();
            },
          }),
          { headers: { "content-type": "text/event-stream" } },
        ),
    );
    const early = new AbortController();
    early.abort();
    const e1 = await client(url).messages.create(body, { signal: early.signal }).withResponse().catch((e) => e);
    expect(e1).not.toBeInstanceOf(APIConnectionError);
    const mid = new AbortController();
    const { data } = await client(url).messages.create(body, { signal: mid.signal }).withResponse();
    const seen: string[] = [];
    for await (const e of data) {
      seen.push(e.type);
      mid.abort();
    }
    release();
    expect(seen).toEqual(["message_start"]);
  });
});
