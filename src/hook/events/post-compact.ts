import { z } from "zod";
import { type EventSpec, type HandlerResult, inputSchema, mergeBase, outputSchema, once } from "./common.ts";

/** contracts §1.4 PostCompact: after a compaction, with the summary it produced; the matcher sees `trigger`. */
export const postCompactInput = once(() => inputSchema("PostCompact", {
  trigger: z.enum(["manual", "auto"]),
  compact_summary: z.string(),
}));

export const postCompactOutput = once(() => outputSchema("PostCompact", {}));

/** Cannot block; systemMessage is discarded (contracts §1.6). */
export const mergePostCompact = (results: HandlerResult[]) => mergeBase(results, { canBlock: false, discardSystemMessage: true });

export const postCompact: EventSpec<"PostCompact"> = {
  name: "PostCompact",
  input: postCompactInput,
  output: postCompactOutput,
  canBlock: false,
  matchField: "trigger",
  defaultTimeoutSec: 600,
  ifApplies: false,
  onFailureApplies: false,
  merge: mergePostCompact,
};
