import { z } from "zod";
import { capText, type EventSpec, type HandlerResult, inputSchema, mergeBase, outputSchema, once } from "./common.ts";

/** contracts §1.4 PermissionRequest: fired when a tool call would ask; no `tool_use_id`. */
export const permissionRequestInput = once(() => inputSchema("PermissionRequest", {
  tool_name: z.string(),
  tool_input: z.record(z.string(), z.unknown()),
  permission_suggestions: z.array(z.record(z.string(), z.unknown())).optional(),
  mcp_server: z.looseObject({ name: z.string(), source: z.string().optional() }).optional(),
}));

/** contracts §1.6: `decision: {behavior: "allow", updatedInput?} | {behavior: "deny", message?, interrupt?}`. */
export const permissionRequestOutput = once(() => outputSchema("PermissionRequest", {
  decision: z
    .union([
      z.looseObject({ behavior: z.literal("allow"), updatedInput: z.record(z.string(), z.unknown()).optional(), updatedPermissions: z.array(z.unknown()).optional() }),
      z.looseObject({ behavior: z.literal("deny"), message: z.string().optional(), interrupt: z.boolean().optional() }),
    ])
    .optional(),
}));

/**
 * Only `decision.behavior` decides (exit 2 is ignored, contracts §1.1); a deny from any handler wins, its
 * message is the reason the model sees. An allow may carry `updatedInput` (last wins).
 */
export function mergePermissionRequest(results: HandlerResult[]) {
  const denies: string[] = [];
  let allowed = false;
  let updated: Record<string, unknown> | undefined;
  const out = mergeBase(results, {
    canBlock: false,
    specific: (_o, _r, hso) => {
      const d = hso.decision as { behavior?: string; message?: unknown; updatedInput?: Record<string, unknown> } | undefined;
      if (d?.behavior === "deny") denies.push(capText(typeof d.message === "string" && d.message ? d.message : "Denied by a PermissionRequest hook"));
      else if (d?.behavior === "allow") {
        allowed = true;
        if (d.updatedInput && typeof d.updatedInput === "object") updated = d.updatedInput;
      }
    },
  });
  if (denies.length) {
    out.permissionDecision = "deny";
    out.permissionDecisionReason = denies.join("\n");
  } else if (allowed) {
    out.permissionDecision = "allow";
    if (updated) out.updatedInput = updated;
  }
  return out;
}

export const permissionRequest: EventSpec<"PermissionRequest"> = {
  name: "PermissionRequest",
  input: permissionRequestInput,
  output: permissionRequestOutput,
  canBlock: false,
  matchField: "tool_name",
  defaultTimeoutSec: 600,
  ifApplies: true,
  onFailureApplies: false,
  merge: mergePermissionRequest,
};
