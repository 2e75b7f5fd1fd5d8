import { z } from "zod";
import { type EventSpec, type HandlerResult, inputSchema, mergeBase, outputSchema, once } from "./common.ts";

/**
 * contracts §1.4 / hooks-hook-stdin-shape.txt MessageDisplay: before an assistant text is shown. `turn_id` is the
 * same for every message of one prompt, `message_id` new per text; a complete text arrives as one `delta` with
 * `index: 0, final: true` (observed in 2.1.332, also with --include-partial-messages).
 */
export const messageDisplayInput = once(() => inputSchema("MessageDisplay", {
  turn_id: z.string(),
  message_id: z.string(),
  index: z.number(),
  final: z.boolean(),
  delta: z.string(),
}));

export const messageDisplayOutput = once(() => outputSchema("MessageDisplay", { displayContent: z.string().optional() }));

/**
 * Display only (contracts §1.1): cannot block. `displayContent` replaces the text shown (stream-json's assistant
 * message); the model and the transcript keep the original (observed in 2.1.332). Last handler wins.
 */
export function mergeMessageDisplay(results: HandlerResult[]) {
  return mergeBase(results, {
    canBlock: false,
    specific: (out, _r, hso) => {
      if (typeof hso.displayContent === "string") out.displayContent = hso.displayContent;
    },
  });
}

export const messageDisplay: EventSpec<"MessageDisplay"> = {
  name: "MessageDisplay",
  input: messageDisplayInput,
  output: messageDisplayOutput,
  canBlock: false,
  defaultTimeoutSec: 10,
  ifApplies: false,
  onFailureApplies: true,
  merge: mergeMessageDisplay,
};
