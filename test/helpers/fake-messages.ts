/**
 * The shared vocabulary of the fake model: scripted replies and faults, the assistant message a
 * reply becomes, and the Messages-API stream events that carry it. Used by the fake HTTP server
 * (fake-anthropic.ts) and the in-process scripted provider (scripted-provider.ts), so both fakes
 * produce the same messages for the same script.
 *
 * Nothing here throws on well-typed input; it is pure data building plus id generation.
 */
import type { AssistantMessage, ContentBlock, StopReason, Usage } from "../../src/provider/types.ts";

export type FakeTextBlock = { type: "text"; text: string };
export type FakeToolUseBlock = { type: "tool_use"; id?: string; name: string; input: Record<string, unknown> };
export type FakeThinkingBlock = { type: "thinking"; thinking: string; signature?: string };
/** A server tool's block (server_tool_use, web_search_tool_result …), streamed whole in its content_block_start. */
export type FakeServerBlock = { type: "server_tool_use" | "web_search_tool_result"; [k: string]: unknown };
export type FakeBlock = FakeTextBlock | FakeToolUseBlock | FakeThinkingBlock | FakeServerBlock;

/** One scripted model answer. stop_reason defaults to tool_use when a tool_use is present, else end_turn. */
export type FakeReply = {
  content: FakeBlock[];
  stop_reason?: StopReason;
  /** Overrides the estimated usage field by field. */
  usage?: Partial<Usage>;
  /** Model name to report; defaults to the requested model. */
  model?: string;
  /** Wait this long before answering (lets tests abort or kill mid-request). */
  delayMs?: number;
  /** Send text in deltas of this many UTF-16 units (never splitting a pair) instead of small pieces: for large outputs. */
  textChunk?: number;
};

/** HTTP statuses the fake can answer with, each with the real API's error type. */
export type FakeStatus = 400 | 401 | 403 | 404 | 413 | 429 | 500 | 529;

export type FakeFault =
  /** An HTTP error with the real API's JSON error body and a `request-id` header. */
  | { fault: FakeStatus; retryAfter?: number; message?: string }
  /**
   * The stream starts, sends some deltas, then the connection is reset without message_stop. The reset waits for
   * `after` when given: a client that has not read the deltas when the reset arrives never sees them (its stream's
   * queue is dropped on error), so a test that must see them says when it has.
   */
  | { fault: "cut"; message?: string; after?: Promise<unknown> }
  /** HTTP 200 SSE that sends `event: error` (overloaded_error) mid-stream. */
  | { fault: "error_event"; message?: string }
  /** The stream starts and then never progresses until the client goes away (abort/kill tests). */
  | { fault: "hang"; message?: string }
  /** The stream starts, then sends only `ping` events (every `everyMs`, default 20) until the client goes away. */
  | { fault: "pings"; everyMs?: number; message?: string };

export const isFault = (x: FakeReply | FakeFault): x is FakeFault => "fault" in x;

export const API_ERROR_TYPES: Record<FakeStatus, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  529: "overloaded_error",
};

const DEFAULT_ERROR_MESSAGES: Record<FakeStatus, string> = {
  400: "fake: invalid request",
  401: "invalid x-api-key",
  403: "fake: permission denied",
  404: "fake: not found",
  413: "fake: request too large",
  429: "fake: rate limited",
  500: "fake: internal server error",
  529: "Overloaded",
};

export const EXHAUSTED_TEXT = "(fake: script exhausted)";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** A real-looking id such as `msg_01...`, `toolu_01...`, `req_01...`. */
export function fakeId(prefix: "msg" | "toolu" | "req"): string {
  const bytes = crypto.getRandomValues(new Uint8Array(22));
  let out = "01";
  for (const b of bytes) out += ALPHABET[b % ALPHABET.length];
  return `${prefix}_${out}`;
}

/** The real API's error body: `{type:"error", error:{type, message}, request_id}`. */
export function apiErrorBody(status: FakeStatus, message: string | undefined, requestId: string) {
  return {
    type: "error",
    error: { type: API_ERROR_TYPES[status], message: message ?? DEFAULT_ERROR_MESSAGES[status] },
    request_id: requestId,
  };
}

/** Crude token estimate (chars / 4, at least 1), good enough for realistic-looking usage. */
export function estimateTokens(value: unknown): number {
  const text = typeof value === "string" ? value : JSON.stringify(value ?? "");
  return Math.max(1, Math.ceil(text.length / 4));
}

/** Input tokens the fake charges for a request body: system, messages and tools. */
export function estimateInputTokens(body: { system?: unknown; messages?: unknown; tools?: unknown }): number {
  return estimateTokens([body.system ?? "", body.messages ?? [], body.tools ?? []]);
}

/** Turns a scripted reply into the complete assistant message the API would return. */
export function buildAssistantMessage(
  reply: FakeReply,
  ctx: { model: string; inputTokens: number },
): AssistantMessage {
  const content: ContentBlock[] = reply.content.map((b): ContentBlock => {
    if (b.type === "tool_use") return { type: "tool_use", id: b.id ?? fakeId("toolu"), name: b.name, input: b.input };
    if (b.type === "thinking") return { type: "thinking", thinking: b.thinking, signature: b.signature ?? "fake-signature" };
    if (b.type === "text") return { type: "text", text: b.text };
    return b as unknown as ContentBlock;
  });
  const hasToolUse = content.some((b) => b.type === "tool_use");
  const outputChars = content
    .map((b) => (b.type === "text" ? b.text : b.type === "thinking" ? b.thinking : b.type === "tool_use" ? JSON.stringify(b.input) + b.name : ""))
    .join("");
  return {
    id: fakeId("msg"),
    type: "message",
    role: "assistant",
    model: reply.model ?? ctx.model,
    content,
    stop_reason: reply.stop_reason ?? (hasToolUse ? "tool_use" : "end_turn"),
    stop_sequence: null,
    usage: {
      input_tokens: ctx.inputTokens,
      output_tokens: estimateTokens(outputChars),
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      ...reply.usage,
    },
  };
}

/** Splits text into several pieces (by code point, so no surrogate pair is torn). */
export function chunkText(text: string, pieces = 3, maxChunk = 24): string[] {
  const chars = Array.from(text);
  if (chars.length === 0) return [];
  const size = Math.max(1, Math.min(maxChunk, Math.ceil(chars.length / pieces)));
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(""));
  return out;
}

/** Splits text into pieces of at most `size` UTF-16 units without tearing a surrogate pair (fast for megabytes). */
export function sliceText(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; ) {
    let end = Math.min(text.length, i + Math.max(2, size));
    const c = text.charCodeAt(end - 1);
    if (end < text.length && c >= 0xd800 && c <= 0xdbff) end--;
    out.push(text.slice(i, end));
    i = end;
  }
  return out;
}

export type SseEvent = { event: string; data: Record<string, unknown> };

/**
 * The Messages-API event sequence for a complete message, in the real order: message_start,
 * per block content_block_start / content_block_delta... / content_block_stop (a ping after the
 * first block starts), message_delta with stop_reason and usage, message_stop.
 */
export function messageStreamEvents(message: AssistantMessage, textChunk?: number): SseEvent[] {
  const ev = (event: string, data: Record<string, unknown>): SseEvent => ({ event, data: { type: event, ...data } });
  const out: SseEvent[] = [
    ev("message_start", {
      message: {
        ...message,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...message.usage, output_tokens: Math.min(1, message.usage.output_tokens) },
      },
    }),
  ];
  message.content.forEach((block, index) => {
    if (block.type === "text") {
      out.push(ev("content_block_start", { index, content_block: { type: "text", text: "" } }));
      if (index === 0) out.push(ev("ping", {}));
      for (const text of textChunk ? sliceText(block.text, textChunk) : chunkText(block.text)) {
        out.push(ev("content_block_delta", { index, delta: { type: "text_delta", text } }));
      }
    } else if (block.type === "tool_use") {
      out.push(ev("content_block_start", { index, content_block: { type: "tool_use", id: block.id, name: block.name, input: {} } }));
      if (index === 0) out.push(ev("ping", {}));
      // The real API opens every tool_use with an empty partial_json delta.
      out.push(ev("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: "" } }));
      for (const partial_json of chunkText(JSON.stringify(block.input), 4, 16)) {
        out.push(ev("content_block_delta", { index, delta: { type: "input_json_delta", partial_json } }));
      }
    } else if (block.type === "thinking") {
      out.push(ev("content_block_start", { index, content_block: { type: "thinking", thinking: "", signature: "" } }));
      if (index === 0) out.push(ev("ping", {}));
      for (const thinking of chunkText(block.thinking)) {
        out.push(ev("content_block_delta", { index, delta: { type: "thinking_delta", thinking } }));
      }
      out.push(ev("content_block_delta", { index, delta: { type: "signature_delta", signature: block.signature } }));
    } else {
      // Server tool blocks arrive whole, as the real API streams web search results.
      out.push(ev("content_block_start", { index, content_block: block }));
    }
    out.push(ev("content_block_stop", { index }));
  });
  if (message.content.length === 0) out.push(ev("ping", {}));
  out.push(
    ev("message_delta", {
      delta: { stop_reason: message.stop_reason, stop_sequence: message.stop_sequence },
      usage: {
        input_tokens: message.usage.input_tokens,
        cache_creation_input_tokens: message.usage.cache_creation_input_tokens,
        cache_read_input_tokens: message.usage.cache_read_input_tokens,
        output_tokens: message.usage.output_tokens,
      },
    }),
  );
  out.push(ev("message_stop", {}));
  return out;
}

/** One SSE frame as the API writes it. */
export const sseFrame = (e: SseEvent): string => `event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`;
