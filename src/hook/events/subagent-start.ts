import { z } from "zod";
import { type EventSpec, type HandlerResult, inputSchema, mergeBase, outputSchema, once } from "./common.ts";

/** contracts §1.4 SubagentStart; the matcher sees `agent_type`. */
export const subagentStartInput = once(() => inputSchema("SubagentStart", {
  agent_id: z.string(),
  agent_type: z.string(),
}));

export const subagentStartOutput = once(() => outputSchema("SubagentStart", { additionalContext: z.string().optional() }));

/** Cannot block: exit-2 stderr is shown to the user; additionalContext goes to the subagent. */
export const mergeSubagentStart = (results: HandlerResult[]) => mergeBase(results, { canBlock: false, exit2ToUser: true });

export const subagentStart: EventSpec<"SubagentStart"> = {
  name: "SubagentStart",
  input: subagentStartInput,
  output: subagentStartOutput,
  canBlock: false,
  matchField: "agent_type",
  defaultTimeoutSec: 600,
  ifApplies: false,
  onFailureApplies: true,
  merge: mergeSubagentStart,
};
