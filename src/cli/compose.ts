import { randomUUID } from "node:crypto";
import { execSync } from "node:child_process";
import { sessionAgentTool } from "../agent/session-tool.ts";
import type { LoadedSettings } from "../config/load.ts";
import { claudeUserDir, yokeDir } from "../config/paths.ts";
import { renderInstructions } from "../context/index.ts";
import { createHookBus, type YokeHookBus } from "../hook/bus.ts";
import { buildPayload } from "../hook/events/index.ts";
import { sessionEnvFiles } from "../hook/session-env.ts";
import type { HookEventName } from "../hook/types.ts";
import type { Conversation, LoopDeps } from "../loop/run-turn.ts";
import { createUsageTracker } from "../loop/usage.ts";
import { createCompactor, type Compactor } from "../loop/compaction.ts";
import { compactInstructionsOf } from "../session/compact-prompt.ts";
import { denyInsteadOfPromptingFrom, type Evaluator } from "../permission/index.ts";
import type { PermissionMode } from "../permission/types.ts";
import type { PromptSection } from "../plugin/host.ts";
import { renderSections } from "../plugin/host.ts";
import type { SessionView } from "../plugin/types.ts";
import { anthropicConfigFromEnv, createAnthropicProvider } from "../provider/anthropic/provider.ts";
import { resolveModel, SMALL_MODEL_ALIAS } from "../provider/models.ts";
import type { Provider } from "../provider/types.ts";
import { createTranscript, type Transcript } from "../session/transcript.ts";
import type { Checkpoints } from "../session/index.ts";
import { killAllBackgroundShells } from "../tool/builtin/shell-tools.ts";
import { createFileState, type FileState } from "../tool/file-state.ts";
import { createToolRegistry, type ToolRegistry } from "../tool/registry.ts";
import type { SessionToolState, SideQuery, Tool } from "../tool/types.ts";
import { applySettingsEnv } from "../trust/env.ts";
import { VERSION } from "../version.ts";
import type { ParsedArgs } from "./args.ts";
import { UsageError } from "./args.ts";
import { createContextWiring, fileArg, type ContextWiring, type LoadedInstruction } from "./context-wiring.ts";
import { wirePlugins, type PluginRuntime } from "./plugin-wiring.ts";
import { buildPermissionEvaluator, loadSettingsFromArgs, modeProblem, resolvePermissionMode } from "./permission-wiring.ts";
import { setupSession, type SessionSetup } from "./session-wiring.ts";
import { createOutbox, type Outbox } from "./outbox.ts";
import { FALLBACK_ERRORS, fallbackModels, hookIfMatcher, parseAgentsFlag, parseBudget, parseMaxTurns, structuredOutput } from "./run-options.ts";

export type Runtime = {
  /** Agent types the Agent tool offers (for system/init). */
  agents: string[];
  cwd: string;
  sessionId: string;
  sessionSource: SessionSetup["source"];
  settings: LoadedSettings;
  env: Record<string, string>;
  model: string;
  permissionMode: PermissionMode;
  tools: ToolRegistry;
  hooks: YokeHookBus;
  permissions: Evaluator;
  transcript: Transcript;
  provider: Provider;
  convo: Conversation;
  session: SessionToolState;
  fileState: FileState;
  context: ContextWiring;
  plugins: PluginRuntime;
  checkpoints: Checkpoints | null;
  /** Auto-compaction (wired as deps.beforeRequest) and `/compact`. */
  compactor: Compactor;
  deps: LoopDeps;
  apiKeySource: string;
  /** Out-of-band events (hook records, plugin notices) for the mode to render. */
  outbox: Outbox;
  hookPayload: (event: HookEventName, fields: Record<string, unknown>) => Record<string, unknown>;
  /** Stops forks and background work, kills background shells, closes files. Never throws. */
  shutdown(): Promise<void>;
};

const flagStr = (a: ParsedArgs, k: string) => (typeof a.flags[k] === "string" ? (a.flags[k] as string) : undefined);
const flagList = (a: ParsedArgs, k: string) => (Array.isArray(a.flags[k]) ? (a.flags[k] as string[]) : []);

export { parsePermissionMode } from "./permission-wiring.ts";

function apiKeyFromHelper(helper: string | undefined, env: Record<string, string>): string | undefined {
  if (!helper) return undefined;
  try {
    return execSync(helper, { env, encoding: "utf8", timeout: 30_000, stdio: ["ignore", "pipe", "pipe"] }).trim() || undefined;
  } catch (err) {
    throw new UsageError(`apiKeyHelper failed (${helper}): ${(err as Error).message.split("\n")[0]}`);
  }
}

export type ComposeOptions = {
  args: ParsedArgs;
  cwd: string;
  /** Built-in tools; the caller decides which families are present. */
  builtinTools: Tool[];
  /** Subcommands that never call the model (context, hooks, permissions) skip the credentials check. */
  requireCredentials?: boolean;
  /** Write failed hooks to stderr as they finish (default true; `yoke hooks run` prints them itself). */
  reportHookErrors?: boolean;
};

/** contracts §1.9 / §4.4: the SDK types hook_response.outcome as success | error | cancelled. */
const sdkOutcome = (o: string): string => (o === "success" || o === "cancelled" ? o : "error");

/** The composition root's work: settings → env → provider, tools, hooks, permissions, plugins, transcript. Throws SettingsError / UsageError. */
export async function compose(o: ComposeOptions): Promise<Runtime> {
  const { args, cwd } = o;
  const bare = !!args.flags.bare;
  const settings = loadSettingsFromArgs(args, cwd);
  const launchEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) launchEnv[k] = v;
  // Settings env never moves the shell, yoke's state or the memory folder, nor decides trust (src/trust/env.ts).
  const { env, refused } = applySettingsEnv(launchEnv, settings.merged.env);
  if (refused.length) process.stderr.write(`yoke: settings env may not set ${refused.join(", ")}; ignored\n`);
  // What Claude Code exports to its tools and hooks (contracts §1.8), so scripts can tell they run under an agent.
  env.CLAUDECODE = "1";
  env.CLAUDE_CODE_ENTRYPOINT = env.CLAUDE_CODE_ENTRYPOINT ?? "sdk-cli";

  // Keys and tokens that pass through a session are written to the transcript as [REDACTED] unless switched off.
  const ss = setupSession(args, cwd, env, { redact: settings.merged.redactTranscripts !== false && env.YOKE_REDACT_TRANSCRIPTS !== "0" });
  const sessionId = ss.sessionId;
  env.CLAUDE_CODE_SESSION_ID = sessionId;

  const model = resolveModel(flagStr(args, "model") ?? env.ANTHROPIC_MODEL ?? ss.restored.model ?? settings.merged.model ?? "default");
  // `--fallback-model a,b` (or settings fallbackModel): taken in order when the current model is overloaded or gone.
  const fallbacks = fallbackModels(flagStr(args, "fallback-model"), settings.merged.fallbackModel, model);
  let currentModel = model;
  const permissionMode = resolvePermissionMode(args, settings, ss.restored.permissionMode);
  const problem = modeProblem(permissionMode, settings, env);
  if (problem) throw new UsageError(problem);

  const session: SessionToolState = { cwd, todos: [], envFiles: [], bag: new Map() };
  let gitBranch: () => string | null = () => null;
  const transcript = createTranscript(ss.store, {
    cwd: () => session.cwd,
    version: VERSION,
    entrypoint: "sdk-cli",
    uuid: randomUUID,
    now: () => new Date(),
    gitBranch: () => gitBranch(),
  });
  transcript.setLastUuid(ss.lastUuid);
  const convo: Conversation = { messages: ss.messages };

  const apiKey = env.ANTHROPIC_API_KEY || apiKeyFromHelper(settings.merged.apiKeyHelper, env);
  const apiKeySource = env.ANTHROPIC_API_KEY ? "ANTHROPIC_API_KEY" : apiKey ? "apiKeyHelper" : "none";
  if (o.requireCredentials !== false && !apiKey && !env.ANTHROPIC_AUTH_TOKEN && !env.ANTHROPIC_BASE_URL)
    throw new UsageError(
      "no credentials: set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN, or apiKeyHelper in settings), or ANTHROPIC_BASE_URL for a gateway or local server that needs no key",
    );
  const provider = createAnthropicProvider(anthropicConfigFromEnv({ ...env, ANTHROPIC_API_KEY: apiKey }, VERSION));
  const usage = createUsageTracker();
  const fileState = createFileState();

  const sideQuery: SideQuery = async ({ system, prompt, maxTokens, signal }) => {
    const small = resolveModel(env.ANTHROPIC_SMALL_FAST_MODEL ?? SMALL_MODEL_ALIAS);
    for await (const ev of provider.stream(
      { model: small, system: [{ type: "text", text: system }], messages: [{ role: "user", content: prompt }], tools: [], maxTokens: maxTokens ?? 1024 },
      signal ?? new AbortController().signal,
    )) {
      if (ev.type === "error") throw new Error(ev.error.message);
      if (ev.type === "done") {
        usage.add(ev.message.model, ev.message.usage, ev.durationMs);
        return ev.message.content.map((b) => (b.type === "text" ? b.text : "")).join("");
      }
    }
    throw new Error("side query ended without an answer");
  };

  const pluginSections: PromptSection[] = [];
  // Instruction files that entered the context since the last InstructionsLoaded firing.
  const loadedInstructions: LoadedInstruction[] = [];
  let ctx: ContextWiring;
  try {
    ctx = createContextWiring({
      cwd,
      resumed: ss.messages.length > 0,
      env,
      settings,
      bare,
      customSystemPrompt: flagStr(args, "system-prompt") ?? fileArg(flagStr(args, "system-prompt-file"), "--system-prompt-file"),
      appendSystemPrompt:
        [flagStr(args, "append-system-prompt"), fileArg(flagStr(args, "append-system-prompt-file"), "--append-system-prompt-file")].filter(Boolean).join("\n\n") ||
        undefined,
      addDirs: flagList(args, "add-dir"),
      pluginSections: () => renderSections(pluginSections),
      sideQuery,
      onLoaded: (files) => void loadedInstructions.push(...files),
    });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  gitBranch = ctx.gitBranch;

  const permissions = buildPermissionEvaluator({
    args,
    cwd,
    settings,
    env,
    mode: permissionMode,
    autoAllowWriteDirs: ctx.memory.enabled && ctx.memory.dir ? [ctx.memory.dir] : [],
    toolInfo: (name) => {
      const t = tools.get(name);
      return t && typeof t.readOnly === "boolean" ? { readOnly: t.readOnly } : undefined;
    },
  });
  for (const w of permissions.warnings) process.stderr.write(`yoke: ${w}\n`);
  const outbox = createOutbox();
  // Subagents: the Agent tool reads the parent's deps at call time (deps is built below).
  const agentTool = sessionAgentTool({
    cwd,
    env,
    sessionId,
    transcriptPath: ss.store.path,
    version: VERSION,
    parent: () => deps,
    mainModel: () => currentModel,
    // Instruction files reach every subagent, Explore and Plan included: users asked for it (user-demand §4).
    promptContext: () => [renderInstructions(ctx.instructions.get().files)].filter(Boolean),
    warn: (m) => process.stderr.write(`yoke: ${m}\n`),
    flagAgents: parseAgentsFlag(flagStr(args, "agents")),
    extra: {
      onEvent: (ev, from) => {
        if (ev.type === "assistant" || ev.type === "user") outbox.push({ type: "subagent", event: ev, ...from });
      },
    },
  });
  let tools = createToolRegistry([...o.builtinTools, agentTool.tool]).filter((t) => !permissions.isToolHidden(t.name));
  const only = flagList(args, "tools");
  if (only.length && !(only.length === 1 && only[0] === "default")) {
    const keep = new Set(only.flatMap((v) => v.split(/[ ,]+/)).filter(Boolean));
    tools = tools.filter((t) => keep.has(t.name));
  }

  // `--json-schema` (contracts §4.4 structured_output): the model answers through a StructuredOutput tool built from the schema.
  const structured = structuredOutput(flagStr(args, "json-schema"), cwd);
  if (structured) tools.register(structured.tool);

  const includeHookEvents = !!args.flags["include-hook-events"];
  const home = yokeDir(env);
  const hooks = createHookBus({
    settings: bare ? { merged: {}, sources: [] } : settings,
    projectDir: cwd,
    cwd: () => session.cwd,
    env,
    sessionId,
    yokeDir: home,
    matchRule: hookIfMatcher(cwd, env),
    onStart: (event, st) => {
      if (includeHookEvents || event === "SessionStart")
        outbox.push({ type: "system", subtype: "hook_started", data: { hook_id: st.id, hook_name: st.hookName, hook_event: event } });
    },
    onRecord: (event, r) => {
      // A hook that crashed, timed out or printed garbage is reported (naming command and settings file) and the run goes on.
      if (r.error && r.outcome !== "cancelled" && o.reportHookErrors !== false) process.stderr.write(`yoke: [${r.hookName}] ${r.error}\n`);
      if (!includeHookEvents && event !== "SessionStart") return;
      outbox.push({
        type: "system",
        subtype: "hook_response",
        data: {
          hook_id: r.id ?? randomUUID(),
          hook_name: r.hookName,
          hook_event: event,
          output: r.stdout + r.stderr,
          stdout: r.stdout,
          stderr: r.stderr,
          exit_code: r.exitCode,
          outcome: sdkOutcome(r.outcome),
        },
      });
    },
  });

  const hookPayload = (event: HookEventName, fields: Record<string, unknown>) =>
    buildPayload(event, { session_id: sessionId, transcript_path: ss.store.path, cwd: session.cwd, permission_mode: permissionMode }, fields);

  const fireInstructionsLoaded = async (signal?: AbortSignal) => {
    const files = loadedInstructions.splice(0);
    if (!hooks.has("InstructionsLoaded")) return;
    for (const f of files) await hooks.emit("InstructionsLoaded", hookPayload("InstructionsLoaded", f), { matchValue: f.load_reason, signal });
  };

  const workingDirectories = permissions.workingDirectories;
  const shutdownCtrl = new AbortController();
  let lastInputTokens = 0;
  let lastResponseTokens = 0;
  let compactor: Compactor | undefined;
  const deps: LoopDeps = {
    provider,
    tools,
    hooks,
    permissions,
    hookPayload,
    clock: () => Date.now(),
    model: () => currentModel,
    fallbackModel: (error) => {
      if (!FALLBACK_ERRORS.has(error.kind)) return undefined;
      const next = fallbacks.shift();
      if (next) currentModel = next;
      return next;
    },
    maxTokens: 32_000,
    maxTurns: parseMaxTurns(flagStr(args, "max-turns")),
    maxBudgetUsd: parseBudget(flagStr(args, "max-budget-usd")),
    beforeEnd: structured?.beforeEnd,
    structuredOutput: structured?.value,
    system: () => ctx.system(currentModel, tools.list().map((t) => t.name)),
    transcript,
    usage: {
      ...usage,
      add(m, u, ms) {
        lastInputTokens = u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens;
        lastResponseTokens = lastInputTokens + u.output_tokens;
        usage.add(m, u, ms);
      },
    },
    promptContext: async (prompt, signal) => {
      const out = await ctx.promptContext(prompt, signal);
      await fireInstructionsLoaded(signal);
      const async = hooks.takeAsyncOutput();
      for (const c of async.additionalContext) out.push(`<system-reminder>\n${c}\n</system-reminder>`);
      const start = session.bag.get("sessionStart.context") as string[] | undefined;
      if (start?.length) {
        session.bag.delete("sessionStart.context");
        for (const c of start) out.push(`<system-reminder>\nSessionStart hook additional context: ${c}\n</system-reminder>`);
      }
      return out;
    },
    afterTools: async (calls) => {
      compactor?.noteToolCalls(calls);
      const out = ctx.afterTools(calls);
      await fireInstructionsLoaded();
      return out;
    },
    beforeRequest: (convo, signal) => compactor?.beforeRequest(convo, signal),
    onPrompt: (uuid) => ss.checkpoints?.beginTurn(uuid),
    beforeToolRun: async (name) => {
      if (name === "Bash" && ss.checkpoints && settings.merged.fileCheckpointingEnabled !== false) await ss.checkpoints.snapshotGit();
      // Files written by SessionStart hooks through CLAUDE_ENV_FILE are sourced before every Bash command.
      if (name === "Bash") session.envFiles = sessionEnvFiles(home, sessionId);
    },
    denyInsteadOfPrompting: denyInsteadOfPromptingFrom(settings),
    context: (toolUseId, signal) => ({
      cwd: session.cwd,
      projectDir: cwd,
      workingDirectories,
      sessionId,
      signal,
      env,
      fileState,
      session,
      sideQuery,
      toolUseId,
      searchExcludes: (dir) => permissions.grepExcludes(dir),
      beforeFileChange: ss.checkpoints && settings.merged.fileCheckpointingEnabled !== false ? (p) => ss.checkpoints!.beforeFileChange(p) : undefined,
    }),
    // ExitPlanMode ends a plan-mode run with the plan as its result; in other modes it is just a tool call.
    takePlan: () => {
      const plan = session.bag.get("plan.exit") as string | undefined;
      session.bag.delete("plan.exit");
      return permissionMode === "plan" ? plan : undefined;
    },
  };

  const view: SessionView = {
    sessionId,
    cwd,
    projectDir: cwd,
    transcriptPath: ss.store.path,
    model,
    permissionMode,
    memoryDir: ctx.memory.enabled ? ctx.memory.dir : null,
    messages: () => convo.messages,
    contextTokens: () => lastInputTokens,
  };
  const plugins = await wirePlugins({
    cwd,
    yokeDir: home,
    claudeDir: claudeUserDir(env),
    pluginDirs: flagList(args, "plugin-dir"),
    settings,
    env,
    bare,
    bus: hooks,
    tools,
    sections: pluginSections,
    session: view,
    deps: () => deps,
    forkUsage: usage,
    sideQuery,
    outbox: (ev) => outbox.push(ev),
    verbose: !!args.flags.verbose,
    debug: !!args.flags.debug,
    shutdown: shutdownCtrl.signal,
    sessionId,
    version: VERSION,
  });

  compactor = createCompactor({
    provider,
    model: () => currentModel,
    tools: () => tools.specs(),
    hooks,
    hookPayload,
    transcript,
    // the summarizing call counts toward cost but must not pass for the conversation's size
    usage,
    env,
    settings: { autoCompactEnabled: settings.merged.autoCompactEnabled, autoCompactWindow: settings.merged.autoCompactWindow },
    summaryProviders: () => plugins.summaryProviders.map((p) => p.fn),
    compactInstructions: () =>
      ctx.instructions
        .get()
        .files.filter((f) => f.status === "included")
        .map((f) => compactInstructionsOf(f.content))
        .filter(Boolean)
        .join("\n\n"),
    startupContext: () => ctx.startupContext(),
    lastResponseTokens: () => lastResponseTokens,
    transcriptPath: ss.store.path,
  });
  // The first transcript line should carry the git branch (contracts §5.2); the first request waits for git anyway.
  await ctx.ready();
  // A resumed session's earlier file reads count as recently touched, for re-reading after compaction.
  for (const m of convo.messages) if (m.role === "assistant") compactor.noteToolCalls(m.content.filter((b) => b.type === "tool_use"));

  return {
    agents: agentTool.agents.map((a) => a.name),
    cwd,
    sessionId,
    sessionSource: ss.source,
    compactor,
    settings,
    env,
    model,
    permissionMode,
    tools,
    hooks,
    permissions,
    transcript,
    provider,
    convo,
    session,
    fileState,
    context: ctx,
    plugins,
    checkpoints: ss.checkpoints,
    deps,
    apiKeySource,
    outbox,
    hookPayload,
    async shutdown() {
      shutdownCtrl.abort();
      await killAllBackgroundShells(session);
      ss.store.close?.();
    },
  };
}
