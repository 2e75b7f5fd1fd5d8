import { z } from "zod";
import { type EventSpec, type HandlerResult, inputSchema, mergeBase, outputSchema, once } from "./common.ts";

/** contracts §1.4 PostToolUseFailure (Bash `error`: "Exit code N\n<output>"). */
export const postToolUseFailureInput = once(() => inputSchema("PostToolUseFailure", {
  tool_name: z.string(),
  tool_input: z.record(z.string(), z.unknown()),
  tool_use_id: z.string(),
  error: z.string(),
  is_interrupt: z.boolean().optional(),
  duration_ms: z.number().optional(),
}));

export const postToolUseFailureOutput = once(() => outputSchema("PostToolUseFailure", {
  additionalContext: z.string().optional(),
}));

/** As PostToolUse: `blocked` carries feedback for the model; the failure stands. */
export const mergePostToolUseFailure = (results: HandlerResult[]) => mergeBase(results, { canBlock: true });

export const postToolUseFailure: EventSpec<"PostToolUseFailure"> = {
  name: "PostToolUseFailure",
  input: postToolUseFailureInput,
  output: postToolUseFailureOutput,
  canBlock: false,
  matchField: "tool_name",
  defaultTimeoutSec: 600,
  ifApplies: true,
  onFailureApplies: true,
  merge: mergePostToolUseFailure,
};
