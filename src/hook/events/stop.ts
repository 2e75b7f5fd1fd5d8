import { z } from "zod";
import { type EventSpec, type HandlerResult, inputSchema, mergeBase, outputSchema, once } from "./common.ts";

/** contracts §1.4 Stop. `stop_hook_active` is true when a Stop hook already sent the loop on. */
export const stopInput = once(() => inputSchema("Stop", {
  stop_hook_active: z.boolean(),
  last_assistant_message: z.string().optional(),
  background_tasks: z.array(z.unknown()).optional(),
  session_crons: z.array(z.unknown()).optional(),
}));

export const stopOutput = once(() => outputSchema("Stop", { additionalContext: z.string().optional() }));

/**
 * `blocked` + `blockReason`: the loop feeds the reason back as a user turn and continues
 * (contracts §1.6; the 8-continuation cap lives in the loop).
 */
export const mergeStop = (results: HandlerResult[]) => mergeBase(results, { canBlock: true });

export const stop: EventSpec<"Stop"> = {
  name: "Stop",
  input: stopInput,
  output: stopOutput,
  canBlock: true,
  defaultTimeoutSec: 600,
  ifApplies: false,
  onFailureApplies: false,
  merge: mergeStop,
};
