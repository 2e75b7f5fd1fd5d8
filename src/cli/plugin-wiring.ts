import { randomUUID } from "../util/random.ts";
import { userHome } from "../util/home.ts";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Settings } from "../config/schema.ts";
import type { YokeHookBus } from "../hook/bus.ts";
import { runFork } from "../loop/fork.ts";
import type { LoopEvent } from "../loop/events.ts";
import type { LoopDeps } from "../loop/run-turn.ts";
import { createPermissionEvaluator } from "../permission/index.ts";
import type { LoadedSettings } from "../config/load.ts";
import { isInside, resolvePath } from "../permission/paths.ts";
import type { PermissionEvaluator } from "../permission/types.ts";
import { createBackgroundTasks, setupPlugin, type BackgroundTasks, type HostDeps, type PromptSection } from "../plugin/host.ts";
import { isProjectTrusted } from "../trust/workspace.ts";
import { discoverPlugins, type LoadedPlugin, type SkippedPlugin } from "../plugin/loader.ts";
import type { ForkOptions, ForkResult, SessionView, SummaryProvider } from "../plugin/types.ts";
import { resolveModel } from "../provider/models.ts";
import { createSessionStore, subagentTranscriptPath } from "../session/index.ts";
import { createTranscript } from "../session/transcript.ts";
import { declarationOf } from "../tool/declarations.ts";
import type { ToolRegistry } from "../tool/registry.ts";
import { createToolRegistry } from "../tool/registry.ts";
import type { SideQuery } from "../tool/types.ts";
import { bundledPlugins } from "../plugin/bundled.ts";
import type { Diagnostics } from "../util/diagnostics.ts";

export type PluginRuntime = {
  loaded: LoadedPlugin[];
  summaryProviders: Array<{ plugin: string; fn: SummaryProvider }>;
  errors: Array<{ path: string; message: string }>;
  /** Found but not running (disabled, replaced), with the reason. */
  skipped: SkippedPlugin[];
  background: BackgroundTasks;
};

export type PluginWiringOptions = {
  cwd: string;
  yokeDir: string;
  claudeDir: string;
  pluginDirs: string[];
  settings: LoadedSettings;
  env: Record<string, string>;
  bare: boolean;
  bus: YokeHookBus;
  tools: ToolRegistry;
  sections: PromptSection[];
  session: SessionView;
  deps: () => LoopDeps;
  /** Usage tracker for forks: their cost counts, but their requests must not move the session's context-size reading. */
  forkUsage?: LoopDeps["usage"];
  sideQuery: SideQuery;
  outbox: (ev: LoopEvent) => void;
  log: Diagnostics;
  shutdown: AbortSignal;
  sessionId: string;
  version: string;
};

/** Write tools whose target must sit inside a fork's writeDirs. */
const WRITE_TOOLS = new Set(["Write", "Edit", "MultiEdit", "NotebookEdit"]);

const withoutAllow = (s: Settings): Settings => (s.permissions?.allow ? { ...s, permissions: { ...s.permissions, allow: [] } } : s);
const withoutAllowRules = (s: LoadedSettings): LoadedSettings => ({
  merged: withoutAllow(s.merged),
  sources: s.sources.map((src) => ({ ...src, settings: withoutAllow(src.settings) })),
});

/**
 * A fork may read anything the user's rules let it read, run read-only Bash if allowed, and write only
 * inside its writeDirs. The write check sees the path as the kernel would (`..` and symlinks resolved),
 * and Bash is judged without the user's allow rules: `Bash(npm run:*)` says the user trusts the main
 * agent with it, not that it is read-only. Never throws.
 */
export function forkPermissions(
  o: Pick<PluginWiringOptions, "settings" | "cwd" | "env">,
  fork: Pick<ForkOptions, "writeDirs" | "readOnlyBash">,
  tools: ToolRegistry,
): PermissionEvaluator {
  const home = userHome(o.env);
  const writeDirs = (fork.writeDirs ?? []).map((d) => resolvePath(d, o.cwd, home).real);
  const make = (settings: LoadedSettings) =>
    createPermissionEvaluator({
      settings,
      mode: "dontAsk",
      cwd: o.cwd,
      env: o.env,
      autoAllowWriteDirs: writeDirs,
      addDirs: writeDirs,
      declarations: (name) => {
        const t = tools.get(name);
        return t ? declarationOf(t) : undefined;
      },
    });
  const base = make(o.settings);
  const bash = fork.readOnlyBash ? make(withoutAllowRules(o.settings)) : undefined;
  const inWriteDirs = (p: string, cwd: string) =>
    p !== "" && resolvePath(p, cwd, home).physical.every((x) => writeDirs.some((d) => isInside(d, x)));
  return {
    mode: "dontAsk",
    isToolHidden: (n) => base.isToolHidden(n),
    decide(q) {
      if (WRITE_TOOLS.has(q.toolName) && !inWriteDirs(String(q.input.file_path ?? q.input.notebook_path ?? ""), q.cwd || o.cwd))
        return { behavior: "deny", reason: `This agent may only write inside ${writeDirs.join(", ") || "no folder"}.` };
      if (q.toolName === "Bash") {
        if (!bash) return { behavior: "deny", reason: "This agent may not run shell commands." };
        // A hook's allow must not widen the fork's read-only Bash either; dontAsk denies what is not read-only.
        return bash.decide({ ...q, hookDecision: q.hookDecision === "allow" ? undefined : q.hookDecision });
      }
      return base.decide(q);
    },
  };
}

export async function wirePlugins(o: PluginWiringOptions): Promise<PluginRuntime> {
  let forkSeq = 0;
  const background = createBackgroundTasks((m) => o.log.warn(m));
  const summaryProviders: PluginRuntime["summaryProviders"] = [];
  const { plugins, errors, skipped } = await discoverPlugins({
    cwd: o.cwd,
    yokeDir: o.yokeDir,
    claudeDir: o.claudeDir,
    pluginDirs: o.pluginDirs,
    settings: o.settings.merged,
    env: o.env,
    bundled: bundledPlugins(),
    bare: o.bare,
    projectTrusted: isProjectTrusted(o.settings),
  });
  for (const e of errors) o.log.error(`plugin ${e.path} failed to load: ${e.message}`);

  const fork = async (f: ForkOptions): Promise<ForkResult> => {
    const parent = { ...o.deps(), ...(o.forkUsage ? { usage: o.forkUsage } : {}) };
    const picked = f.tools.map((n) => o.tools.get(n)).filter((t): t is NonNullable<typeof t> => !!t);
    const tools = createToolRegistry([...picked, ...(f.extraTools ?? [])]);
    const agentId = `fork-${f.name.replace(/[^A-Za-z0-9_-]/g, "-")}-${++forkSeq}`;
    const store = createSessionStore({
      cwd: o.cwd,
      sessionId: o.sessionId,
      env: o.env,
      persist: !!parent.transcript.store.path,
      path: subagentTranscriptPath(o.cwd, o.sessionId, agentId, o.env),
    });
    const transcript = createTranscript(store, {
      cwd: () => o.cwd,
      version: o.version,
      entrypoint: o.env.CLAUDE_CODE_ENTRYPOINT || "sdk-cli",
      uuid: randomUUID,
      now: () => new Date(),
      isSidechain: true,
      agentId,
    });
    const ctrl = new AbortController();
    const stop = () => ctrl.abort();
    o.shutdown.addEventListener("abort", stop, { once: true });
    f.signal?.addEventListener("abort", stop, { once: true });
    try {
      const { result, toolUses } = await runFork(parent, {
        system: f.system,
        prompt: f.prompt,
        tools,
        maxTurns: f.maxTurns,
        model: f.model ? resolveModel(f.model) : parent.model(),
        permissions: forkPermissions(o, f, tools),
        transcript,
        signal: ctrl.signal,
      });
      return { text: result.result, isError: result.isError, numTurns: result.numTurns, toolUses };
    } finally {
      store.close();
      o.shutdown.removeEventListener("abort", stop);
    }
  };

  for (const p of plugins) {
    if (p.kind === "claude") {
      const env = { CLAUDE_PLUGIN_ROOT: p.info.root, CLAUDE_PLUGIN_DATA: p.info.dataDir };
      // Hook scripts write into ${CLAUDE_PLUGIN_DATA} without creating it first, as Claude Code provides it.
      if (p.info.hooks) {
        try {
          mkdirSync(p.info.dataDir, { recursive: true });
        } catch (err) {
          o.log.error(`plugin ${p.info.name}: cannot create its data folder ${p.info.dataDir}: ${(err as Error).message}`);
        }
      }
      if (p.info.hooks) o.bus.addPluginHooks(p.info.hooks as never, { path: join(p.info.root, "hooks", "hooks.json"), owner: p.info.name, pluginId: p.info.id, env });
      continue;
    }
    const deps: HostDeps = {
      registerHook: (event, handler, opts) => o.bus.registerInProcess(event, handler, opts),
      registerTool: (tool) => o.tools.register(tool),
      sections: o.sections,
      yokeDir: o.yokeDir,
      session: o.session,
      settings: o.settings.merged as Settings,
      env: o.env,
      fork,
      sideQuery: o.sideQuery,
      notify: (plugin, message) => {
        o.outbox({ type: "system", subtype: "notification", data: { message, source: `plugin:${plugin}` } });
        o.log.withTag(`plugin ${plugin}`).info(message);
      },
      background,
      log: o.log,
      summaryProviders,
    };
    try {
      await setupPlugin(p.plugin, deps);
    } catch (err) {
      errors.push({ path: p.path, message: (err as Error).message });
      o.log.error(`plugin ${p.plugin.name} (${p.path}) failed in setup: ${(err as Error).message}`);
    }
  }
  return { loaded: plugins, errors, skipped, background, summaryProviders };
}

