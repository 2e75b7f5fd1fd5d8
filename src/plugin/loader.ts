import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { hookSchemas } from "../config/hooks-schema.ts";
import type { Settings } from "../config/schema.ts";
import { parseJsonWithLocation } from "../util/json-error.ts";
import type { Plugin } from "./types.ts";
import { findInstalledPlugin } from "./installed.ts";
import { pluginPaths, unsupportedParts, type PartState, type PluginPaths } from "./parts.ts";

/** A Claude Code plugin folder (contracts §6.1): its hooks run; commands, agents and skills are listed. */
export type ClaudePluginInfo = {
  name: string;
  /** How Claude Code names it in messages: the `enabledPlugins` key `name@marketplace`, else `name@inline` (observed in 2.1.332 for --plugin-dir). */
  id: string;
  version?: string;
  description?: string;
  root: string;
  dataDir: string;
  hooks?: Record<string, unknown>;
  /** The file the hooks came from (or plugin.json when inline). */
  hooksFile?: string;
  commands: string[];
  agents: string[];
  skills: string[];
  /** Component folders after plugin.json's path fields (contracts §6.1). */
  paths: PluginPaths;
  /** Parts present that yoke does not run yet. */
  unsupported: PartState[];
  /** How an enabledPlugins entry was found (local-directory marketplace, installed_plugins.json, cache). */
  resolvedVia?: string;
};

export type LoadedPlugin =
  | { kind: "yoke"; origin: "bundled" | "user" | "project" | "flag"; path: string; plugin: Plugin }
  | { kind: "claude"; origin: "user" | "project" | "flag" | "enabledPlugins"; path: string; info: ClaudePluginInfo };

export type PluginLoadError = { path: string; message: string };

/** A plugin that was found but does not run, and why (for `yoke plugins list`). */
export type SkippedPlugin = { name: string; version?: string; kind: LoadedPlugin["kind"]; origin: string; path: string; reason: string };

const TS_ENTRY = ["index.ts", "index.js", "plugin.ts", "plugin.js"];

function isPlugin(v: unknown): v is Plugin {
  const p = v as Plugin;
  return !!p && typeof p === "object" && typeof p.name === "string" && typeof p.setup === "function";
}

let sdkProvided = false;

/**
 * Makes `import … from "yoke"` work in a user's plugin file: the public SDK (src/index.ts), compiled into the
 * binary, offered as a virtual module. Registered once, before the first user plugin loads; the SDK itself
 * is loaded only when a plugin imports it.
 */
function provideSdkModule(): void {
  if (sdkProvided) return;
  sdkProvided = true;
  Bun.plugin({
    name: "yoke-sdk",
    setup(build) {
      build.module("yoke", async () => ({ exports: { ...(await import("../index.ts")) }, loader: "object" }));
    },
  });
}

/** Imports a user's TypeScript or JavaScript plugin. Bun transpiles it at run time: no build step, no node_modules. */
async function importPlugin(file: string): Promise<Plugin> {
  let mod: Record<string, unknown>;
  provideSdkModule();
  try {
    mod = await import(Bun.pathToFileURL(file).href);
  } catch (err) {
    throw new Error(describeLoadError(err));
  }
  const p = (mod.default ?? mod.plugin) as Plugin;
  if (!isPlugin(p)) throw new Error("the module's default export must be { name, version, setup(host) }");
  return { ...p, version: p.version ?? "0.0.0" };
}

/** Bun reports syntax errors as an AggregateError of BuildMessages; name the first ones with line and column. */
export function describeLoadError(err: unknown): string {
  const list = (err as { errors?: unknown[] })?.errors;
  if (!Array.isArray(list) || list.length === 0) return err instanceof Error ? err.message : String(err);
  const parts = list.slice(0, 3).map((m) => {
    const x = m as { message?: string; position?: { line?: number; column?: number } | null };
    const at = x.position?.line ? `line ${x.position.line}:${x.position.column ?? 0}: ` : "";
    return `${at}${x.message ?? String(m)}`;
  });
  return `syntax error: ${parts.join("; ")}${list.length > 3 ? ` (and ${list.length - 3} more)` : ""}`;
}

type Manifest = Record<string, unknown> & { name: string; version?: string; description?: string; hooks?: unknown };

function readManifest(root: string): Manifest {
  const mf = join(root, ".claude-plugin", "plugin.json");
  if (!existsSync(mf)) return { name: basename(root) };
  const raw = parseJsonWithLocation(readFileSync(mf, "utf8"), mf) as Record<string, unknown>;
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) throw new Error(`${mf}: the manifest must be a JSON object`);
  if (typeof raw.name !== "string" || !raw.name) throw new Error(`${mf}: field "name" is required`);
  // The name becomes the namespace of every command, skill and agent (`plugin:name`).
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(raw.name)) throw new Error(`${mf}: field "name": "${raw.name}" may hold only letters, digits, dots, hyphens and underscores`);
  for (const k of ["version", "description"])
    if (raw[k] !== undefined && typeof raw[k] !== "string") throw new Error(`${mf}: field "${k}" must be a string`);
  return raw as Manifest;
}

const listDir = (dir: string, filter: (n: string) => boolean) => (existsSync(dir) ? readdirSync(dir).filter(filter).sort() : []);

export function readClaudePlugin(root: string, dataRoot: string, key?: string): ClaudePluginInfo {
  const m = readManifest(root);
  let hooks: Record<string, unknown> | undefined;
  const hooksFile = typeof m.hooks === "string" ? resolve(root, m.hooks) : join(root, "hooks", "hooks.json");
  const paths = pluginPaths(root, m);
  const inline = m.hooks && typeof m.hooks === "object" ? (m.hooks as Record<string, unknown>) : undefined;
  const rawHooks = inline ?? (existsSync(hooksFile) ? (parseJsonWithLocation(readFileSync(hooksFile, "utf8"), hooksFile) as Record<string, unknown>) : undefined);
  if (rawHooks) {
    const h = (rawHooks.hooks ?? rawHooks) as Record<string, unknown>;
    const parsed = hookSchemas().hooksSchema.safeParse(h);
    if (!parsed.success) {
      const i = parsed.error.issues[0]!;
      throw new Error(`${inline ? join(root, ".claude-plugin/plugin.json") : hooksFile}: field "hooks.${i.path.join(".")}": ${i.message}`);
    }
    hooks = parsed.data;
  }
  return {
    name: m.name,
    id: key ?? `${m.name}@inline`,
    version: m.version,
    description: m.description,
    root,
    dataDir: join(dataRoot, m.name.replace(/[^A-Za-z0-9_-]/g, "-")),
    hooks,
    ...(hooks ? { hooksFile: inline ? join(root, ".claude-plugin", "plugin.json") : hooksFile } : {}),
    commands: paths.commands.flatMap((d) => (d.endsWith(".md") ? [basename(d, ".md")] : listDir(d, (n) => n.endsWith(".md")).map((n) => n.slice(0, -3)))),
    agents: paths.agents.flatMap((d) => listDir(d, (n) => n.endsWith(".md")).map((n) => n.slice(0, -3))),
    skills: paths.skills.flatMap((d) => listDir(d, (n) => existsSync(join(d, n, "SKILL.md")))),
    paths,
    unsupported: unsupportedParts(root, m),
  };
}

const isDir = (p: string) => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};
const isClaudePluginDir = (d: string) => existsSync(join(d, ".claude-plugin", "plugin.json")) || existsSync(join(d, "hooks", "hooks.json"));

/** Finds plugin entries in a folder: files, folders with an index, Claude Code plugin folders. */
function entriesIn(dir: string): string[] {
  if (!isDir(dir)) return [];
  return readdirSync(dir)
    .filter((n) => !n.startsWith(".") && !n.endsWith(".d.ts"))
    .sort()
    .map((n) => join(dir, n))
    .filter((p) => (isDir(p) ? isClaudePluginDir(p) || TS_ENTRY.some((e) => existsSync(join(p, e))) : /\.(ts|js|mjs)$/.test(p)));
}

export type DiscoverOptions = {
  cwd: string;
  yokeDir: string;
  claudeDir: string;
  pluginDirs: string[];
  settings: Settings;
  env: Record<string, string | undefined>;
  bundled: Plugin[];
  bare: boolean;
  /** False when the folder is not trusted: its `.yoke/plugins` are listed as skipped, not loaded (src/trust). */
  projectTrusted?: boolean;
};

/** Why a plugin is switched off (`plugins: { name: false }`, or YOKE_DISABLE_PLUGINS: a comma list or "all"), or undefined when it is on. Pure. */
export function disabledReason(name: string, settings: Settings, env: Record<string, string | undefined>): string | undefined {
  if (settings.plugins?.[name] === false) return `settings: plugins.${name} is false`;
  const off = (env.YOKE_DISABLE_PLUGINS ?? "").split(",").map((s) => s.trim());
  if (off.includes("all")) return "YOKE_DISABLE_PLUGINS=all";
  if (off.includes(name)) return `YOKE_DISABLE_PLUGINS lists ${name}`;
  return undefined;
}

/**
 * Loads every plugin. Never throws: a plugin that fails to load is reported in `errors` (naming its file)
 * and left out. A user or project plugin with the name of a first-party one takes its place.
 */
export async function discoverPlugins(
  o: DiscoverOptions,
): Promise<{ plugins: LoadedPlugin[]; errors: PluginLoadError[]; skipped: SkippedPlugin[] }> {
  const errors: PluginLoadError[] = [];
  const skipped: SkippedPlugin[] = [];
  if (o.bare) return { plugins: [], errors, skipped };
  const dataRoot = join(o.yokeDir, "plugins-data");
  const user: LoadedPlugin[] = [];
  const load = async (path: string, origin: "user" | "project" | "flag" | "enabledPlugins", key?: string, via?: string) => {
    try {
      if (origin === "enabledPlugins" || (isDir(path) && isClaudePluginDir(path))) {
        user.push({ kind: "claude", origin, path, info: { ...readClaudePlugin(path, dataRoot, key), ...(via ? { resolvedVia: via } : {}) } });
        return;
      }
      const file = isDir(path) ? TS_ENTRY.map((e) => join(path, e)).find(existsSync) : path;
      if (!file) throw new Error("no index.ts, index.js or .claude-plugin/plugin.json in this folder");
      user.push({ kind: "yoke", origin, path: file, plugin: await importPlugin(file) });
    } catch (err) {
      errors.push({ path, message: (err as Error).message });
    }
  };
  for (const p of entriesIn(join(o.yokeDir, "plugins"))) await load(p, "user");
  for (const p of entriesIn(join(o.cwd, ".yoke", "plugins"))) {
    if (o.projectTrusted === false) skipped.push({ name: basename(p), kind: "yoke", origin: "project", path: p, reason: "this folder is not trusted (yoke trust)" });
    else await load(p, "project");
  }
  for (const d of o.pluginDirs) {
    const abs = resolve(o.cwd, d);
    if (!isDir(abs)) errors.push({ path: abs, message: "--plugin-dir: no such folder" });
    else if (isClaudePluginDir(abs) || TS_ENTRY.some((e) => existsSync(join(abs, e)))) await load(abs, "flag");
    else for (const p of entriesIn(abs)) await load(p, "flag");
  }
  for (const [key, on] of Object.entries(o.settings.enabledPlugins ?? {})) {
    if (on !== true) continue;
    const found = findInstalledPlugin(key, o.claudeDir, o.cwd);
    if (!found.root)
      errors.push({ path: key, message: `enabledPlugins: ${key} is not installed under ${join(o.claudeDir, "plugins")}${found.notes.length ? ` (${found.notes.join("; ")})` : ""}` });
    else await load(found.root, "enabledPlugins", key, found.via);
  }
  const nameOf = (p: LoadedPlugin) => (p.kind === "yoke" ? p.plugin.name : p.info.name);
  const taken = new Set(user.map(nameOf));
  for (const b of o.bundled.filter((b) => taken.has(b.name))) {
    const by = user.find((u) => nameOf(u) === b.name)!;
    skipped.push({ name: b.name, version: b.version, kind: "yoke", origin: "bundled", path: `(built in) plugins/${b.name}`, reason: `replaced by ${by.path}` });
  }
  const all: LoadedPlugin[] = [
    ...o.bundled.filter((b) => !taken.has(b.name)).map((plugin) => ({ kind: "yoke" as const, origin: "bundled" as const, path: `(built in) plugins/${plugin.name}`, plugin })),
    ...user,
  ];
  const plugins = all.filter((p) => {
    const why = disabledReason(nameOf(p), o.settings, o.env);
    if (why)
      skipped.push({ name: nameOf(p), version: p.kind === "yoke" ? p.plugin.version : p.info.version, kind: p.kind, origin: p.origin, path: p.path, reason: `disabled: ${why}` });
    return !why;
  });
  return { plugins, errors, skipped };
}
