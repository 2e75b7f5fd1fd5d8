/**
 * The one call yoke makes to the Anthropic Messages API (a streamed `POST /v1/messages`), over Bun's fetch, in place
 * of @anthropic-ai/sdk's client. Why not the SDK: loading its client and Messages resource and streaming one answer
 * through them cost a one-turn run ~5 MiB of peak memory and ~10 ms of CPU more than fetch and this file (issue 21:
 * peak RSS ≤ 50 MiB; README's start-up section has the A/B). yoke used one method of it, with retries off (the
 * provider retries itself, reporting each) and the timeout kept by the provider, so what is left is the request, the
 * SSE framing and the error shapes, which follow the SDK's: the same credential, version, content and user-agent
 * headers (test/provider/messages-client.test.ts compares them with the SDK's own over real HTTP; the SDK's
 * x-stainless-* telemetry headers are not sent), the same parsed events, and errors carrying what the provider's
 * classifyError reads from the SDK's (`status`, `headers`, `error` body, `requestID`; a connection failure is an
 * APIConnectionError with its `cause`).
 */

/** The Messages API version the client speaks: @anthropic-ai/sdk 1.14's (the test checks they agree). */
export const ANTHROPIC_VERSION = "2026-10-21";

export type MessagesClientOptions = {
  /** Sent as `Authorization: Bearer`, as the SDK (1.x) sends either credential; null when the other is used. */
  apiKey: string | null;
  authToken: string | null;
  /** Default https://api.anthropic.com. */
  baseURL?: string;
  defaultHeaders?: Record<string, string>;
};

/** An error the API answered with (a status), or an error event inside the stream (no status). */
export class APIError extends Error {
  readonly status: number | undefined;
  readonly headers: Headers | undefined;
  readonly requestID: string | null | undefined;
  /** The parsed error body (`{type: "error", error: {type, message}}`), or undefined. */
  readonly error: unknown;
  readonly type: string | null;
  constructor(status: number | undefined, error: unknown, message: string | undefined, headers: Headers | undefined) {
    super(errorMessage(status, error, message));
    this.name = "APIError";
    this.status = status;
    this.headers = headers;
    this.requestID = headers?.get("request-id");
    this.error = error;
    const inner = (error as { error?: { type?: unknown } } | undefined)?.error?.type;
    this.type = typeof inner === "string" ? inner : null;
  }
}

/** The request never got an answer (refused, reset, DNS): `cause` is what fetch threw. */
export class APIConnectionError extends APIError {
  constructor(cause: unknown) {
    super(undefined, undefined, "Connection error.", undefined);
    this.name = "APIConnectionError";
    this.cause = cause;
  }
}

/** The SDK's wording (APIError.makeMessage), so messages that reach the user read the same. */
function errorMessage(status: number | undefined, error: unknown, message: string | undefined): string {
  const e = error as { message?: unknown } | undefined;
  const msg = e?.message ? (typeof e.message === "string" ? e.message : JSON.stringify(e.message)) : error ? JSON.stringify(error) : message;
  if (status && msg) return `${status} ${msg}`;
  if (status) return `${status} status code (no body)`;
  return msg || "(no status code or body)";
}

const isAbort = (e: unknown): boolean => (e as { name?: unknown } | null)?.name === "AbortError" || (e as { name?: unknown } | null)?.name === "TimeoutError";

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

type Sse = { event: string | null; data: string };

/**
 * Server-sent events from a byte stream (the SDK's decoder: lines end in \n, \r\n or \r; `data:` lines join with
 * \n; one leading space after the colon dropped; `:` comments skipped; an event ends at a blank line).
 */
export async function* sseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<Sse> {
  const decoder = new TextDecoder();
  let pending = "";
  let event: string | null = null;
  let data: string[] = [];
  let carriageReturn = false;
  const line = (l: string): Sse | undefined => {
    if (l === "") {
      if (event === null && data.length === 0) return undefined;
      const out = { event, data: data.join("\n") };
      event = null;
      data = [];
      return out;
    }
    if (l.startsWith(":")) return undefined;
    const colon = l.indexOf(":");
    const field = colon < 0 ? l : l.slice(0, colon);
    let value = colon < 0 ? "" : l.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") event = value;
    else if (field === "data") data.push(value);
    return undefined;
  };
  const lines = function* (text: string, end: boolean): Generator<string> {
    pending += text;
    let start = 0;
    for (let i = 0; i < pending.length; i++) {
      const c = pending.charCodeAt(i);
      if (c === 10 && carriageReturn) {
        // The \n of a \r\n whose \r ended the previous chunk.
        carriageReturn = false;
        start = i + 1;
        continue;
      }
      carriageReturn = false;
      if (c !== 10 && c !== 13) continue;
      yield pending.slice(start, i);
      if (c === 13) {
        if (i + 1 < pending.length) {
          if (pending.charCodeAt(i + 1) === 10) i++;
        } else carriageReturn = true;
      }
      start = i + 1;
    }
    pending = pending.slice(start);
    if (end && pending) {
      const last = pending;
      pending = "";
      yield last;
    }
  };
  for await (const chunk of body) {
    for (const l of lines(decoder.decode(chunk, { stream: true }), false)) {
      const e = line(l);
      if (e) yield e;
    }
  }
  for (const l of lines(decoder.decode(), true)) {
    const e = line(l);
    if (e) yield e;
  }
  const e = line("");
  if (e) yield e;
}

/** The stream's events, parsed as the SDK's Stream yields them; an `error` event throws an APIError without status. */
async function* messageEvents(response: Response): AsyncGenerator<{ type: string; [k: string]: unknown }> {
  try {
    for await (const sse of sseEvents(response.body!)) {
      if (sse.event === "ping" || sse.event === null) continue;
      if (sse.event === "error") {
        const body = parseJson(sse.data) ?? sse.data;
        throw new APIError(undefined, body, undefined, response.headers);
      }
      if (!sse.data) continue;
      yield JSON.parse(sse.data);
    }
  } catch (e) {
    // An aborted read ends the events (the SDK's Stream does the same): the caller knows why it aborted.
    if (isAbort(e)) return;
    throw e;
  }
}

export type MessagesClient = {
  messages: {
    create(
      body: Record<string, unknown>,
      options: { signal: AbortSignal },
    ): { withResponse(): Promise<{ data: AsyncIterable<{ type: string; [k: string]: unknown }>; request_id: string | null; response: Response }> };
  };
};

/** A client with `messages.create(...).withResponse()` for streamed requests, shaped as the SDK's. */
export function createMessagesClient(o: MessagesClientOptions): MessagesClient {
  const base = (o.baseURL || "https://api.anthropic.com").replace(/\/+$/, "");
  const credential = o.authToken ?? o.apiKey;
  const headers: Record<string, string> = {
    accept: "application/json",
    "user-agent": "yoke",
    "anthropic-version": ANTHROPIC_VERSION,
    ...(credential ? { authorization: `Bearer ${credential}` } : {}),
    ...Object.fromEntries(Object.entries(o.defaultHeaders ?? {}).map(([k, v]) => [k.toLowerCase(), v])),
    "content-type": "application/json",
  };
  const send = async (body: Record<string, unknown>, signal: AbortSignal) => {
    // A URL or header fetch cannot take fails here, before the request leaves: not a connection error, never retried.
    const url = new URL(`${base}/v1/messages`);
    const init = { method: "POST", headers: new Headers(headers), body: JSON.stringify(body), signal };
    let response: Response;
    try {
      response = await fetch(url, init);
    } catch (e) {
      if (signal.aborted) throw e;
      throw new APIConnectionError(e);
    }
    if (!response.ok) {
      const text = await response.text().catch((e: Error) => e.message);
      const json = parseJson(text);
      throw new APIError(response.status, json, json === undefined ? text : undefined, response.headers);
    }
    return { data: messageEvents(response), request_id: response.headers.get("request-id"), response };
  };
  return { messages: { create: (body, options) => ({ withResponse: () => send(body, options.signal) }) } };
}
