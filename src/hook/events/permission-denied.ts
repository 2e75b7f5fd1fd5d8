import { z } from "zod";
import { type EventSpec, type HandlerResult, inputSchema, mergeBase, outputSchema, once } from "./common.ts";

/** contracts §1.4 PermissionDenied: fired after auto mode's classifier denies a tool call (auto-mode denials only, §1.1). */
export const permissionDeniedInput = once(() => inputSchema("PermissionDenied", {
  tool_name: z.string(),
  tool_input: z.record(z.string(), z.unknown()),
  tool_use_id: z.string(),
  reason: z.string(),
}));

/** contracts §1.6: `retry: true` tells the model it may try the call again. */
export const permissionDeniedOutput = once(() => outputSchema("PermissionDenied", { retry: z.boolean().optional() }));

/** Cannot block (exit 2 decides nothing); `retry: true` from any handler lets the model retry. */
export function mergePermissionDenied(results: HandlerResult[]) {
  let retry = false;
  const out = mergeBase(results, {
    canBlock: false,
    specific: (_o, _r, hso) => {
      if (hso.retry === true) retry = true;
    },
  });
  if (retry) out.retry = true;
  return out;
}

export const permissionDenied: EventSpec<"PermissionDenied"> = {
  name: "PermissionDenied",
  input: permissionDeniedInput,
  output: permissionDeniedOutput,
  canBlock: false,
  matchField: "tool_name",
  defaultTimeoutSec: 600,
  ifApplies: true,
  onFailureApplies: false,
  merge: mergePermissionDenied,
};
