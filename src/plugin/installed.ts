import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";

/**
 * Where an `enabledPlugins` key (`name@marketplace`) lives on disk, resolved as Claude Code resolves it
 * (issue 14 point 3): a plugin of a local-directory marketplace loads from that directory (so its own relative
 * imports resolve); otherwise the `installPath` recorded in `~/.claude/plugins/installed_plugins.json`, the newest
 * version first in semver order (0.10.0 is newer than 0.9.0); otherwise the newest version folder in the cache.
 * Never throws: unreadable files are skipped and said in `notes`.
 */
export type InstalledLookup = { root: string | null; via: string; notes: string[] };

const isDir = (p: string) => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};

const readJson = (file: string, notes: string[]): unknown => {
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    notes.push(`${file}: ${(e as Error).message}; ignored`);
    return undefined;
  }
};

const isSemver = (v: string) => /^v?\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]*)?$/.test(v);

/** Newest first: valid semver versions by semver order, then anything else (commit hashes) by the order given. Pure. */
export function newestFirst<T>(items: T[], version: (t: T) => string | undefined): T[] {
  return items
    .map((t, i) => ({ t, i, v: (version(t) ?? "").replace(/^v/, "") }))
    .sort((a, b) => {
      const sa = isSemver(a.v);
      const sb = isSemver(b.v);
      if (sa && sb) return Bun.semver.order(b.v, a.v) || a.i - b.i;
      if (sa !== sb) return sa ? -1 : 1;
      return a.i - b.i;
    })
    .map((x) => x.t);
}

type InstalledEntry = { installPath?: unknown; version?: unknown; projectPath?: unknown; scope?: unknown };

/** The plugin's folder inside a local-directory marketplace, if `market` is one and lists `name`. */
function fromDirectoryMarketplace(name: string, market: string, claudeDir: string, notes: string[]): string | null {
  const known = readJson(join(claudeDir, "plugins", "known_marketplaces.json"), notes) as Record<string, { source?: { source?: string; path?: string } }> | undefined;
  const src = known?.[market]?.source;
  if (!src || src.source !== "directory" || typeof src.path !== "string") return null;
  const dir = src.path;
  const mf = readJson(join(dir, ".claude-plugin", "marketplace.json"), notes) as { plugins?: Array<{ name?: string; source?: unknown }> } | undefined;
  const entry = mf?.plugins?.find((p) => p?.name === name);
  if (!entry) return null;
  // Only a relative source lives inside the directory; a github/npm source was fetched into the cache.
  if (typeof entry.source !== "string") return null;
  const root = resolve(dir, entry.source);
  return isDir(root) ? root : null;
}

export function findInstalledPlugin(key: string, claudeDir: string, cwd?: string): InstalledLookup {
  const notes: string[] = [];
  const at = key.lastIndexOf("@");
  const name = at > 0 ? key.slice(0, at) : key;
  const market = at > 0 ? key.slice(at + 1) : "";
  if (!name) return { root: null, via: "", notes };
  if (market) {
    const local = fromDirectoryMarketplace(name, market, claudeDir, notes);
    if (local) return { root: local, via: "local-directory marketplace", notes };
  }
  const registry = readJson(join(claudeDir, "plugins", "installed_plugins.json"), notes) as { plugins?: Record<string, InstalledEntry[]> } | undefined;
  const raw = registry?.plugins?.[key];
  const entries = (Array.isArray(raw) ? raw : raw ? [raw as InstalledEntry] : []).filter(
    // A project-scoped install counts only in its own project.
    (e) => typeof e?.installPath === "string" && (e.scope !== "project" && e.scope !== "local" ? true : !cwd || e.projectPath === cwd),
  );
  for (const e of newestFirst(entries, (x) => (typeof x.version === "string" ? x.version : undefined))) {
    const p = e.installPath as string;
    if (isDir(p)) return { root: p, via: "installed_plugins.json", notes };
    notes.push(`installed_plugins.json: ${key} ${String(e.version ?? "")} points at ${p}, which does not exist`);
  }
  const bases = [join(claudeDir, "plugins", "cache", market, name), join(claudeDir, "plugins", "marketplaces", market, "plugins", name)];
  for (const b of bases) {
    if (!isDir(b)) continue;
    if (existsSync(join(b, ".claude-plugin", "plugin.json")) || existsSync(join(b, "hooks", "hooks.json"))) return { root: b, via: "plugin cache", notes };
    // cache/<market>/<name>/<version>/
    let versions: string[] = [];
    try {
      versions = readdirSync(b).filter((v) => isDir(join(b, v)));
    } catch {}
    const v = newestFirst(versions.sort(), (x) => x)[0];
    if (v) return { root: join(b, v), via: "plugin cache", notes };
  }
  return { root: null, via: "", notes };
}
