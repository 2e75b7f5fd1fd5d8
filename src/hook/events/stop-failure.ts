import { z } from "zod";
import { type EventSpec, type HandlerResult, inputSchema, mergeBase, outputSchema, once } from "./common.ts";

/**
 * contracts §1.1 / §1.4 StopFailure: the turn ended on an API error. The matcher sees `error`
 * (rate_limit, overloaded, authentication_failed, billing_error, invalid_request, server_error, max_output_tokens,
 * model_not_found, unknown). Output is ignored: it is a notification for scripts (alerting in CI).
 */
export const stopFailureInput = once(() => inputSchema("StopFailure", {
  error: z.string(),
  error_details: z.string().optional(),
  last_assistant_message: z.string().optional(),
}));

export const stopFailureOutput = once(() => outputSchema("StopFailure", {}));

export const mergeStopFailure = (results: HandlerResult[]) => mergeBase(results, { canBlock: false, discardSystemMessage: true });

export const stopFailure: EventSpec<"StopFailure"> = {
  name: "StopFailure",
  input: stopFailureInput,
  output: stopFailureOutput,
  canBlock: false,
  matchField: "error",
  defaultTimeoutSec: 600,
  ifApplies: false,
  onFailureApplies: false,
  merge: mergeStopFailure,
};
