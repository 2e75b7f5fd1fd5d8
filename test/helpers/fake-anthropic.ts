/**
 * A fake Anthropic Messages API over real HTTP/SSE on 127.0.0.1, for end-to-end tests of the
 * provider and the compiled binary (DESIGN rule 10: fake the model at the boundary only).
 *
 * Replies come from a queue of scripted entries. A request that finds the queue empty gets the
 * text "(fake: script exhausted)" and bumps `unexpected`, so a test can assert the script was
 * used exactly (`expect(fake.unexpected).toBe(0)`, `expect(fake.pending).toBe(0)`).
 *
 * Failure reporting: startFakeAnthropic only rejects if the port cannot be bound. A script function
 * that throws is answered with HTTP 500 (api_error) naming the thrown message, and counted in
 * `unexpected`. Requests the real API would refuse (bad JSON, no model, no API key or
 * anthropic-version header, and the checks in fake-validate.ts) get the real 400/401 error body,
 * count in `rejected` and do not consume the queue.
 */
import {
  apiErrorBody,
  buildAssistantMessage,
  estimateInputTokens,
  EXHAUSTED_TEXT,
  fakeId,
  isFault,
  messageStreamEvents,
  sseFrame,
  type FakeFault,
  type FakeReply,
  type FakeStatus,
  type SseEvent,
} from "./fake-messages.ts";
import { validateMessagesRequest } from "./fake-validate.ts";

export type { FakeBlock, FakeFault, FakeReply, FakeStatus } from "./fake-messages.ts";

export type LoggedRequest = {
  method: string;
  path: string;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  /** Parsed JSON body, or the raw text when it was not JSON, or null when empty. */
  body: any;
  /** Date.now() when the request arrived. */
  at: number;
};

export type FakeEntry =
  | FakeReply
  | FakeFault
  | ((req: LoggedRequest) => FakeReply | FakeFault | Promise<FakeReply | FakeFault>);

export type FakeAnthropicOptions = {
  /** Entries queued before the first request. */
  script?: FakeEntry[];
  /** Pause between SSE frames, so deltas arrive as separate network chunks. Default 0. */
  chunkDelayMs?: number;
  /** Check x-api-key/authorization and anthropic-version headers like the real API. Default true. */
  checkHeaders?: boolean;
  /**
   * Refuse with 400 what the real API refuses (fake-validate.ts): empty text blocks, unpaired
   * tool_use/tool_result, more than 4 cache_control blocks, missing max_tokens/messages. Default true.
   */
  validate?: boolean;
};

export type FakeAnthropic = {
  /** Base URL for ANTHROPIC_BASE_URL / the SDK's baseURL (no trailing slash, no /v1). */
  url: string;
  /** Every request except GET /health, in arrival order. */
  requests: LoggedRequest[];
  push(...entries: FakeEntry[]): void;
  /** Requests answered by the exhausted-script default or by a throwing script function. */
  readonly unexpected: number;
  /** Requests refused by validation (did not consume the queue). */
  readonly rejected: number;
  /** Entries still queued. */
  readonly pending: number;
  /** Stops listening and closes open connections (hung streams included). Never rejects. */
  stop(): Promise<void>;
};

/** Environment for a yoke subprocess talking to this fake (merge into isolatedEnv). */
export const fakeApiEnv = (fake: { url: string }): Record<string, string> => ({
  ANTHROPIC_BASE_URL: fake.url,
  ANTHROPIC_API_KEY: "sk-ant-fake-test-key",
});

/**
 * The tool_result blocks of a logged request's last message, with their content flattened to
 * text: what the harness sent back to the model after running tools.
 */
export function toolResultsOf(req: LoggedRequest): Array<{ tool_use_id: string; text: string; is_error: boolean }> {
  const last = (req.body?.messages as Array<{ content?: unknown }> | undefined)?.at(-1);
  if (!last || !Array.isArray(last.content)) return [];
  return last.content
    .filter((b: any) => b?.type === "tool_result")
    .map((b: any) => ({
      tool_use_id: String(b.tool_use_id),
      text:
        typeof b.content === "string"
          ? b.content
          : Array.isArray(b.content)
            ? b.content.filter((c: any) => c?.type === "text").map((c: any) => c.text).join("\n")
            : "",
      is_error: b.is_error === true,
    }));
}

const enc = new TextEncoder();

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

export async function startFakeAnthropic(opts: FakeAnthropicOptions = {}): Promise<FakeAnthropic> {
  const queue: FakeEntry[] = [...(opts.script ?? [])];
  const requests: LoggedRequest[] = [];
  const chunkDelayMs = opts.chunkDelayMs ?? 0;
  const checkHeaders = opts.checkHeaders ?? true;
  const validate = opts.validate ?? true;
  let unexpected = 0;
  let rejected = 0;

  const errorResponse = (status: FakeStatus, message?: string, retryAfter?: number): Response => {
    const requestId = fakeId("req");
    const headers: Record<string, string> = { "content-type": "application/json", "request-id": requestId };
    if (retryAfter !== undefined) headers["retry-after"] = String(retryAfter);
    return new Response(JSON.stringify(apiErrorBody(status, message, requestId)), { status, headers });
  };

  const reject = (status: FakeStatus, message: string): Response => {
    rejected++;
    return errorResponse(status, message);
  };

  /** Why the real API would refuse this request before looking at it, or null. */
  const refusal = (log: LoggedRequest): Response | null => {
    if (checkHeaders && !log.headers["x-api-key"] && !log.headers["authorization"]) {
      return reject(401, "x-api-key header is required");
    }
    if (checkHeaders && !log.headers["anthropic-version"]) return reject(400, "anthropic-version: header is required");
    const b = log.body;
    if (b === null || typeof b !== "object" || Array.isArray(b)) return reject(400, "request body must be a JSON object");
    if (typeof b.model !== "string" || b.model === "") return reject(400, "model: Field required");
    return null;
  };

  const nextEntry = async (log: LoggedRequest): Promise<FakeReply | FakeFault> => {
    const entry = queue.shift();
    if (entry === undefined) {
      unexpected++;
      return { content: [{ type: "text", text: EXHAUSTED_TEXT }], stop_reason: "end_turn" };
    }
    if (typeof entry !== "function") return entry;
    try {
      return await entry(log);
    } catch (err) {
      unexpected++;
      return { fault: 500, message: `fake: script function threw: ${err instanceof Error ? err.message : String(err)}` };
    }
  };

  const sseResponse = (
    frames: SseEvent[],
    ending: "close" | "cut" | "hang",
    signal: AbortSignal,
    delayMs = 0,
    cutAfter?: Promise<unknown>,
  ): Response => {
    const requestId = fakeId("req");
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        try {
          // A client gone during the delay ends it: a long delay (a body that is late, not lost) leaves no timer behind.
          if (delayMs > 0) await abortableSleep(delayMs, signal);
          for (const f of frames) {
            if (signal.aborted) return controller.close();
            controller.enqueue(enc.encode(sseFrame(f)));
            if (chunkDelayMs > 0) await Bun.sleep(chunkDelayMs);
          }
          if (ending === "close") return controller.close();
          if (ending === "cut") {
            // Let the frames reach the wire before resetting, so the client sees a partial stream (a client that has
            // not read them by then loses them: `after` orders that exactly when a test needs it).
            if (cutAfter) await cutAfter;
            await Bun.sleep(10);
            // error() without a reason: Bun resets the connection without logging a server error.
            return controller.error();
          }
          await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
          controller.close();
        } catch {
          // The client went away mid-write; nothing is left to tell it.
        }
      },
    });
    return new Response(body, {
      status: 200,
      headers: {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-cache",
        "request-id": requestId,
      },
    });
  };

  const messages = async (req: Request, log: LoggedRequest): Promise<Response> => {
    const refused = refusal(log);
    if (refused) return refused;
    const b = log.body as Record<string, any>;
    const invalid = validate ? validateMessagesRequest(b) : null;
    if (invalid !== null) return reject(400, invalid);

    const stream = b.stream === true;
    const outcome = await nextEntry(log);
    const ctx = { model: b.model as string, inputTokens: estimateInputTokens(b) };

    if (isFault(outcome)) {
      const f = outcome;
      if (typeof f.fault === "number") return errorResponse(f.fault, f.message, f.retryAfter);
      // Without a stream there is no mid-stream event; the nearest equivalent is an overloaded answer.
      if (!stream && f.fault === "error_event") return errorResponse(529, f.message);
      const partial = buildAssistantMessage(
        { content: [{ type: "text", text: "This answer will not finish because the fake cuts it." }] },
        ctx,
      );
      const events = messageStreamEvents(partial);
      if (f.fault === "pings" && stream) {
        const every = f.everyMs ?? 20;
        const body = new ReadableStream<Uint8Array>({
          async start(controller) {
            try {
              controller.enqueue(enc.encode(sseFrame(events[0]!)));
              while (!req.signal.aborted) {
                controller.enqueue(enc.encode(sseFrame({ event: "ping", data: { type: "ping" } })));
                await Bun.sleep(every);
              }
              controller.close();
            } catch {
              // The client went away mid-write.
            }
          },
        });
        return new Response(body, { headers: { "content-type": "text/event-stream; charset=utf-8", "request-id": fakeId("req") } });
      }
      if (f.fault === "error_event") {
        const errorFrame: SseEvent = {
          event: "error",
          data: { type: "error", error: { type: "overloaded_error", message: f.message ?? "Overloaded" } },
        };
        return sseResponse([...events.slice(0, 4), errorFrame], "close", req.signal);
      }
      if (!stream) {
        // A non-streaming cut/hang: the body starts but never completes.
        return new Response(
          new ReadableStream({
            async start(c) {
              c.enqueue(enc.encode('{"id":"' + partial.id + '","type":"message",'));
              if (f.fault === "cut") {
                await Bun.sleep(10);
                return c.error();
              }
              await new Promise<void>((r) => req.signal.addEventListener("abort", () => r(), { once: true }));
              c.close();
            },
          }),
          { headers: { "content-type": "application/json", "request-id": fakeId("req") } },
        );
      }
      return sseResponse(events.slice(0, f.fault === "cut" ? 5 : 1), f.fault === "cut" ? "cut" : "hang", req.signal, 0, f.fault === "cut" ? f.after : undefined);
    }

    const message = buildAssistantMessage(outcome, ctx);
    if (stream) return sseResponse(messageStreamEvents(message, outcome.textChunk), "close", req.signal, outcome.delayMs);
    if (outcome.delayMs) await Bun.sleep(outcome.delayMs);
    return new Response(JSON.stringify(message), {
      headers: { "content-type": "application/json", "request-id": fakeId("req") },
    });
  };

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    // Long fake streams (hang, delayMs) must not be timed out by the server itself.
    idleTimeout: 0,
    async fetch(req) {
      const url = new URL(req.url);
      if (req.method === "GET" && url.pathname === "/health") return Response.json({ ok: true });
      const text = await req.text();
      let body: any = null;
      if (text !== "") {
        try {
          body = JSON.parse(text);
        } catch {
          body = text;
        }
      }
      const log: LoggedRequest = {
        method: req.method,
        path: url.pathname,
        headers: Object.fromEntries([...req.headers.entries()].map(([k, v]) => [k.toLowerCase(), v])),
        body,
        at: Date.now(),
      };
      requests.push(log);
      if (req.method === "POST" && url.pathname === "/v1/messages") return messages(req, log);
      if (req.method === "POST" && url.pathname === "/v1/messages/count_tokens") {
        return refusal(log) ?? Response.json({ input_tokens: estimateInputTokens(log.body ?? {}) });
      }
      return reject(404, `fake: no route for ${req.method} ${url.pathname}`);
    },
    error(err) {
      unexpected++;
      return errorResponse(500, `fake: server error: ${err.message}`);
    },
  });

  return {
    url: `http://127.0.0.1:${server.port}`,
    requests,
    push: (...entries) => void queue.push(...entries),
    get unexpected() {
      return unexpected;
    },
    get rejected() {
      return rejected;
    },
    get pending() {
      return queue.length;
    },
    stop: async () => {
      await server.stop(true);
    },
  };
}
