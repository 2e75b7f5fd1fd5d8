import { z } from "zod";
import { type EventSpec, type HandlerResult, inputSchema, mergeBase, outputSchema, once } from "./common.ts";

/** contracts §1.4 SessionStart; the matcher sees `source`. */
export const sessionStartInput = once(() => inputSchema("SessionStart", {
  source: z.enum(["startup", "resume", "clear", "compact", "fork"]),
  model: z.string().optional(),
  agent_type: z.string().optional(),
  session_title: z.string().optional(),
}));

export const sessionStartOutput = once(() => outputSchema("SessionStart", {
  additionalContext: z.string().optional(),
  initialUserMessage: z.string().optional(),
  sessionTitle: z.string().optional(),
  watchPaths: z.array(z.string()).optional(),
  reloadSkills: z.boolean().optional(),
}));

/** Cannot block (exit-2 stderr shown to the user); plain exit-0 stdout becomes model context. */
export function mergeSessionStart(results: HandlerResult[]) {
  return mergeBase(results, {
    canBlock: false,
    exit2ToUser: true,
    plainStdoutIsContext: true,
    specific: (out, _r, hso) => {
      if (typeof hso.sessionTitle === "string") out.sessionTitle = hso.sessionTitle;
      if (typeof hso.initialUserMessage === "string") out.initialUserMessage = hso.initialUserMessage;
      if (Array.isArray(hso.watchPaths)) out.watchPaths = [...(out.watchPaths ?? []), ...(hso.watchPaths as string[])];
    },
  });
}

export const sessionStart: EventSpec<"SessionStart"> = {
  name: "SessionStart",
  input: sessionStartInput,
  output: sessionStartOutput,
  canBlock: false,
  matchField: "source",
  defaultTimeoutSec: 600,
  ifApplies: false,
  onFailureApplies: true,
  merge: mergeSessionStart,
};
