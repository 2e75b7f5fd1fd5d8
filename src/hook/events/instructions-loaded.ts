import { z } from "zod";
import { type EventSpec, type HandlerResult, inputSchema, mergeBase, outputSchema, once } from "./common.ts";

/** contracts §1.4 InstructionsLoaded: once per instruction file that enters the context; the matcher sees `load_reason`. */
export const instructionsLoadedInput = once(() => inputSchema("InstructionsLoaded", {
  file_path: z.string(),
  memory_type: z.enum(["User", "Project", "Local", "Managed"]),
  load_reason: z.enum(["session_start", "nested_traversal", "path_glob_match", "include", "compact"]),
  globs: z.array(z.string()).optional(),
  trigger_file_path: z.string().optional(),
  parent_file_path: z.string().optional(),
}));

export const instructionsLoadedOutput = once(() => outputSchema("InstructionsLoaded", {}));

export const mergeInstructionsLoaded = (results: HandlerResult[]) => mergeBase(results, { canBlock: false, discardSystemMessage: true });

export const instructionsLoaded: EventSpec<"InstructionsLoaded"> = {
  name: "InstructionsLoaded",
  input: instructionsLoadedInput,
  output: instructionsLoadedOutput,
  canBlock: false,
  matchField: "load_reason",
  defaultTimeoutSec: 600,
  ifApplies: false,
  onFailureApplies: false,
  merge: mergeInstructionsLoaded,
};
