import { z } from "zod";
import { capText, type EventSpec, type HandlerResult, inputSchema, mergeBase, outputSchema, once } from "./common.ts";

/**
 * contracts §1.4 UserPromptExpansion: a user's `/name args` about to expand (a skill or custom command:
 * `slash_command`; an MCP prompt: `mcp_prompt`). The matcher sees `command_name`. Not fired when the model calls
 * a skill through the Skill tool (observed in 2.1.332).
 */
export const userPromptExpansionInput = once(() => inputSchema("UserPromptExpansion", {
  expansion_type: z.enum(["slash_command", "mcp_prompt"]),
  command_name: z.string(),
  command_args: z.string(),
  command_source: z.string().optional(),
  prompt: z.string(),
}));

export const userPromptExpansionOutput = once(() => outputSchema("UserPromptExpansion", {
  additionalContext: z.string().optional(),
  suppressOriginalPrompt: z.boolean().optional(),
}));

/**
 * Exit 2 / `decision:"block"` stops the expansion (nothing reaches the model); `continue:false` stops the turn.
 * JSON `additionalContext` is model context; exit-0 plain stdout is too, but Claude Code words it as the hook's
 * "success" output, so it is kept apart in `successOutput`. Pure.
 */
export function mergeUserPromptExpansion(results: HandlerResult[]) {
  const out = mergeBase(results, {
    canBlock: true,
    specific: (o, _r, hso) => {
      if (hso.suppressOriginalPrompt === true) o.suppressOriginalPrompt = true;
    },
  });
  const plain = results.flatMap((r) => (r.plainStdout?.trim() ? [capText(r.plainStdout.trim())] : []));
  if (plain.length) out.successOutput = plain;
  return out;
}

export const userPromptExpansion: EventSpec<"UserPromptExpansion"> = {
  name: "UserPromptExpansion",
  input: userPromptExpansionInput,
  output: userPromptExpansionOutput,
  canBlock: true,
  matchField: "command_name",
  defaultTimeoutSec: 600,
  ifApplies: false,
  onFailureApplies: true,
  merge: mergeUserPromptExpansion,
};
