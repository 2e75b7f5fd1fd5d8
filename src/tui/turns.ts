import type { LoopEvent, TurnResult } from "../loop/events.ts";
import { recordSessionStart } from "../loop/hook-feedback.ts";
import type { Runtime } from "../cli/compose.ts";
import { promptTurn } from "../cli/prompt-turn.ts";
import type { Prompt } from "../cli/stdin.ts";

/**
 * The terminal's turns, taking the same steps as `-p` (src/cli/print-mode.ts runPrint) so every mode fires the same
 * hooks the same way: SessionStart before the first prompt, MCP prompt expansion and `/compact` per prompt,
 * SessionEnd at the end. Never throws for the model's or a hook's sake (the loop reports those as events).
 */

/** SessionStart hooks: their additionalContext goes before the next prompt; their systemMessages come back to show. */
export async function startSession(rt: Runtime, signal: AbortSignal): Promise<string[]> {
  if (!rt.hooks.has("SessionStart")) return [];
  const source = rt.sessionSource;
  const out = await rt.hooks.emit("SessionStart", rt.hookPayload("SessionStart", { source, model: rt.model }), { matchValue: source, signal });
  rt.sessionStartContext.push(...recordSessionStart(rt.transcript, out));
  return out.systemMessages;
}

/**
 * One prompt, through the same path as `-p` (src/cli/prompt-turn.ts): `/compact`, skills and custom commands (with
 * `$ARGUMENTS`, `!` lines and `@file` mentions), plugin commands, MCP prompts, or a turn of the main conversation.
 * `slash` false: slash commands are off.
 */
export const promptRun = (rt: Runtime, prompt: Prompt, signal: AbortSignal, slash: boolean): Promise<AsyncGenerator<LoopEvent, TurnResult>> =>
  promptTurn(rt, prompt, signal, slash);

/** SessionEnd hooks with the reason (contracts §1: clear, logout, prompt_input_exit, other), then async hooks drained. */
export async function endSession(rt: Runtime, reason: "clear" | "logout" | "prompt_input_exit" | "other"): Promise<void> {
  if (rt.hooks.has("SessionEnd")) await rt.hooks.emit("SessionEnd", rt.hookPayload("SessionEnd", { reason }), { matchValue: reason });
  await rt.hooks.drainAsync(5000);
}
