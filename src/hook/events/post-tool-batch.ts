import { z } from "zod";
import { type EventSpec, type HandlerResult, inputSchema, mergeBase, outputSchema, once } from "./common.ts";

/**
 * contracts §1.4 PostToolBatch: once after every tool call of one assistant message has its result. `tool_calls`
 * follow the message's order; `tool_response` is the model-facing tool_result content, not the structured
 * object PostToolUse gets (observed in 2.1.332).
 */
export const postToolBatchInput = once(() => inputSchema("PostToolBatch", {
  tool_calls: z.array(
    z.looseObject({
      tool_name: z.string(),
      tool_input: z.record(z.string(), z.unknown()),
      tool_use_id: z.string(),
      tool_response: z.unknown().optional(),
    }),
  ),
}));

export const postToolBatchOutput = once(() => outputSchema("PostToolBatch", { additionalContext: z.string().optional() }));

/**
 * Exit 2 / `decision:"block"` ends the turn before the next model call (contracts §1.1); additionalContext goes
 * to the model with the batch's results.
 */
export const mergePostToolBatch = (results: HandlerResult[]) => mergeBase(results, { canBlock: true });

export const postToolBatch: EventSpec<"PostToolBatch"> = {
  name: "PostToolBatch",
  input: postToolBatchInput,
  output: postToolBatchOutput,
  canBlock: true,
  defaultTimeoutSec: 600,
  ifApplies: false,
  onFailureApplies: true,
  merge: mergePostToolBatch,
};
