import { z } from "zod";
import type { PermissionDecisionValue } from "../types.ts";
import { capText, type EventSpec, type HandlerResult, inputSchema, mergeBase, outputSchema, strongerDecision, once } from "./common.ts";

/** contracts §1.4 PreToolUse. `tool_input` file paths are absolute. */
export const preToolUseInput = once(() => inputSchema("PreToolUse", {
  tool_name: z.string(),
  tool_input: z.record(z.string(), z.unknown()),
  tool_use_id: z.string(),
  mcp_server: z.looseObject({ name: z.string(), source: z.string().optional() }).optional(),
}));

/** contracts §1.6 PreToolUse hookSpecificOutput. */
export const preToolUseOutput = once(() => outputSchema("PreToolUse", {
  permissionDecision: z.enum(["allow", "deny", "ask", "defer"]).optional(),
  permissionDecisionReason: z.string().optional(),
  updatedInput: z.record(z.string(), z.unknown()).optional(),
  additionalContext: z.string().optional(),
}));

const str = (v: unknown): string | undefined => (typeof v === "string" && v.length > 0 ? v : undefined);

/** One handler's decision: exit 2 / fail-closed is deny; legacy `decision` approve/block → allow/deny. */
function decisionOf(r: HandlerResult): { d?: PermissionDecisionValue; why?: string; input?: Record<string, unknown> } {
  // "Blocked by hook": Claude Code's text for a block that gives no reason (internals §8.1).
  if (r.blockingError !== undefined) return { d: "deny", why: r.blockingError || "Blocked by hook" };
  const j = r.output;
  if (!j) return {};
  const hso = (j.hookSpecificOutput ?? {}) as Record<string, unknown>;
  const legacy = j.decision === "approve" ? "allow" : j.decision === "block" ? "deny" : undefined;
  const d = (hso.permissionDecision as PermissionDecisionValue | undefined) ?? legacy;
  const why = str(hso.permissionDecisionReason) ?? str(j.reason) ?? (d === "deny" ? "Blocked by hook" : undefined);
  return { d, why, input: hso.updatedInput as Record<string, unknown> | undefined };
}

/**
 * deny > defer > ask > allow (contracts §1.6). A deny blocks with every deny reason joined; the
 * reason of other decisions comes from the first handler that gave the winning one. `updatedInput`
 * (last wins) is kept only when the result is allow, ask or no decision.
 */
export function mergePreToolUse(results: HandlerResult[]) {
  const out = mergeBase(results, { canBlock: false });
  const reasons: Partial<Record<PermissionDecisionValue, string[]>> = {};
  let updated: Record<string, unknown> | undefined;
  for (const r of results) {
    const { d, why, input } = decisionOf(r);
    if (d && strongerDecision(out.permissionDecision, d)) out.permissionDecision = d;
    if (d && why) (reasons[d] ??= []).push(capText(why));
    if (input && d !== "deny" && d !== "defer") updated = input;
  }
  const d = out.permissionDecision;
  if (d) {
    const rs = reasons[d] ?? [];
    if (rs.length > 0) out.permissionDecisionReason = d === "deny" ? rs.join("\n") : rs[0];
  }
  if (d === "deny") {
    out.blocked = true;
    out.blockReason = out.permissionDecisionReason;
  }
  if (updated && d !== "deny" && d !== "defer") out.updatedInput = updated;
  return out;
}

export const preToolUse: EventSpec<"PreToolUse"> = {
  name: "PreToolUse",
  input: preToolUseInput,
  output: preToolUseOutput,
  canBlock: true,
  matchField: "tool_name",
  defaultTimeoutSec: 600,
  ifApplies: true,
  onFailureApplies: true,
  merge: mergePreToolUse,
};
