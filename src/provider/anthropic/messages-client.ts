/**
 * The one call yoke makes to the Anthropic Messages API (a streamed `POST /v1/messages`): Bun's fetch sends it, and
 * @anthropic-ai/sdk's own modules read the answer: its SSE decoder and Stream (`core/streaming`) and its error
 * classes (`core/error`), so the framing, the parsed events, the skipped pings and every error shape are the SDK's
 * code, not a copy. What is left out is the SDK's client object and its resources: loading them and streaming one
 * answer through them cost a one-turn run ~5 MiB of peak memory and ~10 ms of CPU (issue 21: peak RSS ≤ 50 MiB;
 * README's start-up section has the A/B), for one method yoke called with retries off (the provider retries
 * itself, reporting each) and the timeout kept by the provider. The request carries the client's credential,
 * version, content and user-agent headers (test/provider/messages-client.test.ts compares them with the SDK's own
 * over real HTTP; its x-stainless-* telemetry headers are not sent).
 */
import { APIConnectionError, APIError } from "@anthropic-ai/sdk/core/error";
import { Stream, _iterSSEMessages } from "@anthropic-ai/sdk/core/streaming";

export { APIConnectionError, APIError };

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

/** Server-sent events from a byte stream, through the SDK's decoder (what the framing tests exercise). */
export async function* sseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<{ event: string | null; data: string }> {
  for await (const { event, data } of _iterSSEMessages(new Response(body), new AbortController())) yield { event, data };
}

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

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
    // The SDK's Stream aborts this when its reader stops early (a break), which ends the request as the client did.
    const controller = new AbortController();
    const init = { method: "POST", headers: new Headers(headers), body: JSON.stringify(body), signal: AbortSignal.any([signal, controller.signal]) };
    let response: Response;
    try {
      response = await fetch(url, init);
    } catch (e) {
      if (signal.aborted) throw e;
      throw new APIConnectionError({ cause: e as Error });
    }
    if (!response.ok) {
      // As the SDK's client makes a status error: the body's JSON, or its text as the message.
      const text = await response.text().catch((e: Error) => e.message);
      const json = parseJson(text);
      throw APIError.generate(response.status, json as object | undefined, json === undefined ? text : undefined, response.headers);
    }
    const data = Stream.fromSSEResponse(response, controller) as unknown as AsyncIterable<{ type: string; [k: string]: unknown }>;
    return { data, request_id: response.headers.get("request-id"), response };
  };
  return { messages: { create: (body, options) => ({ withResponse: () => send(body, options.signal) }) } };
}
