/**
 * The model boundary. Shapes follow the Anthropic Messages API so transcripts, hooks and
 * stream-json can carry them unchanged.
 */
export type TextBlock = { type: "text"; text: string; cache_control?: CacheControl };
export type ImageBlock = {
  type: "image";
  source: { type: "base64"; media_type: string; data: string };
};
export type ToolUseBlock = { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };
export type ToolResultBlock = {
  type: "tool_result";
  tool_use_id: string;
  content: string | Array<TextBlock | ImageBlock>;
  is_error?: boolean;
  cache_control?: CacheControl;
};
export type ThinkingBlock = { type: "thinking"; thinking: string; signature: string };
export type CacheControl = { type: "ephemeral" };
export type ContentBlock = TextBlock | ImageBlock | ToolUseBlock | ToolResultBlock | ThinkingBlock;

export type UserMessage = { role: "user"; content: string | ContentBlock[] };
export type AssistantMessage = {
  id: string;
  type: "message";
  role: "assistant";
  model: string;
  content: ContentBlock[];
  stop_reason: StopReason | null;
  stop_sequence: string | null;
  usage: Usage;
};
/**
 * A `role: "system"` turn inside the conversation (the Messages API's SystemMessageParam): what Claude Code 2.1.332
 * sends hook feedback as (a block's "… hook blocking error from command …" line, hook additional context).
 */
export type SystemMessage = { role: "system"; content: string | TextBlock[] };
export type Message = UserMessage | { role: "assistant"; content: ContentBlock[] } | SystemMessage;

export type StopReason = "end_turn" | "max_tokens" | "stop_sequence" | "tool_use" | "pause_turn" | "refusal";

export type Usage = {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
};

export type ToolSpec = { name: string; description: string; input_schema: Record<string, unknown> };

export type ModelRequest = {
  model: string;
  system: TextBlock[];
  messages: Message[];
  tools: ToolSpec[];
  maxTokens: number;
  /** JSON schema for a structured answer (side queries); the provider asks for JSON text. */
  temperature?: number;
  /** Extended thinking, as the Messages API takes it (model-params.ts decides per model). */
  thinking?: ThinkingParam;
  /** `output_config.effort` for models that take it. */
  effort?: "low" | "medium" | "high" | "xhigh" | "max";
};

/** `display`: how much thinking text the API returns (`omitted`, `summarized`, `updates`), as Claude Code 2.1.332 asks. */
export type ThinkingParam = { type: "adaptive"; display?: string } | { type: "enabled"; budget_tokens: number } | { type: "disabled" };

/** A retry the provider is about to make; modes render it as `system`/`api_retry`. */
export type RetryInfo = {
  attempt: number;
  max_retries: number;
  retry_delay_ms: number;
  error_status: number | null;
  error: string;
};

export type ProviderEvent =
  /** `cause`: what failed, in words, for the one stderr line each retry gets. */
  | { type: "retry"; info: RetryInfo; cause?: string }
  /** A raw Messages-API stream event, for --include-partial-messages. */
  | { type: "stream_event"; event: Record<string, unknown> }
  /** `requestId`: the API's `request-id` response header (transcript `requestId`, stream-json `request_id`). */
  | { type: "done"; message: AssistantMessage; durationMs: number; requestId?: string }
  | { type: "error"; error: ProviderError; durationMs: number; requestId?: string };

export type ProviderError = {
  /** HTTP status when the API answered, else null (connection failure, cut stream). */
  status: number | null;
  kind:
    | "authentication_failed"
    | "billing_error"
    | "rate_limit"
    | "overloaded"
    | "invalid_request"
    | "model_not_found"
    | "server_error"
    | "aborted"
    | "unknown";
  message: string;
};

/**
 * Streams one model response. Never throws: every failure, including abort, comes back as an
 * `error` event, and the stream always ends with exactly one `done` or `error`.
 */
export interface Provider {
  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ProviderEvent>;
  /**
   * Gets ready for the first request while the run is still composing (loads the client, opens the connection to
   * the API), so the request leaves the moment it is built (issue 21). Optional; never throws, never waits.
   */
  warm?(): void;
}

export const emptyUsage = (): Usage => ({
  input_tokens: 0,
  output_tokens: 0,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
});
