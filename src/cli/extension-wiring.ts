import type { LoadedSettings } from "../config/load.ts";
import { statSync } from "node:fs";
import { join } from "node:path";
import { claudeUserDir, managedDir, projectStateDir } from "../config/paths.ts";
import { pluginOnlySurfaces } from "../config/plugin-only.ts";
import { discoverExtensions, type Discovery, type ExtensionRoot } from "../extension/discover.ts";
import { type DiscoveryCache, openDiscoveryCache } from "../extension/discovery-cache.ts";
import { listingLimits } from "../extension/listing.ts";
import { discoverOutputStyles, selectOutputStyle, type OutputStyle } from "../extension/output-styles.ts";
import { createExtensions, type Extensions, type ExtensionsOptions } from "../extension/runtime.ts";
import type { AgentRunner } from "../tool/builtin/agent.ts";
import type { LoopDeps } from "../loop/run-turn.ts";
import { hookSchemas } from "../config/hooks-schema.ts";
import type { YokeHookBus } from "../hook/bus.ts";
import type { Evaluator } from "../permission/index.ts";
import type { PromptSection } from "../plugin/host.ts";
import type { LoadedPlugin } from "../plugin/loader.ts";
import type { ToolRegistry } from "../tool/registry.ts";
import { isProjectTrusted } from "../trust/workspace.ts";
import { VERSION } from "../version.ts";
import type { Diagnostics } from "../util/diagnostics.ts";

/**
 * Reads the managed, personal and project skills and commands (each file's head) on the event loop's next turn:
 * compose goes on at once, and the reading fills the first moment startup waits on something else (issue 14
 * point 7); plugins' come later in wireExtensions. Never rejects.
 */
export function startExtensionDiscovery(o: {
  cwd: string;
  env: Record<string, string>;
  bare: boolean;
  settingSources?: string[];
  /** For `strictPluginOnlyCustomization` (managed settings): locked skills load from managed settings and plugins only. */
  settings?: LoadedSettings;
  warn?: (m: string) => void;
}): Promise<LocalDiscovery> {
  if (o.bare) return Promise.resolve({ commands: [], problems: [] });
  const sources = o.settingSources;
  const pluginOnly = o.settings ? pluginOnlySurfaces(o.settings, o.warn ?? (() => {})).has("skills") : false;
  return new Promise((done) =>
    setImmediate(() =>
      done(
        timed(() => {
          const cache = openDiscoveryCache(join(projectStateDir(o.cwd, o.env), "extensions-cache.json"), cacheVersion());
          return {
            ...discoverExtensions({
              cwd: o.cwd,
              userDir: claudeUserDir(o.env),
              managedDir: managedDir(o.env),
              user: !pluginOnly && (!sources || sources.includes("user")),
              project: !pluginOnly && (!sources || sources.includes("project")),
              cache,
            }),
            cache,
          };
        }),
      ),
    ),
  );
}

/** How long after the first request is built discovery's cache is written (or at exit, if sooner; YOKE_DISCOVERY_SAVE_MS). */
const SAVE_AFTER_MS = 100;

/** startExtensionDiscovery's result: the discovery, and its cache for the plugins' files and the save. */
export type LocalDiscovery = Discovery & { cache?: DiscoveryCache };

/**
 * The cache is made by this very build: the binary's own mtime changes with every build (so a changed parser never
 * reads an older build's entries); from source, the version and the format below.
 */
const CACHE_FORMAT = 2;
function cacheVersion(): string {
  let built = 0;
  try {
    built = statSync(process.execPath).mtimeMs;
  } catch {
    // Unknown: the version alone.
  }
  return `${VERSION}/${CACHE_FORMAT}/${built}`;
}

/**
 * YOKE_TIMING: the CPU time spent on skills and commands before the first request (discovery, the session's table,
 * the listing), summed into the `yoke:extensions-busy` measure (bench/extensions.ts). CPU time, not wall time: on a
 * loaded machine a slice of wall time also holds the time other processes had the core. The process's, not the
 * thread's: getrusage(RUSAGE_SELF) is exact for the running thread, RUSAGE_THREAD only to the clock tick (4 ms).
 */
let busyMs = 0;
const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
function timed<T>(f: () => T): T {
  if (process.env.YOKE_TIMING !== "1") return f();
  const t = cpuMs();
  try {
    return f();
  } finally {
    busyMs += cpuMs() - t;
    performance.clearMeasures("yoke:extensions-busy");
    performance.measure("yoke:extensions-busy", { start: 0, duration: busyMs });
  }
}

export type ExtensionWiringOptions = {
  cwd: string;
  /** startExtensionDiscovery's result. */
  local: Promise<LocalDiscovery>;
  settings: LoadedSettings;
  bare: boolean;
  permissions: Evaluator;
  tools: ToolRegistry;
  /** `--tools`: the Skill tool joins only when the list is unset, `default`, or names it. */
  onlyTools: string[];
  sections: PromptSection[];
  plugins: LoadedPlugin[];
  deps: () => LoopDeps;
  /** The hook bus, for skills' and commands' frontmatter hooks. */
  bus?: YokeHookBus;
  /** The session's working directory now (Bash may move it). */
  sessionCwd: () => string;
  sessionId: string;
  effort: () => string | undefined;
  contextWindow: number;
  /** The run's environment (SLASH_COMMAND_TOOL_CHAR_BUDGET). */
  env?: Record<string, string | undefined>;
  log: Diagnostics;
  /** Runs `context: fork` skills (forkSkill). */
  fork?: ExtensionsOptions["fork"];
};

/**
 * A `context: fork` skill's run (contracts §6.2): its expanded body is the prompt of a subagent of the skill's
 * `agent` type, started as the Agent tool starts one (SubagentStart/Stop, sidechain transcript, instruction files),
 * its `model` the subagent's. The answer's text comes back, or the failure's. Never throws.
 */
export function forkSkill(run: AgentRunner, cwd: () => string): NonNullable<ExtensionsOptions["fork"]> {
  return async (req, signal) => {
    const r = await run(
      { description: `/${req.name}`, prompt: req.prompt, subagent_type: req.agent, ...(req.model ? { model: req.model } : {}) },
      { toolUseId: `skill-fork-${req.name}`, cwd: cwd(), signal },
    );
    const text = typeof r.content === "string" ? r.content : r.content.map((b) => (b.type === "text" ? b.text : "")).join("");
    return { text, isError: r.isError === true };
  };
}

/** The `agents/` folders of the Claude Code plugins that load (their agents are `plugin:name`). */
export const pluginAgentFolders = (plugins: LoadedPlugin[]): Array<{ plugin: string; dir: string }> =>
  plugins.flatMap((p) => (p.kind === "claude" ? p.info.paths.agents.map((dir) => ({ plugin: p.info.name, dir })) : []));

/** The skill and command folders of the Claude Code plugins that load. */
export function pluginExtensionRoots(plugins: LoadedPlugin[]): ExtensionRoot[] {
  return plugins.flatMap((p) =>
    p.kind === "claude"
      ? [
          {
            source: "plugin" as const,
            skillsDirs: p.info.paths.skills,
            commandsDirs: p.info.paths.commands,
            plugin: { name: p.info.name, root: p.info.root, dataDir: p.info.dataDir },
          },
        ]
      : [],
  );
}

/**
 * Skills and custom slash commands for the session (issue 14 points 1–2): discovered once at startup (metadata
 * only, overlapping the rest of startup), listed in the system prompt within a budget, the Skill tool registered, problems reported once each
 * naming the file. Never rejects.
 */
export async function wireExtensions(o: ExtensionWiringOptions): Promise<Extensions> {
  const roots = o.bare ? [] : pluginExtensionRoots(o.plugins);
  const local = await o.local;
  const cache = local.cache;
  const fromPlugins = roots.length
    ? timed(() => discoverExtensions({ cwd: o.cwd, userDir: "", plugins: roots, user: false, project: false, ...(cache ? { cache } : {}) }))
    : { commands: [], problems: [] };
  // Written when it changed (a new or edited file), once the first request has surely left: the listing is made while
  // that request is built, and a timer due at once could run before the request is written to its socket (seen with
  // the fake API: 2 runs in 10 had the cache on disk when the request arrived), and a first start's save stats all
  // the files. So: SAVE_AFTER_MS later, while the model is still answering, or at exit when the run ends sooner. The
  // next run stats instead of reading; this one's first request does not wait for the write.
  let saving = false;
  const saveSoon = () => {
    if (!cache || saving) return;
    saving = true;
    const save = () => cache.save();
    const ms = Number(o.env?.YOKE_DISCOVERY_SAVE_MS);
    setTimeout(save, Number.isFinite(ms) && ms >= 0 ? ms : SAVE_AFTER_MS).unref?.();
    process.once("exit", save);
  };
  // YOKE_TIMING: when the skills and commands were read (bench/extensions.ts).
  performance.mark("yoke:extensions");
  // Plugin entries are namespaced (`plugin:name`), so they rank after the others without clashing.
  const found = { commands: [...local.commands, ...fromPlugins.commands], problems: [...local.problems, ...fromPlugins.problems] };
  for (const p of found.problems) o.log.warn(`${p.file}: ${p.message}`);
  const trusted = isProjectTrusted(o.settings);
  const limits = listingLimits({ contextWindow: o.contextWindow, env: o.env ?? {}, settings: o.settings.merged as Record<string, unknown>, warn: (m) => o.log.warn(m) });
  const ext = timed(() => createExtensions({
    commands: found.commands,
    problems: found.problems,
    cwd: o.sessionCwd,
    vars: () => ({ sessionId: o.sessionId, projectDir: o.cwd, effort: o.effort() }),
    permissions: o.permissions,
    // What a checkout ships grants nothing until the folder is trusted (DESIGN: trust and output).
    mayGrant: (cmd) => cmd.source !== "project" || trusted,
    runShell: async (command, signal) => {
      const bash = o.tools.get("Bash");
      if (!bash) return { output: "(Bash is not available in this session)", isError: true };
      const r = await bash.run({ command }, o.deps().context(`skill-shell-${Date.now().toString(36)}`, signal));
      const text = typeof r.content === "string" ? r.content : r.content.map((b) => (b.type === "text" ? b.text : "")).join("\n");
      return { output: text, isError: !!r.isError };
    },
    // Frontmatter hooks run for the rest of the session once the skill or command is used (contracts §1.2).
    onFirstUse: (cmd) => {
      if (!cmd.hooks || (cmd.source === "project" && !trusted) || !o.bus) return;
      const parsed = hookSchemas().hooksSchema.safeParse(cmd.hooks);
      if (!parsed.success) {
        const i = parsed.error.issues[0]!;
        o.log.warn(`${cmd.file}: field "hooks.${i.path.join(".")}": ${i.message} (its hooks are not used)`);
        return;
      }
      const env: Record<string, string> = cmd.plugin ? { CLAUDE_PLUGIN_ROOT: cmd.plugin.root, CLAUDE_PLUGIN_DATA: cmd.plugin.dataDir } : {};
      o.bus.addPluginHooks(parsed.data as never, { path: cmd.file, owner: `skill:${cmd.name}`, env });
    },
    warn: (m) => o.log.warn(m),
    listingBudget: limits.budget,
    listingMaxDescription: limits.maxDescription,
    ...(o.fork ? { fork: o.fork } : {}),
  }));
  const only = o.onlyTools.flatMap((v) => v.split(/[ ,]+/)).filter(Boolean);
  const wanted = !only.length || (only.length === 1 && only[0] === "default") || only.includes("Skill");
  if (ext.tool && wanted && !o.permissions.isToolHidden("Skill")) o.tools.register(ext.tool);
  o.sections.push({
    plugin: "yoke",
    name: "skills",
    text: () => {
      saveSoon();
      return timed(() => ext.listing());
    },
  });
  return ext;
}

/**
 * The session's output style (issue 14 point 5): built-in, personal, project, managed or plugin styles; a plugin
 * style with `force-for-plugin` wins, else the `outputStyle` setting. Problems are reported once, naming the file
 * or the setting. Never throws.
 */
export function wireOutputStyle(o: {
  cwd: string;
  env: Record<string, string>;
  settings: LoadedSettings;
  bare: boolean;
  settingSources?: string[];
  plugins: LoadedPlugin[];
  log: Diagnostics;
}): { style: OutputStyle | null; styles: OutputStyle[] } {
  const sources = o.settingSources;
  const found = discoverOutputStyles({
    cwd: o.cwd,
    userDir: claudeUserDir(o.env),
    managedDir: o.bare ? undefined : managedDir(o.env),
    plugins: o.bare ? [] : o.plugins.flatMap((p) => (p.kind === "claude" ? [{ plugin: { name: p.info.name, root: p.info.root, dataDir: p.info.dataDir }, dirs: p.info.paths.outputStyles }] : [])),
    user: !o.bare && (!sources || sources.includes("user")),
    project: !o.bare && (!sources || sources.includes("project")),
  });
  for (const p of found.problems) o.log.warn(`${p.file}: ${p.message}`);
  const picked = selectOutputStyle(found.styles, o.settings.merged.outputStyle);
  if (picked.problem) o.log.warn(picked.problem);
  return { style: picked.style, styles: found.styles };
}
