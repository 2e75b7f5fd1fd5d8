import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parseJsonWithLocation } from "../util/json-error.ts";
import { claudeUserDir, managedDir } from "./paths.ts";
import type { Settings } from "./schema.ts";
import { checkJson, type JsonSchemaNode, NOT_SURE } from "../util/json-check.ts";
import SETTINGS_JSON_SCHEMA from "./settings-schema.json" with { type: "json" };
import type { WorkspaceTrust } from "../trust/workspace.ts";

export type SettingsLevel = "user" | "project" | "local" | "flag" | "managed";

export type SettingsSource = {
  level: SettingsLevel;
  /** File path, or `--settings` for inline JSON. */
  path: string;
  /** The folder `/x` permission rules are relative to (contracts §3.1). */
  ruleRoot: string;
  settings: Settings;
  /** Set when the folder is not trusted: `settings` is then only the part that tightens (src/trust/gate.ts). */
  untrusted?: true;
};

export type LoadedSettings = {
  /** Merged view, lowest precedence first folded in (user < project < local < flag < managed). */
  merged: Settings;
  /** Every file that contributed, lowest precedence first. */
  sources: SettingsSource[];
  /**
   * The workspace-trust verdict (src/trust/workspace.ts), set by the CLI's loader. Code that runs what a
   * project ships (`.mcp.json` servers, project plugins and hooks) asks `isProjectTrusted(settings)`.
   */
  trust?: WorkspaceTrust;
};

export class SettingsError extends Error {}

const pathOf = (issuePath: PropertyKey[]) => issuePath.map(String).join(".") || "(top level)";

export function parseSettingsText(text: string, label: string): Settings {
  let raw: unknown;
  try {
    raw = parseJsonWithLocation(text, label);
  } catch (e) {
    throw new SettingsError((e as Error).message);
  }
  if (raw === null || typeof raw !== "object" || Array.isArray(raw))
    throw new SettingsError(`${label}: settings must be a JSON object`);
  // A plainly right file is taken as read: what zod's own JSON Schema of the settings accepts, zod accepts unchanged
  // (test/config/check-schemas.test.ts). zod, loaded here on first need, checks the rest and names the field.
  const sure = checkJson(SETTINGS_JSON_SCHEMA as JsonSchemaNode, raw);
  if (sure !== NOT_SURE) return sure as Settings;
  const { settingsSchema } = require("./schema.ts") as typeof import("./schema.ts");
  const r = settingsSchema.safeParse(raw);
  if (!r.success) {
    const lines = r.error.issues.map((i) => `  field "${pathOf(i.path)}": ${i.message}`);
    throw new SettingsError(`${label}: invalid settings\n${lines.join("\n")}`);
  }
  return r.data;
}

function readSettingsFile(path: string): Settings | null {
  if (!existsSync(path)) return null;
  return parseSettingsText(readFileSync(path, "utf8"), path);
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** Claude Code's merge: scalars replaced, objects merged key by key, arrays concatenated without duplicates. */
export function mergeSettings(low: Record<string, unknown>, high: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...low };
  for (const [k, v] of Object.entries(high)) {
    const prev = out[k];
    if (k === "fallbackModel") out[k] = v;
    else if (Array.isArray(prev) && Array.isArray(v)) {
      const seen = new Set(prev.map((x) => JSON.stringify(x)));
      out[k] = [...prev, ...v.filter((x) => !seen.has(JSON.stringify(x)))];
    } else if (isPlainObject(prev) && isPlainObject(v)) out[k] = mergeSettings(prev, v);
    else out[k] = v;
  }
  return out;
}

export type LoadOptions = {
  cwd: string;
  /** `--settings FILE|JSON`. */
  flagSettings?: string;
  /** `--setting-sources user,project,local`. */
  settingSources?: SettingsLevel[];
  env?: NodeJS.ProcessEnv;
};

function addFlagSettings(f: string, label: string, cwd: string, add: (level: SettingsLevel, path: string, ruleRoot: string, settings: Settings | null) => void) {
  if (f.startsWith("{")) return add("flag", label, cwd, parseSettingsText(f, label));
  const p = resolve(cwd, f);
  if (!existsSync(p)) throw new SettingsError(`${label}: file not found: ${p}`);
  add("flag", p, dirname(p), readSettingsFile(p));
}

/** Reads every settings level. Throws SettingsError naming the file and field for an invalid file. */
export function loadSettings(opts: LoadOptions): LoadedSettings {
  const env = opts.env ?? process.env;
  const allowed = new Set(opts.settingSources ?? ["user", "project", "local"]);
  const sources: SettingsSource[] = [];
  const add = (level: SettingsLevel, path: string, ruleRoot: string, settings: Settings | null) => {
    if (settings) sources.push({ level, path, ruleRoot, settings });
  };
  const userDir = claudeUserDir(env);
  if (allowed.has("user")) add("user", join(userDir, "settings.json"), userDir, readSettingsFile(join(userDir, "settings.json")));
  if (allowed.has("project")) {
    const p = join(opts.cwd, ".claude", "settings.json");
    add("project", p, opts.cwd, readSettingsFile(p));
  }
  if (allowed.has("local")) {
    const p = join(opts.cwd, ".claude", "settings.local.json");
    add("local", p, opts.cwd, readSettingsFile(p));
  }
  // Containers are configured by environment alone: YOKE_SETTINGS (JSON or a file) reads as --settings, below it.
  const fromEnv = env.YOKE_SETTINGS?.trim();
  if (fromEnv) addFlagSettings(fromEnv, "YOKE_SETTINGS", opts.cwd, add);
  if (opts.flagSettings !== undefined) addFlagSettings(opts.flagSettings.trim(), "--settings", opts.cwd, add);
  const mdir = managedDir(env);
  const managed = join(mdir, "managed-settings.json");
  add("managed", managed, mdir, readSettingsFile(managed));
  const dropins = join(mdir, "managed-settings.d");
  if (existsSync(dropins)) {
    for (const name of readdirSync(dropins).sort()) {
      if (name.startsWith(".") || !name.endsWith(".json")) continue;
      add("managed", join(dropins, name), mdir, readSettingsFile(join(dropins, name)));
    }
  }
  let merged: Record<string, unknown> = {};
  for (const s of sources) merged = mergeSettings(merged, s.settings as Record<string, unknown>);
  return { merged: merged as Settings, sources };
}
