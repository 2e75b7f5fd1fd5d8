import { z } from "zod";
import { type EventSpec, type HandlerResult, inputSchema, mergeBase, outputSchema, once } from "./common.ts";

/** contracts §1.4 SessionEnd; the matcher sees `reason`. */
export const sessionEndInput = once(() => inputSchema("SessionEnd", {
  reason: z.enum(["clear", "resume", "logout", "prompt_input_exit", "other"]),
}));

export const sessionEndOutput = once(() => outputSchema("SessionEnd", {}));

/** Cannot block; `systemMessage` is discarded (contracts §1.6). */
export const mergeSessionEnd = (results: HandlerResult[]) => mergeBase(results, { canBlock: false, discardSystemMessage: true });

/**
 * contracts §1.2: SessionEnd hooks share a 1.5 s budget, raised to the largest configured per-hook
 * timeout (max 60 s); `CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS` overrides.
 */
export function sessionEndBudgetMs(configuredSec: (number | undefined)[], env: Record<string, string | undefined>): number {
  const fromEnv = Number(env.CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS);
  if (Number.isFinite(fromEnv) && fromEnv > 0) return fromEnv;
  const largest = Math.max(0, ...configuredSec.map((s) => s ?? 0));
  return Math.max(1500, Math.min(60_000, largest * 1000));
}

export const sessionEnd: EventSpec<"SessionEnd"> = {
  name: "SessionEnd",
  input: sessionEndInput,
  output: sessionEndOutput,
  canBlock: false,
  matchField: "reason",
  defaultTimeoutSec: 1.5,
  ifApplies: false,
  onFailureApplies: true,
  merge: mergeSessionEnd,
};
