import type { LoopEvent, TurnResult } from "../loop/events.ts";
import { extendedTurn } from "../extension/runtime.ts";
import { mcpPromptTurn } from "../extension/slash-turn.ts";
import { isCompactCommand } from "../loop/compaction.ts";
import { effortTurn, isEffortCommand } from "./effort-command.ts";
import type { Runtime } from "./compose.ts";
import type { Prompt } from "./stdin.ts";

/**
 * What one user prompt runs, the same in every mode (`-p`, stream-json input, the terminal session), so a line
 * typed at the terminal does exactly what it does in `-p`:
 * - `/compact [focus]` runs compaction (issue 7), `/effort LEVEL` sets the effort (contracts, observed in 2.1.332);
 * - a skill or custom command (`/review src/app.ts`, `/plugin:cmd`, issue 14) expands in extendedTurn: `$ARGUMENTS`,
 *   `!` lines through the permission engine, `@file` mentions, its `allowed-tools` granted for the turn;
 * - MCP prompts (`/mcp__server__prompt args`) and `@server:uri` resource mentions expand first (issue 13 point 5);
 * - anything else is a turn of the main conversation.
 * `slash` false (`--disable-slash-commands`): no `/` line is a command, and a `/…` line reaches the model as typed.
 */
export async function promptTurn(rt: Runtime, prompt: Prompt, signal: AbortSignal, slash: boolean): Promise<AsyncGenerator<LoopEvent, TurnResult>> {
  // An MCP server's prompt expands inside the turn, after UserPromptSubmit and UserPromptExpansion (issue 14).
  const mcpPrompt = slash && typeof prompt === "string" ? /^\/(mcp__\S+)/.exec(prompt)?.[1] : undefined;
  if (typeof prompt === "string" && mcpPrompt && rt.mcp.promptCommands().includes(mcpPrompt))
    return mcpPromptTurn(rt.extensions, rt.deps, rt.convo, prompt, signal, rt.main, (t, s) => rt.mcp.expandInput(t, s));
  // Skills and custom commands are not MCP input.
  const ours = slash && typeof prompt === "string" && !isCompactCommand(prompt) && !isEffortCommand(prompt) && rt.extensions.parse(prompt) !== null;
  const input = typeof prompt === "string" && !ours && (slash || !prompt.startsWith("/")) ? await rt.mcp.expandInput(prompt, signal) : prompt;
  const local = slash && typeof input === "string";
  if (local && isCompactCommand(input)) return rt.compactor.manual(rt.convo, input, signal);
  if (local && isEffortCommand(input)) return effortTurn(input, { env: rt.env, setEffort: (level) => void (rt.session.effort = level) });
  return extendedTurn(rt.extensions, rt.deps, rt.convo, input, signal, rt.main, slash);
}
