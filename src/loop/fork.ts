import { emptyOutcome, type HookBus } from "../hook/types.ts";
import type { PermissionEvaluator } from "../permission/types.ts";
import type { Transcript } from "../session/transcript.ts";
import type { ToolRegistry } from "../tool/registry.ts";
import type { LoopEvent, TurnResult } from "./events.ts";
import { runTurn, type LoopDeps } from "./run-turn.ts";

export type ForkRun = {
  system: string;
  prompt: string;
  tools: ToolRegistry;
  maxTurns: number;
  model: string;
  permissions: PermissionEvaluator;
  transcript: Transcript;
  signal: AbortSignal;
  /** Hooks that still apply inside the fork (tool events); session events are not re-fired. */
  hooks?: HookBus;
  onEvent?: (ev: LoopEvent) => void;
};

/** Only tool hooks reach a fork: a Stop hook firing inside memory extraction would start another extraction. */
export function toolHooksOnly(bus: HookBus): HookBus {
  const allowed = new Set(["PreToolUse", "PostToolUse", "PostToolUseFailure"]);
  return {
    has: (e) => allowed.has(e) && bus.has(e),
    emit: (e, p, o) => (allowed.has(e) ? bus.emit(e, p, o) : Promise.resolve(emptyOutcome())),
  };
}

/**
 * A forked agent: a fresh conversation on the parent's provider, usage tracker and clock, with its own tool set,
 * permissions and sidechain transcript. Never throws: failures end in the returned TurnResult.
 */
export async function runFork(parent: LoopDeps, run: ForkRun): Promise<{ result: TurnResult; toolUses: Array<{ name: string; input: Record<string, unknown> }> }> {
  const deps: LoopDeps = {
    ...parent,
    tools: run.tools,
    permissions: run.permissions,
    hooks: run.hooks ?? toolHooksOnly(parent.hooks),
    model: () => run.model,
    maxTurns: run.maxTurns,
    system: () => [{ type: "text", text: run.system }],
    transcript: run.transcript,
    // Nobody is asked inside a fork: its policy is fixed when it starts.
    askPermission: undefined,
  };
  const toolUses: Array<{ name: string; input: Record<string, unknown> }> = [];
  const gen = runTurn(deps, { messages: [] }, run.prompt, run.signal);
  for (;;) {
    const step = await gen.next();
    if (step.done) return { result: step.value, toolUses };
    const ev = step.value;
    if (ev.type === "assistant") for (const b of ev.message.content) if (b.type === "tool_use") toolUses.push({ name: b.name, input: b.input });
    run.onEvent?.(ev);
  }
}
