import { randomUUID } from "../util/random.ts";
import { tmpdir } from "node:os";
import { startTempSweep, tempSweepSettled } from "../session/temp-sweep.ts";
import { afterFirstRequest } from "./after-first-request.ts";
import { warmShellParserWhileStreaming } from "./shell-warm.ts";
import { warmShellParser } from "../permission/bash-parse.ts";
import { warmBashChecker } from "../permission/evaluator.ts";
import { join } from "node:path";
import type { LoadedSettings } from "../config/load.ts";
import { claudeUserDir, projectStateDir, yokeDir } from "../config/paths.ts";
import type { YokeHookBus } from "../hook/bus.ts";
import type { Conversation, LoopDeps, MainConversation } from "../loop/run-turn.ts";
import type { Compactor } from "../loop/compaction.ts";
import type { Evaluator } from "../permission/index.ts";
import type { PermissionMode } from "../permission/types.ts";
import type { PromptSection } from "../plugin/host.ts";
import { renderSections } from "../plugin/host.ts";
import type { SessionView } from "../plugin/types.ts";
import { modelInfo, resolveModel } from "../provider/models.ts";
import type { Provider } from "../provider/types.ts";
import { createTranscript, type Transcript } from "../session/transcript.ts";
import type { Checkpoints } from "../session/index.ts";
import { killAllBackgroundShells, removeSessionTempDir } from "../tool/builtin/shell-tools.ts";
import { createFileState, type FileState } from "../tool/file-state.ts";
import { declarationOf } from "../tool/declarations.ts";
import type { ToolRegistry } from "../tool/registry.ts";
import { newSessionState, type SessionToolState, type Tool } from "../tool/types.ts";
import type { Diagnostics } from "../util/diagnostics.ts";
import { runDiagnostics } from "./run-diagnostics.ts";
import { VERSION } from "../version.ts";
import type { ParsedArgs } from "./args.ts";
import { UsageError } from "./args.ts";
import { createContextWiring, fileArg, type ContextWiring, type LoadedInstruction } from "./context-wiring.ts";
import type { HookPayloadBuilder } from "../hook/typed.ts";
import { wireHooks } from "./hook-wiring.ts";
import { createHookContext } from "./hook-context.ts";
import { modelWiring } from "./model-wiring.ts";
import { wireCompaction, wireLoop } from "./loop-wiring.ts";
import { wirePlugins, type PluginRuntime } from "./plugin-wiring.ts";
import { forkSkill, pluginAgentFolders, startExtensionDiscovery, wireExtensions, wireOutputStyle } from "./extension-wiring.ts";
import { pluginOnlySurfaces } from "../config/plugin-only.ts";
import type { OutputStyle } from "../extension/output-styles.ts";
import { agentHooks, agentMcpServers, agentPermissions, agentDrops, agentSkillContext, cutToolsForAgent, mainAgent } from "./main-agent.ts";
import type { Extensions } from "../extension/runtime.ts";
import { wireMcp, type McpWiring } from "./mcp-wiring.ts";
import type { SandboxSetup } from "../sandbox/index.ts";
import { sandboxAutoAllow, sandboxEscape, sandboxMayRefuse, wireSandbox } from "./sandbox-wiring.ts";
import type { LoadedPlugin } from "../plugin/loader.ts";
import { buildPermissionEvaluator, settingSourcesOf } from "./permission-wiring.ts";
import { modelSwitch, wireProvider, type ModelSwitch } from "./provider-wiring.ts";
import type { AgentDefinition } from "../agent/types.ts";
import type { SessionSetup } from "./session-wiring.ts";
import { createOutbox, type Outbox } from "./outbox.ts";
import { wireAutoMode } from "./auto-mode-wiring.ts";
import { parseAgentsFlag, parseBudget, parseMaxTurns } from "./run-options.ts";
import { wireAgentTool, wireTools } from "./tool-wiring.ts";
import { startSessionStart, type SessionStartRun } from "./session-start.ts";
import { runPrelude, type RunPrelude } from "./run-prelude.ts";
import { earlySubmitApplies, startEarlySubmit, type EarlySubmit } from "./early-submit.ts";

/** Everything a mode needs, typed; built by compose() from the small wiring functions beside it. */
export type Runtime = {
  /** Agent types the Agent tool offers (for system/init). */
  agents: string[];
  /** Their definitions (the SDK's supportedAgents()). */
  agentDefs: AgentDefinition[];
  /** The main conversation's model now (the Agent SDK's set_model changes it). */
  models: ModelSwitch;
  /** The Agent SDK's set_max_thinking_tokens. */
  setMaxThinkingTokens(n: number | null): void;
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
  /** The kernel sandbox around Bash; inactive (with the reason) where it is off or cannot start. */
  sandbox: SandboxSetup;
  plugins: PluginRuntime;
  /** Skills and custom slash commands (src/extension): the `/` prompt, the Skill tool, listSlashCommands. */
  extensions: Extensions;
  /** The output style in force (null: default) and every style known (system/init, the SDK's initialize). */
  outputStyle: OutputStyle | null;
  outputStyles: OutputStyle[];
  /** MCP servers: statuses for system/init, and addServer for the host's own transports. */
  mcp: McpWiring;
  checkpoints: Checkpoints | null;
  /** Auto-compaction (wired as main.beforeRequest) and `/compact`. */
  compactor: Compactor;
  /** What every conversation shares: forks and subagents build theirs from these. */
  deps: LoopDeps;
  /** The main conversation's own effects: passed to runTurn by the main run only. */
  main: MainConversation;
  /** SessionStart hooks' additionalContext, put before the next prompt. */
  sessionStartContext: string[];
  /** SessionStart hooks started while composing (ComposeOptions.startSessionStart); undefined: not started. */
  sessionStart?: SessionStartRun | null;
  /** The first prompt's UserPromptSubmit hooks, started while composing (ComposeOptions.earlyPrompt); it then owns SessionStart's outcome. */
  earlySubmit?: EarlySubmit;
  apiKeySource: string;
  /** Diagnostics on stderr at the level --verbose / --debug ask for. */
  log: Diagnostics;
  /** Out-of-band events (hook records, plugin notices) for the mode to render. */
  outbox: Outbox;
  /** Where tool output goes as it is produced (the terminal's live Bash tail); null: nowhere. */
  setToolProgress(sink: ((toolUseId: string, chunk: Uint8Array) => void) | null): void;
  hookPayload: HookPayloadBuilder;
  /** Stops forks and background work, kills background shells, closes files. Never throws. */
  shutdown(): Promise<void>;
};

const flagStr = (a: ParsedArgs, k: string) => (typeof a.flags[k] === "string" ? (a.flags[k] as string) : undefined);
const flagList = (a: ParsedArgs, k: string) => (Array.isArray(a.flags[k]) ? (a.flags[k] as string[]) : []);

export { parsePermissionMode } from "./permission-wiring.ts";

export type ComposeOptions = {
  args: ParsedArgs;
  cwd: string;
  /** Built-in tools; the caller decides which families are present. */
  builtinTools: Tool[];
  /** The run's diagnostics when the caller made them first (headless: before stdin is read); else compose makes them. */
  log?: Diagnostics;
  /** Subcommands that never call the model (context, hooks, permissions) skip the credentials check. */
  requireCredentials?: boolean;
  /** Write MCP server failures to stderr (default true; `yoke mcp list` shows them in its table). */
  reportMcpErrors?: boolean;
  /** Write failed hooks to stderr as they finish (default true; `yoke hooks run` prints them itself). */
  reportHookErrors?: boolean;
  /** The interactive terminal session (src/tui); plugins see it as `session.interactive`. */
  interactive?: boolean;
  /** A prompt will run and no host adds hooks: SessionStart hooks start while the MCP servers connect (issue 21). */
  startSessionStart?: boolean;
  /**
   * The run's one prompt, known before composing (`yoke -p PROMPT`, with startSessionStart): its UserPromptSubmit
   * hooks may start while the MCP servers connect (early-submit.ts says when).
   */
  earlyPrompt?: string;
  /** The run's first part, done already by the caller for these args and cwd (headless: before loading the rest). */
  prelude?: RunPrelude;
};

export { runEnv } from "./run-env.ts";
export { runDiagnostics } from "./run-diagnostics.ts";

/**
 * The composition root's work, wiring only: settings → env → session → provider, context, permissions,
 * tools, hooks → loop deps → plugins → compaction. Throws SettingsError / UsageError.
 */
export async function compose(o: ComposeOptions): Promise<Runtime> {
  const { args, cwd } = o;
  const bare = !!args.flags.bare;
  const log = o.log ?? runDiagnostics(args);
  // Settings, env, session, model, mode and every check of the run's inputs that can refuse it, then the spawn of its
  // stdio MCP servers, whose own start overlaps the rest of startup (run-prelude.ts; `yoke -p` ran it already).
  const pre = o.prelude ?? runPrelude({ args, cwd, log, interactive: o.interactive === true, requireCredentials: o.requireCredentials !== false });
  const { settings, env, model, permissionMode, mcpEarly, session: ss } = pre;
  const sessionId = ss.sessionId;
  const models = modelSwitch(model, pre.fallbacks);
  // Skills and commands are read while the rest starts (issue 14 point 7: discovery must not delay the first request).
  const localExtensions = startExtensionDiscovery({ cwd, env, bare, settingSources: settingSourcesOf(args), settings, warn: (m) => log.warn(m) });

  const session = newSessionState(cwd);
  let gitBranch: () => string | null = () => null;
  const transcript = createTranscript(ss.store, {
    cwd: () => session.cwd,
    version: VERSION,
    entrypoint: env.CLAUDE_CODE_ENTRYPOINT ?? "sdk-cli",
    uuid: randomUUID,
    now: () => new Date(),
    gitBranch: () => gitBranch(),
    // Bound below, once the hook context and the model settings exist.
    promptId: () => promptIdNow(),
    permissionMode: () => permissionMode,
    effort: () => effortNow(),
  });
  let promptIdNow: () => string | undefined = () => undefined;
  let effortNow: () => string | undefined = () => undefined;
  transcript.setLastUuid(ss.lastUuid);
  const convo: Conversation = { messages: ss.messages };

  const wired = wireProvider({ env, settings, requireCredentials: o.requireCredentials !== false, credentials: pre.credentials });
  const { apiKeySource, usage, sideQuery } = wired;
  // Scratch folders of runs that were SIGKILLed (issue 20.4); never a live run's. Once the first request has left:
  // a shared temp folder may hold 100,000 entries (~100 ms of CPU to list), which the first request does not need.
  const sweepRoot = env.TMPDIR || tmpdir();
  const afterFirst = afterFirstRequest(wired.provider, () => startTempSweep(sweepRoot));
  // The shell parser loads while a Bash command that needs it is still streaming, not in the tool's path (shell-warm.ts).
  // And the Bash checker as soon as a Bash call starts streaming, beside the answer's rest and its PreToolUse hooks.
  const provider = warmShellParserWhileStreaming(afterFirst, warmShellParser, warmBashChecker);
  // A run that will ask the model: the SDK loads and the connection opens while the rest composes (issue 21).
  if (o.requireCredentials !== false) provider.warm?.();
  const fileState = createFileState();
  const pluginSections: PromptSection[] = [];
  // Known once plugins have loaded (a plugin may bring or force one).
  let styles: { style: OutputStyle | null; styles: OutputStyle[] } = { style: null, styles: [] };
  let mainAgentPrompt: string | undefined;
  // Bound once the hook bus exists (agents are wired before it).
  let agentHookScope: ((agent: AgentDefinition) => (() => void) | undefined) | undefined;
  const agentServers = agentMcpServers({
    cwd,
    env,
    settings,
    bare,
    strict: !!args.flags["strict-mcp-config"],
    version: VERSION,
    logDir: join(projectStateDir(cwd, env), "mcp-logs"),
    sessionTools: () => tools!,
    hidden: (n) => permissions.isToolHidden(n),
    warn: (m) => log.warn(m),
  });
  // Filled by wireLoop below; the context wiring reports instruction files into it as they load.
  let onLoaded: (files: LoadedInstruction[]) => void = () => {};
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
      settingSources: settingSourcesOf(args),
      pluginSections: () => renderSections(pluginSections, log),
      outputStyle: () => styles.style,
      agentPrompt: () => mainAgentPrompt,
      sideQuery,
      onLoaded: (files) => onLoaded(files),
    });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  gitBranch = ctx.gitBranch;

  let tools: ToolRegistry | undefined;
  let sandbox: SandboxSetup | undefined;
  const permOptions: Parameters<typeof buildPermissionEvaluator>[0] = {
    args,
    cwd,
    settings,
    env,
    mode: permissionMode,
    autoAllowWriteDirs: ctx.memory.enabled && ctx.memory.dir ? [ctx.memory.dir] : [],
    declarations: (name: string) => {
      const t = tools?.get(name);
      return t ? declarationOf(t) : undefined;
    },
    sandboxAutoAllow: sandboxAutoAllow(() => sandbox),
    sandboxEscape: sandboxEscape(() => sandbox),
  };
  const permissions = buildPermissionEvaluator(permOptions);
  for (const w of permissions.warnings) log.warn(w);
  const outbox = createOutbox();
  // Subagents: the Agent tool reads the parent's deps at call time (deps is built below).
  let deps: LoopDeps | undefined;
  const agentWiring = {
    cwd,
    env,
    sessionId,
    transcriptPath: ss.store.path,
    parent: () => deps!,
    mainModel: () => models.current(),
    context: ctx,
    flagAgents: parseAgentsFlag(flagStr(args, "agents")),
    // Managed strictPluginOnlyCustomization (its bad values are said once, by the skills' wiring).
    pluginOnly: pluginOnlySurfaces(settings, () => {}).has("agents"),
    outbox,
    log,
    // Agent frontmatter (issue 14 point 4): permissionMode for its runs, skills loaded before its prompt.
    permissionsFor: agentPermissions({ settings, env, parent: () => permissions, make: (mode) => buildPermissionEvaluator({ ...permOptions, mode }), warn: (m) => log.warn(m) }),
    agentContext: agentSkillContext(() => extensions, (m) => log.warn(m)),
    scopedHooks: (agent: AgentDefinition) => agentHookScope?.(agent),
    // An agent's own MCP servers (frontmatter mcpServers) for the length of its run.
    agentTools: (agent: AgentDefinition) => agentServers(agent),
  };
  let agents = wireAgentTool(agentWiring);
  // `--json-schema` (contracts §4.4 structured_output): the model answers through a StructuredOutput tool built from the schema.
  const structured = pre.structured;
  tools = wireTools({ builtin: o.builtinTools, agent: agents.tool, permissions, only: flagList(args, "tools"), structured: structured?.tool });
  // MCP servers start now, alongside the rest of startup (each bounded by MCP_TIMEOUT); plugin servers once plugins load.
  // `--agent`'s tool cut also keeps out the tools of a server that connects after the first request.
  let agentCut: ((t: { name: string }) => boolean) | undefined;
  let mcpNow: McpWiring | undefined;
  let pluginsLoaded: (p: LoadedPlugin[]) => void = () => {};
  const mcpReady = wireMcp({
    early: mcpEarly,
    args,
    cwd,
    env,
    settings,
    yokeDir: yokeDir(env),
    plugins: new Promise((r) => (pluginsLoaded = r)),
    tools: () => tools!,
    hidden: (n) => permissions.isToolHidden(n) || agentCut?.({ name: n }) === true,
    sections: pluginSections,
    version: VERSION,
    contextWindow: modelInfo(model).contextWindow,
    warn: o.reportMcpErrors === false ? () => {} : (m) => log.warn(m),
    bare,
  });

  const home = yokeDir(env);
  // The sandbox probe (one empty bubblewrap start) runs while plugins, MCP and git get ready.
  const sandboxReady = wireSandbox({ settings, env, permissions, sessionId, yokeDir: home, warn: (m) => log.warn(m) });
  const hooks = wireHooks({
    settings,
    bare,
    cwd,
    sessionCwd: () => session.cwd,
    env,
    sessionId,
    yokeDir: home,
    outbox,
    includeHookEvents: !!args.flags["include-hook-events"],
    reportHookErrors: o.reportHookErrors !== false,
    log,
    callMcpTool: (server, tool, input, signal) => mcpReady.then((m) => m.callTool(server, tool, input, signal)),
  });
  agentHookScope = agentHooks({ bus: hooks, settings, warn: (m) => log.warn(m) });
  const modelSetup = modelWiring(args, settings, env, () => session.effort);
  const hookCtx = createHookContext({
    sessionId,
    transcriptPath: () => ss.store.path,
    cwd: () => session.cwd,
    // The evaluator's mode: the Agent SDK's set_permission_mode changes it mid-session.
    permissionMode: () => permissions.mode,
    effort: () => modelSetup.effort(models.current()),
  });
  const hookPayload = hookCtx.hookPayload;
  promptIdNow = hookCtx.promptId;
  effortNow = () => modelSetup.effort(models.current());

  let compactor: Compactor | undefined;
  let progressSink: ((toolUseId: string, chunk: Uint8Array) => void) | null = null;
  const loop = wireLoop({
    cwd,
    env,
    sessionId,
    yokeDir: home,
    settings,
    permissionMode,
    provider,
    model: models,
    tools,
    hooks,
    permissions,
    hookPayload,
    transcript,
    usage,
    session,
    fileState,
    sideQuery,
    context: ctx,
    checkpoints: ss.checkpoints,
    structured,
    maxTurns: parseMaxTurns(flagStr(args, "max-turns")),
    maxBudgetUsd: parseBudget(flagStr(args, "max-budget-usd")),
    modelParams: modelSetup.params,
    beginPrompt: hookCtx.beginPrompt,
    compactor: () => compactor,
    sandbox: () => sandbox,
    progress: (id, chunk) => progressSink?.(id, chunk),
    mcpNotes: () => mcpNow?.notes() ?? [],
  });
  deps = loop.deps;
  // Built whatever the starting mode: the Agent SDK may switch to auto mid-session.
  deps.autoMode = wireAutoMode({ settings, env, provider, usage, rules: () => permissions.rules, sessionId, cwd, warn: (m) => log.warn(m) });
  onLoaded = (files) => void loop.state.loadedInstructions.push(...files);

  const view: SessionView = {
    sessionId,
    cwd,
    projectDir: cwd,
    transcriptPath: ss.store.path,
    model,
    permissionMode,
    memoryDir: ctx.memory.enabled ? ctx.memory.dir : null,
    interactive: o.interactive === true,
    messages: () => convo.messages,
    contextTokens: () => loop.state.lastInputTokens,
  };
  const shutdownCtrl = new AbortController();
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
    deps: () => loop.deps,
    forkUsage: usage,
    sideQuery,
    outbox: (ev) => outbox.push(ev),
    log,
    shutdown: shutdownCtrl.signal,
    sessionId,
    version: VERSION,
  }).catch((e) => {
    pluginsLoaded([]);
    throw e;
  });
  pluginsLoaded(plugins.loaded);
  // Claude Code plugins' agents (`plugin:agent`, issue 14 point 3): the Agent tool is made again with them, before
  // `--agent` looks its name up (a plugin's agent can be the main one).
  const pluginAgentDirs = pluginAgentFolders(plugins.loaded);
  if (pluginAgentDirs.length) {
    agents = wireAgentTool({ ...agentWiring, pluginDirs: pluginAgentDirs, onlyWarningsFrom: pluginAgentDirs.map((d) => d.dir) });
    if (tools.get("Agent")) tools.register(agents.tool);
  }
  // `--agent NAME`: the main conversation runs as that agent (its prompt, tools and model).
  const agentFlag = flagStr(args, "agent");
  let main: AgentDefinition | undefined;
  let mainServers: ReturnType<typeof agentServers> = Promise.resolve(undefined);
  if (agentFlag) {
    main = mainAgent(agentFlag, agents.agents);
    agentCut = agentDrops(main);
    mainAgentPrompt = main.systemPrompt;
    cutToolsForAgent(main, tools);
    if (main.model && main.model !== "inherit" && !flagStr(args, "model")) models.set(resolveModel(main.model));
    // Its own MCP servers start with the session's (Claude Code's docs: "connect at startup alongside .mcp.json").
    mainServers = agentServers(main);
  }
  // Every SessionStart handler is registered now (settings, plugins); the last step that may refuse the run is behind.
  const sessionStart = o.startSessionStart ? startSessionStart({ hooks, hookPayload, source: ss.source, model }) : undefined;
  styles = wireOutputStyle({ cwd, env, settings, bare, settingSources: settingSourcesOf(args), plugins: plugins.loaded, log });
  const extensionsReady = wireExtensions({
    cwd,
    local: localExtensions,
    settings,
    bare,
    permissions,
    tools,
    onlyTools: flagList(args, "tools"),
    sections: pluginSections,
    plugins: plugins.loaded,
    deps: () => loop.deps,
    bus: hooks,
    sessionCwd: () => session.cwd,
    sessionId,
    effort: () => modelSetup.effort(models.current()),
    contextWindow: modelInfo(model).contextWindow,
    env,
    log,
    // `context: fork` skills run through the Agent tool's runner (plugin agents included once loaded).
    fork: forkSkill((req, c) => agents.run(req, c), () => session.cwd),
  });
  let extensions: Extensions | undefined;

  compactor = wireCompaction({
    provider,
    model: models,
    tools,
    hooks,
    hookPayload,
    transcript,
    usage,
    env,
    settings,
    plugins,
    context: ctx,
    // Skills invoked in the session come back after compaction (seed 000 step 5).
    extraContext: () => [extensions?.reinjection()].filter((t): t is string => !!t),
    lastResponseTokens: () => loop.state.lastResponseTokens,
    transcriptPath: ss.store.path,
  });
  // The first prompt's UserPromptSubmit hooks need no MCP server: they run beside the wait below (issue 21).
  const early =
    sessionStart !== undefined && o.earlyPrompt !== undefined && earlySubmitApplies(o.earlyPrompt, hooks, { includeHookEvents: !!args.flags["include-hook-events"] })
      ? startEarlySubmit({
          prompt: o.earlyPrompt,
          hooks,
          hookPayload,
          transcript,
          sessionStart,
          sessionStartContext: loop.state.sessionStartContext,
          beforeSubmit: loop.main.beforeSubmit,
          beginPrompt: hookCtx.beginPrompt,
          // The sandbox probe (a bubblewrap start) is waited for only when its failure would refuse the run.
          refusal: sandboxMayRefuse(settings, env) ? sandboxReady : undefined,
          lineFields: ctx.ready(),
        })
      : undefined;
  if (early) loop.main.submitted = (text) => early.take(text);
  // The first request waits for the MCP servers (each at most ~2 s from its spawn, src/mcp/first-wait.ts; the others
  // join later), the sandbox probe and git.
  const [mcp, sb, , ext] = await Promise.all([
    mcpReady,
    // The first transcript line should carry the git branch (contracts §5.2); the first request waits for git anyway.
    sandboxReady,
    ctx.ready(),
    extensionsReady,
  ]).catch((e: unknown) => {
    early?.abort();
    throw e;
  });
  extensions = ext;
  mcpNow = mcp;
  // The Skill tool and MCP tools joined after --agent cut the tool set; the agent's own servers' tools are its own.
  if (main) cutToolsForAgent(main, tools);
  const ownServers = await mainServers;
  for (const t of ownServers?.tools ?? []) tools.register(t);
  sandbox = sb;
  // A resumed session's earlier file reads count as recently touched, for re-reading after compaction.
  for (const m of convo.messages) if (m.role === "assistant") compactor.noteToolCalls(m.content.filter((b) => b.type === "tool_use"));

  return {
    agents: agents.agents.map((a) => a.name),
    agentDefs: agents.agents,
    models,
    setMaxThinkingTokens: modelSetup.setMaxThinkingTokens,
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
    extensions: ext,
    outputStyle: styles.style,
    outputStyles: styles.styles,
    mcp,
    checkpoints: ss.checkpoints,
    deps: loop.deps,
    main: loop.main,
    sessionStartContext: loop.state.sessionStartContext,
    sessionStart,
    earlySubmit: early,
    apiKeySource,
    sandbox: sb,
    log,
    outbox,
    setToolProgress: (sink) => void (progressSink = sink),
    hookPayload,
    async shutdown() {
      shutdownCtrl.abort();
      // A Bash call's git snapshot finishes its ref and transcript line while the command runs: wait for it here.
      await Promise.all([killAllBackgroundShells(session), mcp.close(), ownServers?.close(), ss.checkpoints?.settled()]);
      removeSessionTempDir(session);
      await sb.shutdown();
      ss.store.close?.();
      // A short run still finishes its sweep; a huge temp folder does not hold the exit long.
      await tempSweepSettled(500);
    },
  };
}
