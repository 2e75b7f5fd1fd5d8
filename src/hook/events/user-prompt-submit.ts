import { z } from "zod";
import { type EventSpec, type HandlerResult, inputSchema, mergeBase, outputSchema, once } from "./common.ts";

/** contracts §1.4 UserPromptSubmit. */
export const userPromptSubmitInput = once(() => inputSchema("UserPromptSubmit", {
  prompt: z.string(),
  source: z.enum(["user", "sdk", "system", "loop_wakeup", "schedule_wakeup", "poll_event"]).optional(),
  session_title: z.string().optional(),
}));

export const userPromptSubmitOutput = once(() => outputSchema("UserPromptSubmit", {
  additionalContext: z.string().optional(),
  sessionTitle: z.string().optional(),
  suppressOriginalPrompt: z.boolean().optional(),
}));

/** Exit 2 / `decision:"block"` rejects and erases the prompt; plain exit-0 stdout is model context. */
export function mergeUserPromptSubmit(results: HandlerResult[]) {
  return mergeBase(results, {
    canBlock: true,
    plainStdoutIsContext: true,
    specific: (out, _r, hso) => {
      if (typeof hso.sessionTitle === "string") out.sessionTitle = hso.sessionTitle;
      if (hso.suppressOriginalPrompt === true) out.suppressOriginalPrompt = true;
    },
  });
}

export const userPromptSubmit: EventSpec<"UserPromptSubmit"> = {
  name: "UserPromptSubmit",
  input: userPromptSubmitInput,
  output: userPromptSubmitOutput,
  canBlock: true,
  defaultTimeoutSec: 30,
  ifApplies: false,
  onFailureApplies: true,
  merge: mergeUserPromptSubmit,
};
