/**
 * Workspace trust (issue 16 points 10 and 11): whether the folder yoke runs in may apply what it ships
 * (its settings' allow rules, additional directories, env, hooks, apiKeyHelper; `.mcp.json`; its plugins),
 * and the settings view that follows. User, `--settings` and managed settings always apply; a project's deny
 * and ask rules always apply. A folder is trusted by `yoke trust` (pinned to the manifest's hashes, so a
 * changed hook script untrusts it again and is named), by `--trust-workspace` or `YOKE_TRUST_WORKSPACE=1`
 * for one run (CI), or, once there is a terminal mode, by its prompt (`trustFolder` below is the seam).
 */
import { existsSync, readdirSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { relative, sep } from "node:path";
import { type LoadedSettings, loadSettings, mergeSettings, type SettingsSource } from "../config/load.ts";
import type { Settings } from "../config/schema.ts";
import { collectManifest, diffManifest, type ManifestChange, type ManifestEntry, PROJECT_MCP_FILE, PROJECT_PLUGINS_DIR } from "./manifest.ts";
import { untrustedView } from "./gate.ts";
import { readTrustStore, recordTrust, trustKey, trustStorePath } from "./store.ts";

export type TrustVia = "yoke trust" | "--trust-workspace" | "YOKE_TRUST_WORKSPACE";

export type WorkspaceTrust = {
  /** The folder, symlinks resolved. */
  folder: string;
  trusted: boolean;
  via?: TrustVia;
  /** Pinned files that differ now (trust withdrawn until `yoke trust` again). */
  changed: ManifestChange[];
  /** Per project settings file, the keys not applied because the folder is not trusted. */
  ignored: Array<{ path: string; keys: string[] }>;
  /** Other things the folder ships that do not run untrusted (`.mcp.json`, `.yoke/plugins/x`). */
  withheld: string[];
  /** The trust store could not be read (the folder counts as untrusted). */
  storeError?: string;
};

const TRUTHY = new Set(["1", "true", "yes", "on"]);

/** The project-level sources the gate governs: the folder's own settings files, unless they are the user's own (cwd = ~). */
function gatedSources(sources: SettingsSource[]): SettingsSource[] {
  const real = (p: string) => {
    try {
      return realpathSync(p);
    } catch {
      return p;
    }
  };
  const userFiles = new Set(sources.filter((s) => s.level !== "project" && s.level !== "local").map((s) => real(s.path)));
  return sources.filter((s) => (s.level === "project" || s.level === "local") && !userFiles.has(real(s.path)));
}

/** What the folder ships besides settings that waits for trust. Never throws. */
function shippedExtras(folder: string): string[] {
  const out: string[] = [];
  if (existsSync(join(folder, PROJECT_MCP_FILE))) out.push(`MCP servers in ${PROJECT_MCP_FILE}`);
  try {
    for (const n of readdirSync(join(folder, PROJECT_PLUGINS_DIR)).sort()) if (!n.startsWith(".")) out.push(`plugin ${PROJECT_PLUGINS_DIR}/${n}`);
  } catch {}
  return out;
}

/** The manifest of a folder as loaded settings see it (project and local settings name the hook scripts). */
export function manifestOf(folder: string, loaded: LoadedSettings): ManifestEntry[] {
  return collectManifest(folder, gatedSources(loaded.sources).map((s) => s.settings));
}

/**
 * Decides trust for `cwd` and returns the settings that apply, with `trust` attached. Never throws: a broken
 * trust store leaves the folder untrusted and says why in `storeError`.
 * `env` is the environment yoke started with (never settings `env`).
 */
export function applyWorkspaceTrust(
  loaded: LoadedSettings,
  o: { cwd: string; env: Record<string, string | undefined>; flag?: boolean },
): LoadedSettings {
  const folder = trustKey(o.cwd);
  const trust: WorkspaceTrust = { folder, trusted: false, changed: [], ignored: [], withheld: [] };
  if (o.flag) Object.assign(trust, { trusted: true, via: "--trust-workspace" });
  else if (TRUTHY.has((o.env.YOKE_TRUST_WORKSPACE ?? "").toLowerCase())) Object.assign(trust, { trusted: true, via: "YOKE_TRUST_WORKSPACE" });
  else {
    try {
      const rec = readTrustStore(trustStorePath(o.env)).folders[folder];
      if (rec) {
        trust.changed = diffManifest(rec.files, manifestOf(folder, loaded));
        if (trust.changed.length === 0) Object.assign(trust, { trusted: true, via: "yoke trust" });
      }
    } catch (e) {
      trust.storeError = (e as Error).message;
    }
  }
  if (trust.trusted) return { ...loaded, trust };
  const gated = new Set(gatedSources(loaded.sources));
  const sources = loaded.sources.map((s) => {
    if (!gated.has(s)) return s;
    const v = untrustedView(s.settings);
    if (v.dropped.length) trust.ignored.push({ path: s.path, keys: v.dropped });
    return { ...s, settings: v.settings, untrusted: true as const };
  });
  trust.withheld = shippedExtras(folder);
  let merged: Record<string, unknown> = {};
  for (const s of sources) merged = mergeSettings(merged, s.settings as Record<string, unknown>);
  return { merged: merged as Settings, sources, trust };
}

/**
 * Whether what the folder ships (project hooks, `.mcp.json` servers, project plugins) may run. Settings that
 * did not go through applyWorkspaceTrust (library use, unit tests) carry no verdict and count as trusted.
 */
export function isProjectTrusted(settings: LoadedSettings): boolean {
  return settings.trust ? settings.trust.trusted : true;
}

/** The one stderr notice for an untrusted folder that ships something, or undefined when there is nothing to say. Pure. */
export function trustNotice(t: WorkspaceTrust | undefined): string | undefined {
  if (!t || t.trusted) return undefined;
  const lines: string[] = [];
  if (t.storeError) lines.push(`yoke: cannot read the trust store, so no folder is trusted: ${t.storeError}`);
  const held = [...t.ignored.map((i) => `${i.path}: ${i.keys.join(", ")}`), ...t.withheld];
  if (t.changed.length) {
    const what = t.changed.map((c) => `${c.path} (${c.change})`).join(", ");
    lines.push(`yoke: ${t.folder} is no longer trusted: these files changed since \`yoke trust\`: ${what}. Review them, then run \`yoke trust\` again.`);
  }
  if (held.length) {
    if (!t.changed.length) lines.push(`yoke: ${t.folder} is not trusted, so what it ships does not apply (its deny and ask rules do).`);
    lines.push(`yoke: not applied: ${held.join("; ")}`);
    if (!t.changed.length) lines.push("yoke: run `yoke trust` to trust this folder, or pass --trust-workspace (YOKE_TRUST_WORKSPACE=1) for one run.");
  }
  return lines.length ? lines.join("\n") : undefined;
}

/** The `system/init` field (yoke's own; Claude Code's consumers ignore unknown keys, contracts §4.4). Pure. */
export function trustInitField(t: WorkspaceTrust | undefined): Record<string, unknown> | undefined {
  if (!t) return undefined;
  return {
    folder: t.folder,
    trusted: t.trusted,
    ...(t.via ? { via: t.via } : {}),
    ignored: t.ignored,
    withheld: t.withheld,
    changed: t.changed,
  };
}

/**
 * After yoke itself rewrote one of a trusted folder's pinned files on the user's say-so (an "always allow" rule
 * saved to `.claude/settings.local.json`, `yoke mcp add --scope project`), pins the new content so the user's
 * own action does not untrust the folder. Only when every other pinned file still matches; an untrusted
 * folder stays untrusted. Returns whether it re-pinned. Never throws.
 */
export function repinOwnWrite(folder: string, file: string, env: Record<string, string | undefined> = process.env): boolean {
  try {
    const key = trustKey(folder);
    const path = trustStorePath(env);
    const rec = readTrustStore(path).folders[key];
    if (!rec) return false;
    const current = manifestOf(key, loadSettings({ cwd: key, settingSources: ["project", "local"], env }));
    const rel = relative(key, trustKey(file)).split(sep).join("/");
    const diff = diffManifest(rec.files, current);
    if (!diff.length || !diff.every((c) => c.path === rel)) return false;
    recordTrust(path, key, current);
    return true;
  } catch {
    return false;
  }
}

/**
 * Trusts a folder with its current content (what `yoke trust` and, later, the terminal's trust prompt call).
 * Returns the pinned manifest. Throws TrustStoreError naming the store file.
 */
export function trustFolder(folder: string, loaded: LoadedSettings, env: Record<string, string | undefined>): ManifestEntry[] {
  const files = manifestOf(trustKey(folder), loaded);
  recordTrust(trustStorePath(env), folder, files);
  return files;
}
