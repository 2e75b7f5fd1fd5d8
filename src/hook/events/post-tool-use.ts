import { z } from "zod";
import { type EventSpec, type HandlerResult, inputSchema, mergeBase, outputSchema, once } from "./common.ts";

/** contracts §1.4 PostToolUse: `tool_response` is the tool's structured output object. */
export const postToolUseInput = once(() => inputSchema("PostToolUse", {
  tool_name: z.string(),
  tool_input: z.record(z.string(), z.unknown()),
  tool_response: z.unknown(),
  tool_use_id: z.string(),
  duration_ms: z.number().optional(),
}));

export const postToolUseOutput = once(() => outputSchema("PostToolUse", {
  additionalContext: z.string().optional(),
  updatedToolOutput: z.unknown().optional(),
  updatedMCPToolOutput: z.unknown().optional(),
  classifierContext: z.string().optional(),
}));

/**
 * The tool already ran, so `blocked` here means feedback: exit-2 stderr or `decision:"block"`
 * `reason` goes to the model next to the tool result (contracts §1.1, internals §8.1).
 */
export function mergePostToolUse(results: HandlerResult[]) {
  return mergeBase(results, {
    canBlock: true,
    specific: (out, _r, hso) => {
      if (hso.updatedToolOutput !== undefined) out.updatedToolOutput = hso.updatedToolOutput;
      else if (hso.updatedMCPToolOutput !== undefined) out.updatedToolOutput = hso.updatedMCPToolOutput;
    },
  });
}

export const postToolUse: EventSpec<"PostToolUse"> = {
  name: "PostToolUse",
  input: postToolUseInput,
  output: postToolUseOutput,
  canBlock: false,
  matchField: "tool_name",
  defaultTimeoutSec: 600,
  ifApplies: true,
  onFailureApplies: true,
  merge: mergePostToolUse,
};
