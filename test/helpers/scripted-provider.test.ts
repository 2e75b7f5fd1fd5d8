import { describe, expect, test } from "bun:test";
import type { ModelRequest, ProviderEvent } from "../../src/provider/types.ts";
import { EXHAUSTED_TEXT } from "./fake-messages.ts";
import { faultToProviderError, scriptedProvider } from "./scripted-provider.ts";

const request = (text = "hi"): ModelRequest => ({
  model: "claude-test-1",
  system: [{ type: "text", text: "You are a test." }],
  messages: [{ role: "user", content: text }],
  tools: [{ name: "Read", description: "read a file", input_schema: { type: "object" } }],
  maxTokens: 1024,
});

async function collect(it: AsyncIterable<ProviderEvent>): Promise<ProviderEvent[]> {
  const out: ProviderEvent[] = [];
  for await (const e of it) out.push(e);
  return out;
}

const last = (events: ProviderEvent[]) => events.at(-1)!;
const terminalCount = (events: ProviderEvent[]) => events.filter((e) => e.type === "done" || e.type === "error").length;

describe("scriptedProvider", () => {
  test("a text reply ends in one done with an assistant message", async () => {
    const p = scriptedProvider([{ content: [{ type: "text", text: "hello there" }] }]);
    const events = await collect(p.stream(request(), new AbortController().signal));
    expect(terminalCount(events)).toBe(1);
    const end = last(events);
    if (end.type !== "done") throw new Error(`expected done, got ${end.type}`);
    expect(end.message.role).toBe("assistant");
    expect(end.message.id).toMatch(/^msg_/);
    expect(end.message.model).toBe("claude-test-1");
    expect(end.message.content).toEqual([{ type: "text", text: "hello there" }]);
    expect(end.message.stop_reason).toBe("end_turn");
    expect(end.message.usage.input_tokens).toBeGreaterThan(0);
    expect(end.message.usage.output_tokens).toBeGreaterThan(0);
    expect(end.durationMs).toBeGreaterThanOrEqual(0);
    expect(p.unexpected).toBe(0);
    expect(p.pending).toBe(0);
  });

  test("a tool_use reply gets a toolu_ id and stop_reason tool_use", async () => {
    const p = scriptedProvider([{ content: [{ type: "tool_use", name: "Read", input: { file_path: "/x" } }] }]);
    const end = last(await collect(p.stream(request(), new AbortController().signal)));
    if (end.type !== "done") throw new Error("expected done");
    expect(end.message.stop_reason).toBe("tool_use");
    expect(end.message.content[0]).toMatchObject({ type: "tool_use", name: "Read", input: { file_path: "/x" } });
    expect((end.message.content[0] as { id: string }).id).toMatch(/^toolu_/);
  });

  test("stream_events carry the Messages-API sequence without pings, and can be turned off", async () => {
    const script = [{ content: [{ type: "text" as const, text: "several words of streamed text" }] }];
    const on = await collect(scriptedProvider(script).stream(request(), new AbortController().signal));
    const types = on.filter((e) => e.type === "stream_event").map((e) => (e.type === "stream_event" ? String(e.event.type) : ""));
    expect(types[0]).toBe("message_start");
    expect(types.at(-1)).toBe("message_stop");
    expect(types).not.toContain("ping");
    expect(types.filter((t) => t === "content_block_delta").length).toBeGreaterThan(1);
    const off = await collect(scriptedProvider(script, { streamEvents: false }).stream(request(), new AbortController().signal));
    expect(off.map((e) => e.type)).toEqual(["done"]);
  });

  test("requests are recorded as snapshots the caller cannot mutate later", async () => {
    const p = scriptedProvider([{ content: [{ type: "text", text: "a" }] }]);
    const req = request("first");
    await collect(p.stream(req, new AbortController().signal));
    req.messages.push({ role: "assistant", content: [{ type: "text", text: "later" }] });
    expect(p.requests.length).toBe(1);
    expect(p.requests[0]!.messages.length).toBe(1);
  });

  test("a function entry answers from the request", async () => {
    const p = scriptedProvider([(req) => ({ content: [{ type: "text", text: `echo ${req.messages.length}` }] })]);
    const end = last(await collect(p.stream(request(), new AbortController().signal)));
    expect(end.type === "done" && end.message.content[0]).toEqual({ type: "text", text: "echo 1" });
  });

  test("a throwing function entry becomes an error event and counts as unexpected", async () => {
    const p = scriptedProvider([
      () => {
        throw new Error("oops");
      },
    ]);
    const events = await collect(p.stream(request(), new AbortController().signal));
    expect(events.map((e) => e.type)).toEqual(["error"]);
    const end = last(events);
    expect(end.type === "error" && end.error.message).toContain("oops");
    expect(p.unexpected).toBe(1);
  });

  test("an exhausted script answers the default text and counts unexpected", async () => {
    const p = scriptedProvider([]);
    const end = last(await collect(p.stream(request(), new AbortController().signal)));
    expect(end.type === "done" && end.message.content).toEqual([{ type: "text", text: EXHAUSTED_TEXT }]);
    expect(p.unexpected).toBe(1);
  });

  const statusCases = [
    [429, "rate_limit"],
    [529, "overloaded"],
    [500, "server_error"],
    [400, "invalid_request"],
    [401, "authentication_failed"],
    [404, "model_not_found"],
  ] as const;
  for (const [status, kind] of statusCases) {
    test(`fault ${status} becomes an error event of kind ${kind}`, async () => {
      const p = scriptedProvider([{ fault: status, message: "scripted" }]);
      const events = await collect(p.stream(request(), new AbortController().signal));
      expect(events.map((e) => e.type)).toEqual(["error"]);
      const end = last(events);
      if (end.type !== "error") throw new Error("expected error");
      expect(end.error).toEqual({ status, kind, message: "scripted" });
    });
  }

  test("cut and error_event stream a little, then end in an error with no status", async () => {
    const p = scriptedProvider([{ fault: "cut" }, { fault: "error_event" }]);
    for (const kind of ["unknown", "overloaded"] as const) {
      const events = await collect(p.stream(request(), new AbortController().signal));
      expect(events.some((e) => e.type === "stream_event")).toBe(true);
      expect(terminalCount(events)).toBe(1);
      const end = last(events);
      if (end.type !== "error") throw new Error("expected error");
      expect(end.error.status).toBeNull();
      expect(end.error.kind).toBe(kind);
    }
    expect(faultToProviderError({ fault: "cut" }).kind).toBe("unknown");
  });

  test("scripted retries come first, with defaults filled in, then the outcome", async () => {
    const p = scriptedProvider([
      {
        retries: [{ error_status: 429, error: "rate_limit", retry_delay_ms: 1000 }, {}],
        content: [{ type: "text", text: "after retries" }],
      },
    ]);
    const events = await collect(p.stream(request(), new AbortController().signal));
    const retries = events.filter((e) => e.type === "retry");
    expect(retries).toEqual([
      { type: "retry", info: { attempt: 1, max_retries: 10, retry_delay_ms: 1000, error_status: 429, error: "rate_limit" } },
      { type: "retry", info: { attempt: 2, max_retries: 10, retry_delay_ms: 0, error_status: 529, error: "overloaded" } },
    ]);
    expect(events[0]!.type).toBe("retry");
    expect(last(events).type).toBe("done");
  });

  test("an explicit error entry is reported as given", async () => {
    const error = { status: 402, kind: "billing_error" as const, message: "credit balance too low" };
    const p = scriptedProvider([{ error }]);
    const end = last(await collect(p.stream(request(), new AbortController().signal)));
    expect(end.type === "error" && end.error).toEqual(error);
  });

  test("abort during a delayed reply ends with an aborted error, promptly", async () => {
    const p = scriptedProvider([{ content: [{ type: "text", text: "too late" }], delayMs: 5000 }]);
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 30);
    const events = await collect(p.stream(request(), ac.signal));
    expect(events.map((e) => e.type)).toEqual(["error"]);
    expect(last(events).type === "error" && (last(events) as { error: { kind: string } }).error.kind).toBe("aborted");
  });

  test("a hang fault waits for abort, then reports aborted", async () => {
    const p = scriptedProvider([{ fault: "hang" }]);
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 30);
    const events = await collect(p.stream(request(), ac.signal));
    const end = last(events);
    expect(end.type === "error" && end.error.kind).toBe("aborted");
    expect(terminalCount(events)).toBe(1);
  });

  test("an already-aborted signal still consumes the entry and reports aborted", async () => {
    const p = scriptedProvider([{ content: [{ type: "text", text: "x" }] }]);
    const ac = new AbortController();
    ac.abort();
    const events = await collect(p.stream(request(), ac.signal));
    expect(events.map((e) => e.type)).toEqual(["error"]);
    expect(p.pending).toBe(0);
  });
});
