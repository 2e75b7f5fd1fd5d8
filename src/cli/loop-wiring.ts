import type { BashSandbox } from "../sandbox/runtime.ts";
import type { LoadedSettings } from "../config/load.ts";
import type { YokeHookBus } from "../hook/bus.ts";
import { sessionEnvFiles } from "../hook/session-env.ts";
import { createCompactor, type Compactor } from "../loop/compaction.ts";
import { compactInstructionsOf } from "../session/compact-prompt.ts";
import type { PluginRuntime } from "./plugin-wiring.ts";
import type { LoopDeps, MainConversation } from "../loop/run-turn.ts";
import type { UsageTracker } from "../loop/usage.ts";
import { denyInsteadOfPromptingFrom, type Evaluator } from "../permission/index.ts";
import type { PermissionMode } from "../permission/types.ts";
import type { Provider } from "../provider/types.ts";
import type { Checkpoints } from "../session/index.ts";
import type { Transcript } from "../session/transcript.ts";
import type { FileState } from "../tool/file-state.ts";
import type { ToolRegistry } from "../tool/registry.ts";
import type { SessionToolState, SideQuery } from "../tool/types.ts";
import type { ContextWiring, LoadedInstruction } from "./context-wiring.ts";
import type { HookPayloadBuilder } from "../hook/typed.ts";
import type { ModelSwitch } from "./provider-wiring.ts";
import type { structuredOutput } from "./run-options.ts";
import { modelInfo } from "../provider/models.ts";
import { stopHookBlockCap } from "./model-wiring.ts";
import { runningBackgroundTasks } from "../tool/builtin/background-shells.ts";

/** What the main conversation keeps between turns beside its messages. */
export type MainState = {
  /** SessionStart hooks' additionalContext, put before the next prompt (then emptied). */
  sessionStartContext: string[];
  /** Instruction files that entered the context since the last InstructionsLoaded firing. */
  loadedInstructions: LoadedInstruction[];
  /** The last request's input tokens (cache included): the conversation's size, for plugins. */
  lastInputTokens: number;
  /** The last request's input plus output tokens, for auto-compaction. */
  lastResponseTokens: number;
};

export type LoopWiringOptions = {
  cwd: string;
  env: Record<string, string>;
  sessionId: string;
  yokeDir: string;
  settings: LoadedSettings;
  permissionMode: PermissionMode;
  provider: Provider;
  model: ModelSwitch;
  tools: ToolRegistry;
  hooks: YokeHookBus;
  permissions: Evaluator;
  hookPayload: HookPayloadBuilder;
  transcript: Transcript;
  usage: UsageTracker;
  session: SessionToolState;
  fileState: FileState;
  sideQuery: SideQuery;
  context: ContextWiring;
  checkpoints: Checkpoints | null;
  structured: ReturnType<typeof structuredOutput>;
  maxTurns?: number;
  maxBudgetUsd?: number;
  /** max_tokens, thinking and effort per model (provider/model-params.ts). */
  modelParams: LoopDeps["modelParams"] & {};
  /** Starts each user prompt (a fresh hook prompt_id). */
  beginPrompt?: () => void;
  /** Read at call time: the compactor is built after the plugins, which need the deps. */
  compactor: () => Compactor | undefined;
  /** Read at call time: the sandbox probe finishes after the loop is wired. */
  sandbox?: () => BashSandbox | undefined;
  /** Tool output as it comes (the terminal's live Bash tail), by tool_use id. */
  progress?: (toolUseId: string, chunk: Uint8Array) => void;
  /** Reminders about MCP servers still connecting or just connected, for the request being built (mcp/connect-notes.ts). */
  mcpNotes?: () => string[];
};

/**
 * The loop's deps (what every conversation shares with forks and subagents) and the main conversation's
 * own effects, kept apart so nothing main-only can reach a conversation run beside it. Never throws.
 */
export function wireLoop(o: LoopWiringOptions): { deps: LoopDeps; main: MainConversation; state: MainState } {
  const { session, hooks, context: ctx, settings } = o;
  const state: MainState = { sessionStartContext: [], loadedInstructions: [], lastInputTokens: 0, lastResponseTokens: 0 };
  const checkpointing = !!o.checkpoints && settings.merged.fileCheckpointingEnabled !== false;
  const workingDirectories = o.permissions.workingDirectories;

  const fireInstructionsLoaded = async (signal?: AbortSignal) => {
    const files = state.loadedInstructions.splice(0);
    if (!hooks.has("InstructionsLoaded")) return;
    for (const f of files) await hooks.emit("InstructionsLoaded", o.hookPayload("InstructionsLoaded", f), { matchValue: f.load_reason, signal });
  };

  const deps: LoopDeps = {
    provider: o.provider,
    tools: o.tools,
    hooks,
    permissions: o.permissions,
    hookPayload: o.hookPayload,
    clock: () => Date.now(),
    model: () => o.model.current(),
    maxTokens: modelInfo(o.model.current()).maxOutputTokens,
    modelParams: o.modelParams,
    maxStopBlocks: stopHookBlockCap(o.env),
    backgroundTasks: () => runningBackgroundTasks(session),
    maxTurns: o.maxTurns,
    maxBudgetUsd: o.maxBudgetUsd,
    system: () => ctx.system(o.model.current(), o.tools.list().map((t) => t.name)),
    transcript: o.transcript,
    usage: {
      ...o.usage,
      add(m, u, ms) {
        state.lastInputTokens = u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens;
        state.lastResponseTokens = state.lastInputTokens + u.output_tokens;
        o.usage.add(m, u, ms);
      },
    },
    // The checkpoint's read of the working tree overlaps the Bash call's permission check; kept only if allowed at once.
    beforePermission: (name) => (name === "Bash" && checkpointing ? o.checkpoints!.prestageGit() : undefined),
    beforeToolRun: async (name) => {
      if (name === "Bash" && checkpointing) await o.checkpoints!.snapshotGit();
      // Files written by SessionStart hooks through CLAUDE_ENV_FILE are sourced before every Bash command.
      if (name === "Bash") session.envFiles = sessionEnvFiles(o.yokeDir, o.sessionId);
    },
    denyInsteadOfPrompting: denyInsteadOfPromptingFrom(settings),
    context: (toolUseId, signal) => {
      // A tool call starts: the checkpoints find their repository (once a session) beside its PreToolUse hooks,
      // not after them in a Bash call's path (issue 21). A microtask later: the hooks' processes are spawned in this
      // tick, and a spawn holds yoke until its child runs, so git's start no longer delays the first hook's.
      if (checkpointing) queueMicrotask(() => o.checkpoints!.prepare());
      return {
        cwd: session.cwd,
        projectDir: o.cwd,
        workingDirectories,
        sessionId: o.sessionId,
        signal,
        env: o.env,
        fileState: o.fileState,
        session,
        sideQuery: o.sideQuery,
        toolUseId,
        searchExcludes: (dir) => o.permissions.grepExcludes(dir),
        searchHides: (p) => o.permissions.searchHides(p),
        sandbox: o.sandbox?.(),
        beforeFileChange: checkpointing ? (p) => o.checkpoints!.beforeFileChange(p) : undefined,
        progress: o.progress ? (c) => o.progress!(toolUseId, c) : undefined,
      };
    },
  };

  const main: MainConversation = {
    fallbackModel: (error) => o.model.fallback(error),
    beginPrompt: o.beginPrompt,
    beforeEnd: o.structured?.beforeEnd,
    structuredOutput: o.structured?.value,
    // contracts §1.9: InstructionsLoaded precedes UserPromptSubmit; the files are rendered into the prompt after it.
    beforeSubmit: async (signal) => {
      ctx.announceStartup();
      await fireInstructionsLoaded(signal);
    },
    promptContext: async (prompt, signal) => {
      const out = await ctx.promptContext(prompt, signal);
      await fireInstructionsLoaded(signal);
      out.push(...asyncHookContext(hooks), ...(o.mcpNotes?.() ?? []));
      return out;
    },
    // SessionStart's texts, already worded (hook-feedback.ts): the system turn after the next prompt (observed in 2.1.332).
    promptSystem: () => state.sessionStartContext.splice(0),
    afterTools: async (calls) => {
      o.compactor()?.noteToolCalls(calls);
      const out = ctx.afterTools(calls);
      await fireInstructionsLoaded();
      // Async hooks that finished meanwhile reach the model with the next request, as in Claude Code 2.1.332.
      return [...out, ...asyncHookContext(hooks), ...(o.mcpNotes?.() ?? [])];
    },
    beforeRequest: (convo, signal) => o.compactor()?.beforeRequest(convo, signal),
    onPrompt: (uuid) => o.checkpoints?.beginTurn(uuid),
    // ExitPlanMode ends a plan-mode run with the plan as its result; in other modes it is just a tool call.
    takePlan: () => {
      const plan = session.presentedPlan;
      session.presentedPlan = undefined;
      return o.permissionMode === "plan" ? plan : undefined;
    },
  };
  return { deps, main, state };
}

/**
 * What finished async hooks said, for the model (observed in 2.1.332): each hook's systemMessage and
 * additionalContext in one reminder, delivered with the first request after the hook finished.
 */
function asyncHookContext(hooks: YokeHookBus): string[] {
  const a = hooks.takeAsyncOutput();
  return a.items.map((texts) => `<system-reminder>\n${texts.join("\n")}\n</system-reminder>`);
}

/** Auto-compaction and `/compact` for the main conversation, with plugins' summary providers. Never throws. */
export function wireCompaction(o: {
  provider: Provider;
  model: ModelSwitch;
  tools: ToolRegistry;
  hooks: YokeHookBus;
  hookPayload: HookPayloadBuilder;
  transcript: Transcript;
  usage: UsageTracker;
  env: Record<string, string>;
  settings: LoadedSettings;
  plugins: PluginRuntime;
  context: ContextWiring;
  /** More context to restore after compaction (invoked skills). */
  extraContext?: () => string[];
  lastResponseTokens: () => number;
  transcriptPath: string;
}): Compactor {
  const { settings, context: ctx } = o;
  return createCompactor({
    provider: o.provider,
    model: () => o.model.current(),
    tools: () => o.tools.specs(),
    hooks: o.hooks,
    hookPayload: o.hookPayload,
    transcript: o.transcript,
    // the summarizing call counts toward cost but must not pass for the conversation's size
    usage: o.usage,
    env: o.env,
    settings: { autoCompactEnabled: settings.merged.autoCompactEnabled, autoCompactWindow: settings.merged.autoCompactWindow },
    summaryProviders: () => o.plugins.summaryProviders.map((p) => p.fn),
    compactInstructions: () =>
      ctx.instructions
        .get()
        .files.filter((f) => f.status === "included")
        .map((f) => compactInstructionsOf(f.content))
        .filter(Boolean)
        .join("\n\n"),
    startupContext: () => [...ctx.startupContext(), ...(o.extraContext?.() ?? [])],
    lastResponseTokens: o.lastResponseTokens,
    transcriptPath: o.transcriptPath,
  });
}
