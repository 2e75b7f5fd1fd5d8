import { z } from "zod";
import { type EventSpec, type HandlerResult, inputSchema, mergeBase, outputSchema, once } from "./common.ts";

/** contracts §1.4 SubagentStop; the matcher sees `agent_type`. */
export const subagentStopInput = once(() => inputSchema("SubagentStop", {
  stop_hook_active: z.boolean(),
  agent_id: z.string(),
  agent_type: z.string(),
  agent_transcript_path: z.string(),
  last_assistant_message: z.string().optional(),
  background_tasks: z.array(z.unknown()).optional(),
  session_crons: z.array(z.unknown()).optional(),
}));

export const subagentStopOutput = once(() => outputSchema("SubagentStop", { additionalContext: z.string().optional() }));

/** As Stop: `blocked` keeps the subagent going with `blockReason`. */
export const mergeSubagentStop = (results: HandlerResult[]) => mergeBase(results, { canBlock: true });

export const subagentStop: EventSpec<"SubagentStop"> = {
  name: "SubagentStop",
  input: subagentStopInput,
  output: subagentStopOutput,
  canBlock: true,
  matchField: "agent_type",
  defaultTimeoutSec: 600,
  ifApplies: false,
  onFailureApplies: false,
  merge: mergeSubagentStop,
};
