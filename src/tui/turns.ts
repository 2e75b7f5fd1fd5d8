import type { LoopEvent, TurnResult } from "../loop/events.ts";
import { isCompactCommand } from "../loop/compaction.ts";
import { extendedTurn } from "../extension/runtime.ts";
import type { Runtime } from "../cli/compose.ts";
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
  rt.sessionStartContext.push(...out.additionalContext);
  return out.systemMessages;
}

/**
 * One prompt: MCP prompts (`/mcp__server__prompt`) and `@server:uri` mentions expanded, `/compact [focus]` run as
 * compaction (issue 7), skills and custom commands expanded (issue 14), anything else as a turn of the main
 * conversation. `slash` false: slash commands are off.
 */
export async function promptRun(rt: Runtime, prompt: Prompt, signal: AbortSignal, slash: boolean): Promise<AsyncGenerator<LoopEvent, TurnResult>> {
  const ours = slash && typeof prompt === "string" && !isCompactCommand(prompt) && rt.extensions.parse(prompt) !== null;
  const input = typeof prompt === "string" && !ours && (slash || !prompt.startsWith("/")) ? await rt.mcp.expandInput(prompt, signal) : prompt;
  return slash && typeof input === "string" && isCompactCommand(input)
    ? rt.compactor.manual(rt.convo, input, signal)
    : extendedTurn(rt.extensions, rt.deps, rt.convo, input, signal, rt.main, slash);
}

/** SessionEnd hooks with the reason (contracts §1: clear, logout, prompt_input_exit, other), then async hooks drained. */
export async function endSession(rt: Runtime, reason: "clear" | "logout" | "prompt_input_exit" | "other"): Promise<void> {
  if (rt.hooks.has("SessionEnd")) await rt.hooks.emit("SessionEnd", rt.hookPayload("SessionEnd", { reason }), { matchValue: reason });
  await rt.hooks.drainAsync(5000);
}
