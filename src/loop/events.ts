import type { AssistantMessage, ContentBlock, RetryInfo, Usage, UserMessage } from "../provider/types.ts";

export type PermissionDenial = { tool_name: string; tool_use_id: string; tool_input: Record<string, unknown> };

export type TerminalReason =
  | "completed"
  | "max_turns"
  | "api_error"
  | "hook_stopped"
  | "stop_hook_prevented"
  | "aborted_streaming"
  | "aborted_tools"
  | "prompt_too_long"
  | "budget_exhausted"
  | "plan_ready";

export type ResultSubtype = "success" | "error_max_turns" | "error_during_execution" | "error_max_budget_usd" | "error_max_structured_output_retries";

export type ModelUsageEntry = {
  inputTokens: number;
  outputTokens: number;
  cacheReadInputTokens: number;
  cacheCreationInputTokens: number;
  webSearchRequests: number;
  costUSD: number;
  contextWindow: number;
  maxOutputTokens: number;
};

export type TurnResult = {
  subtype: ResultSubtype;
  isError: boolean;
  result: string;
  errors: string[];
  numTurns: number;
  durationMs: number;
  durationApiMs: number;
  stopReason: string | null;
  terminalReason: TerminalReason;
  usage: Usage;
  modelUsage: Record<string, ModelUsageEntry>;
  totalCostUsd: number;
  permissionDenials: PermissionDenial[];
  apiErrorStatus?: number | null;
  /** `--json-schema`: the answer the model gave through the StructuredOutput tool. */
  structuredOutput?: unknown;
  /**
   * The run completed, but its last permission denial came after its last successful tool call: the model
   * stopped because it was not allowed to go on. Headless exits 3 on it (yoke's addition; not in the result JSON).
   */
  endedOnDenial?: boolean;
  /** A slash command answered without the model (`/effort`): the result's `local_command`. */
  localCommand?: string;
};

/** Everything the loop reports. Modes only render these. */
export type LoopEvent =
  /** `cause`: what failed, in words (stderr only; stream-json's api_retry keeps Claude Code's keys). */
  | { type: "api_retry"; info: RetryInfo; cause?: string }
  | { type: "stream_event"; event: Record<string, unknown> }
  /** `requestId`: the API request that produced the message (stream-json `request_id`, transcript `requestId`). */
  | {
      type: "assistant";
      message: AssistantMessage;
      uuids: string[];
      requestId?: string;
      /** An API failure shown as an assistant message (contracts §4.4 `error`); never sent back to the model. */
      apiError?: { kind: string; status: number | null };
    }
  /**
   * `prompt`: the submitted prompt with its injected context; Claude Code's stream-json prints it only with
   * --replay-user-messages, and then as submitted (`prompt`), without the context.
   */
  | { type: "user"; message: UserMessage; uuid: string; toolUseResult?: unknown; isReplay?: boolean; prompt?: UserMessage["content"] }
  | { type: "tool_start"; toolUseId: string; name: string; input: Record<string, unknown> }
  | { type: "permission_denied"; denial: PermissionDenial; reason: string }
  | { type: "system"; subtype: string; data: Record<string, unknown> }
  | { type: "result"; result: TurnResult }
  /** A subagent's assistant/user message, shown in stream-json with the spawning tool_use id (contracts §4.4). */
  | { type: "subagent"; event: LoopEvent; toolUseId: string; agentId: string; agentType: string };

export type { ContentBlock };
