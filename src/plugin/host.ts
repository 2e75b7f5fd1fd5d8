import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Settings } from "../config/schema.ts";
import type { InProcessOptions } from "../hook/bus.ts";
import type { HookEventName } from "../hook/types.ts";
import type { SideQuery, Tool } from "../tool/types.ts";
import { jsonTool } from "../tool/json-tool.ts";
import type { Diagnostics } from "../util/diagnostics.ts";
import type { ForkOptions, ForkResult, InProcessHookHandler, Plugin, PluginHost, SessionView, SummaryProvider } from "./types.ts";

export type PromptSection = { plugin: string; name: string; text: string | (() => string | null | undefined) };

/** What the runtime lends every plugin host. */
export type HostDeps = {
  registerHook(event: HookEventName, handler: InProcessHookHandler, opts: InProcessOptions): () => void;
  registerTool(tool: Tool): void;
  sections: PromptSection[];
  yokeDir: string;
  session: SessionView;
  settings: Settings;
  env: Record<string, string>;
  fork(opts: ForkOptions): Promise<ForkResult>;
  sideQuery: SideQuery;
  notify(plugin: string, message: string): void;
  background: BackgroundTasks;
  /** The run's diagnostics; each plugin logs under its own tag. */
  log: Diagnostics;
  summaryProviders: Array<{ plugin: string; fn: SummaryProvider }>;
};

/** Background work of plugins, drained (with a cap) before a headless run exits. */
export function createBackgroundTasks(log: (msg: string) => void) {
  const running = new Set<Promise<void>>();
  return {
    add(name: string, work: () => Promise<void>) {
      const p = (async () => {
        try {
          await work();
        } catch (err) {
          log(`background task ${name} failed: ${(err as Error).message}`);
        }
      })();
      running.add(p);
      p.finally(() => running.delete(p));
    },
    /** Waits for everything running now (and anything it starts) up to capMs. Returns the number still running. */
    async drain(capMs: number): Promise<number> {
      const deadline = Date.now() + capMs;
      while (running.size && Date.now() < deadline) {
        const left = deadline - Date.now();
        await Promise.race([Promise.allSettled([...running]), new Promise((r) => setTimeout(r, left))]);
      }
      return running.size;
    },
    size: () => running.size,
  };
}
export type BackgroundTasks = ReturnType<typeof createBackgroundTasks>;

export function createPluginHost(name: string, deps: HostDeps): PluginHost {
  const tagged = deps.log.withTag(`plugin ${name}`);
  // debug with --debug, info with --verbose, warnings and errors always (DiagnosticsOptions).
  const log = {
    debug: (m: string) => tagged.debug(m),
    info: (m: string) => tagged.info(m),
    warn: (m: string) => tagged.warn(m),
    error: (m: string) => tagged.error(m),
  };
  return {
    name,
    hooks: {
      // The bus runs handlers of every event alike; the per-event types hold at the plugin's side of the door.
      on: ((event: HookEventName, handler: InProcessHookHandler, opts: { matcher?: string; timeoutMs?: number } = {}) =>
        deps.registerHook(event, handler, { ...opts, source: name })) as PluginHost["hooks"]["on"],
    },
    tools: {
      register: (tool) => deps.registerTool(tool),
      define: (def) => deps.registerTool(jsonTool(def)),
    },
    systemPrompt: { addSection: (section, text) => void deps.sections.push({ plugin: name, name: section, text }) },
    storageDir() {
      const dir = join(deps.yokeDir, "plugins-data", name.replace(/[^A-Za-z0-9_.-]/g, "-"));
      mkdirSync(dir, { recursive: true });
      return dir;
    },
    session: deps.session,
    settings: deps.settings,
    env: deps.env,
    log,
    agents: { fork: (opts) => deps.fork(opts) },
    sideQuery: deps.sideQuery,
    notify: (message) => deps.notify(name, message),
    background: (task, work) => deps.background.add(`${name}/${task}`, work),
    compaction: { provideSummary: (fn) => void deps.summaryProviders.push({ plugin: name, fn }) },
  };
}

/**
 * Runs a plugin's setup through a host whose registrations stand only if setup succeeds: a setup that
 * throws leaves no hooks, tools, prompt sections or summary providers behind (a half-set-up PreToolUse
 * guard would otherwise fail closed on every tool call). Throws the setup's error after undoing.
 */
export async function setupPlugin(plugin: Plugin, deps: HostDeps): Promise<void> {
  let staging = true;
  const offs: Array<() => void> = [];
  const tools: Tool[] = [];
  const sectionsBefore = deps.sections.length;
  const providersBefore = deps.summaryProviders.length;
  const host = createPluginHost(plugin.name, {
    ...deps,
    registerHook(event, handler, opts) {
      const off = deps.registerHook(event, handler, opts);
      if (staging) offs.push(off);
      return off;
    },
    registerTool: (tool) => (staging ? void tools.push(tool) : deps.registerTool(tool)),
  });
  try {
    await plugin.setup(host);
  } catch (err) {
    for (const off of offs) off();
    deps.sections.splice(sectionsBefore);
    deps.summaryProviders.splice(providersBefore);
    throw err;
  } finally {
    staging = false;
  }
  for (const t of tools) deps.registerTool(t);
}

/** Renders plugin sections for one request; a section that throws is skipped and logged. */
export function renderSections(sections: PromptSection[], log: Diagnostics): Array<{ name: string; text: string }> {
  const out: Array<{ name: string; text: string }> = [];
  for (const s of sections) {
    try {
      const text = typeof s.text === "function" ? s.text() : s.text;
      if (text) out.push({ name: `${s.plugin}:${s.name}`, text });
    } catch (err) {
      const m = `section ${s.name} failed: ${(err as Error).message}`;
      log.withTag(`plugin ${s.plugin}`).error(m);
    }
  }
  return out;
}
