import { z } from "zod";
import { type EventSpec, type HandlerResult, inputSchema, mergeBase, outputSchema, once } from "./common.ts";

/** contracts §1.4 PreCompact; the matcher sees `trigger`. */
export const preCompactInput = once(() => inputSchema("PreCompact", {
  trigger: z.enum(["manual", "auto"]),
  custom_instructions: z.string().nullable(),
}));

export const preCompactOutput = once(() => outputSchema("PreCompact", {}));

/**
 * Exit 2 / `decision:"block"` blocks compaction. Plain exit-0 stdout lands in `additionalContext`:
 * the caller appends it to the compaction instructions (internals §8.1). systemMessage is discarded.
 */
export const mergePreCompact = (results: HandlerResult[]) =>
  mergeBase(results, { canBlock: true, plainStdoutIsContext: true, discardSystemMessage: true });

export const preCompact: EventSpec<"PreCompact"> = {
  name: "PreCompact",
  input: preCompactInput,
  output: preCompactOutput,
  canBlock: true,
  matchField: "trigger",
  defaultTimeoutSec: 600,
  ifApplies: false,
  onFailureApplies: true,
  merge: mergePreCompact,
};
