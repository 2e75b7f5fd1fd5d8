import type { HookOutcome } from "../hook/types.ts";
import type { LoopEvent, TurnResult } from "../loop/events.ts";
import { reminder, runTurn, type Conversation, type LoopDeps, type MainConversation } from "../loop/run-turn.ts";
import { resolveModel } from "../provider/models.ts";
import { emptyUsage, type ContentBlock, type UserMessage } from "../provider/types.ts";
import { commandMarker, ExpansionError } from "./invoke.ts";
import type { Extensions } from "./runtime.ts";
import type { SlashCommand } from "./types.ts";

/** `command_source` as Claude Code names a command's level (observed in 2.1.332). */
const SOURCE_NAMES: Record<SlashCommand["source"], string> = {
  managed: "policySettings",
  user: "userSettings",
  project: "projectSettings",
  plugin: "plugin",
};

/** A turn that ended before the model was asked; the result says why. */
function localResult(deps: LoopDeps, over: Partial<TurnResult>): TurnResult {
  return {
    subtype: "success",
    isError: false,
    result: "",
    errors: [],
    numTurns: 0,
    durationMs: 0,
    durationApiMs: 0,
    stopReason: null,
    terminalReason: "completed",
    usage: emptyUsage(),
    modelUsage: deps.usage.modelUsage(),
    totalCostUsd: deps.usage.totalCost(),
    permissionDenials: [],
    ...over,
  };
}

/**
 * What a UserPromptExpansion answer does to the turn (contracts §1.6; wording observed in 2.1.332): `continue:false`
 * or a block ends it before the model is asked, with the reason as the result (and the typed prompt, unless
 * `suppressOriginalPrompt`). Null: the expansion goes on.
 */
function expansionStop(out: HookOutcome | null, typed: string): Partial<TurnResult> | null {
  if (!out) return null;
  if (out.stop) return { result: `Operation stopped by hook: ${out.stopReason ?? ""}`.trimEnd(), terminalReason: "hook_stopped", localCommand: "custom" };
  if (!out.blocked) return null;
  const original = out.suppressOriginalPrompt ? "" : `\n\nOriginal prompt: ${typed}`;
  return { result: `UserPromptExpansion operation blocked by hook:\n${out.blockReason ?? "Blocked by hook"}${original}`, terminalReason: "hook_stopped", localCommand: "custom" };
}

/** The hook's context for the model, worded as Claude Code words it (observed in 2.1.332). */
const expansionContext = (out: HookOutcome | null) => [
  ...(out?.successOutput ?? []).map((c) => reminder(`UserPromptExpansion hook success: ${c}`)),
  ...(out?.additionalContext ?? []).map((c) => reminder(`UserPromptExpansion hook additional context: ${c}`)),
];

const expansionFailed = (message: string): Partial<TurnResult> & { terminalReason: "completed" } => ({
  subtype: "error_during_execution",
  isError: true,
  result: message,
  errors: [message],
  terminalReason: "completed",
});

/**
 * One user prompt through the extensions: `/name args` for a known skill or command is expanded (its
 * `allowed-tools` granted and its `model` used for this turn), anything else runs as it is. The previous
 * prompt's grant ends first. UserPromptSubmit sees the prompt as typed; UserPromptExpansion fires before the
 * expansion, and its block, `continue:false` and context apply (contracts §1.1, §1.4). A `context: fork` skill runs
 * in a subagent and its answer is the turn's result (runForked). An expansion that fails ends the turn with an
 * error result naming the file. Never throws for a hook's or a file's sake.
 */
export async function* extendedTurn(
  ext: Extensions,
  deps: LoopDeps,
  convo: Conversation,
  prompt: string | ContentBlock[],
  signal: AbortSignal,
  main: MainConversation,
  slashCommands = true,
): AsyncGenerator<LoopEvent, TurnResult> {
  ext.beginPrompt();
  // A skill the model loads through Skill with a `model:` switches the rest of the turn to it.
  const withSkillModel = (base: () => string) => () => ext.turnModel() ?? base();
  const hit = slashCommands && typeof prompt === "string" ? ext.parse(prompt) : null;
  if (!hit || typeof prompt !== "string") return yield* runTurn(ext.tool ? { ...deps, model: withSkillModel(deps.model) } : deps, convo, prompt, signal, main);
  const { cmd, args } = hit;
  const fire = () =>
    deps.hooks.has("UserPromptExpansion")
      ? deps.hooks.emit(
          "UserPromptExpansion",
          deps.hookPayload("UserPromptExpansion", { expansion_type: "slash_command", command_name: cmd.name, command_args: args, command_source: SOURCE_NAMES[cmd.source], prompt }),
          { signal, matchValue: cmd.name },
        )
      : Promise.resolve(null);
  if (cmd.fork) return yield* forkTurn(ext, deps, convo, cmd, args, prompt, fire, signal, main);
  const turnDeps = { ...deps, model: withSkillModel(cmd.model ? () => resolveModel(cmd.model!) : deps.model) };
  return yield* runTurn(turnDeps, convo, prompt, signal, {
    ...main,
    expand: async (sig) => {
      const out = await fire();
      const stop = expansionStop(out, prompt);
      if (stop) return { end: { ...stop, terminalReason: "hook_stopped" } };
      try {
        const expanded = await ext.expandPrompt(cmd, args, sig);
        return { prompt: expanded.prompt, context: expansionContext(out) };
      } catch (e) {
        if (e instanceof ExpansionError) return { end: expansionFailed(e.message) };
        throw e;
      }
    },
  });
}

/**
 * A user's `/skill args` for a `context: fork` skill, as Claude Code 2.1.332 runs it from `-p`: UserPromptExpansion
 * then UserPromptSubmit fire, the expanded body runs in a subagent (no model request in the main conversation),
 * and the subagent's answer is the result (`local_command: "custom"`). The conversation keeps the command and its
 * output, as Claude Code keeps a local command's stdout, so a later prompt can refer to it.
 */
async function* forkTurn(
  ext: Extensions,
  deps: LoopDeps,
  convo: Conversation,
  cmd: SlashCommand,
  args: string,
  typed: string,
  fire: () => Promise<HookOutcome | null>,
  signal: AbortSignal,
  main: MainConversation,
): AsyncGenerator<LoopEvent, TurnResult> {
  const started = deps.clock();
  await main.beforeSubmit?.(signal);
  main.beginPrompt?.();
  const out = await fire();
  const stop = expansionStop(out, typed);
  if (stop) return localResult(deps, stop);
  if (deps.hooks.has("UserPromptSubmit")) {
    const submit = await deps.hooks.emit("UserPromptSubmit", deps.hookPayload("UserPromptSubmit", { prompt: typed }), { signal });
    if (submit.blocked || submit.stop)
      return localResult(deps, { isError: true, result: `Prompt blocked by a UserPromptSubmit hook: ${submit.blockReason ?? submit.stopReason ?? "blocked"}`, terminalReason: "hook_stopped" });
  }
  let r: { text: string; isError: boolean };
  try {
    r = await ext.runForked(cmd, args, signal);
  } catch (e) {
    if (e instanceof ExpansionError) return localResult(deps, expansionFailed(e.message));
    throw e;
  }
  const message: UserMessage = {
    role: "user",
    content: [commandMarker(cmd.name, args), { type: "text", text: `<local-command-stdout>${r.text}</local-command-stdout>` }],
  };
  convo.messages.push(message);
  const uuid = deps.transcript.user(message);
  main.onPrompt?.(uuid);
  yield { type: "user", message, uuid, prompt: typed };
  return localResult(deps, {
    ...(r.isError ? { subtype: "error_during_execution" as const, isError: true, errors: [`${cmd.file}: /${cmd.name} (context: fork): ${r.text}`] } : {}),
    result: r.text,
    durationMs: deps.clock() - started,
    localCommand: "custom",
  });
}

/**
 * A user's `/mcp__server__prompt args` (an MCP server's prompt, contracts §6.6): UserPromptSubmit sees it as typed,
 * then UserPromptExpansion fires with `expansion_type: "mcp_prompt"` and `command_source: "mcp"` (observed in
 * 2.1.332), and only then is the prompt fetched from the server. A block or `continue:false` ends the turn before
 * the server is asked.
 */
export async function* mcpPromptTurn(
  ext: Extensions,
  deps: LoopDeps,
  convo: Conversation,
  typed: string,
  signal: AbortSignal,
  main: MainConversation,
  expandInput: (text: string, signal: AbortSignal) => Promise<string>,
): AsyncGenerator<LoopEvent, TurnResult> {
  ext.beginPrompt();
  const m = /^\/(\S+)(?:\s+([\s\S]*))?$/.exec(typed.trim());
  const name = m?.[1] ?? "";
  const args = (m?.[2] ?? "").trim();
  return yield* runTurn(deps, convo, typed, signal, {
    ...main,
    expand: async (sig) => {
      const out = deps.hooks.has("UserPromptExpansion")
        ? await deps.hooks.emit(
            "UserPromptExpansion",
            deps.hookPayload("UserPromptExpansion", { expansion_type: "mcp_prompt", command_name: name, command_args: args, command_source: "mcp", prompt: typed }),
            { signal: sig, matchValue: name },
          )
        : null;
      const stop = expansionStop(out, typed);
      if (stop) return { end: { ...stop, terminalReason: "hook_stopped" } };
      return { prompt: [{ type: "text", text: await expandInput(typed, sig) }], context: expansionContext(out) };
    },
  });
}
