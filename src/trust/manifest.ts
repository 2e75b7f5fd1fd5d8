/**
 * What a folder ships that trust covers, pinned by content (issue 16 point 11): its settings files,
 * `.mcp.json`, every hook script its settings name, everything under `.claude/hooks/`, and every file of its
 * plugins (`.yoke/plugins/`). `yoke trust` records this list; a run compares it with the folder as it is now.
 */
import { sha256Hex } from "../util/random.ts";
import { existsSync, lstatSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import type { Settings } from "../config/schema.ts";

export type ManifestKind = "settings" | "mcp" | "hook-script" | "plugin";
/** One pinned file: its path relative to the folder (posix separators) and sha256 of its bytes. */
export type ManifestEntry = { path: string; kind: ManifestKind; sha256: string };

/** Files and folders a project ships, relative to its root. */
export const PROJECT_SETTINGS_FILES = [".claude/settings.json", ".claude/settings.local.json"];
export const PROJECT_MCP_FILE = ".mcp.json";
export const PROJECT_HOOKS_DIR = ".claude/hooks";
export const PROJECT_PLUGINS_DIR = ".yoke/plugins";

/** A folder tree bigger than this is pinned by the list of its first files plus a marker, never read without end. */
const MAX_FILES = 5000;

const sha256 = sha256Hex;
const posix = (p: string) => p.split(sep).join("/");

function hashFile(abs: string): string | undefined {
  try {
    const st = lstatSync(abs);
    // A symlink is pinned by where it points: retargeting it is a change.
    if (st.isSymbolicLink()) return sha256(`symlink:${realpathOr(abs)}:${hashFile(realpathOr(abs)) ?? "missing"}`);
    if (!st.isFile()) return undefined;
    return sha256(readFileSync(abs));
  } catch {
    return undefined;
  }
}

function realpathOr(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

function walk(dir: string, out: string[], budget: { n: number }): void {
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return;
  }
  for (const n of names) {
    if (budget.n-- <= 0) return;
    const abs = join(dir, n);
    let st;
    try {
      st = lstatSync(abs);
    } catch {
      continue;
    }
    if (st.isDirectory()) walk(abs, out, budget);
    else out.push(abs);
  }
}

const inside = (root: string, abs: string) => {
  const rel = relative(root, abs);
  return rel !== "" && !rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel);
};

/** Words of a hook command that name an existing file inside the folder (`./x.sh`, `$CLAUDE_PROJECT_DIR/.claude/hooks/x.py`). */
export function hookScriptPaths(command: string, args: string[] | undefined, root: string): string[] {
  const expanded = [command, ...(args ?? [])]
    .join(" ")
    .replace(/\$\{CLAUDE_PROJECT_DIR\}|\$CLAUDE_PROJECT_DIR\b/g, root)
    .replace(/\$\{CLAUDE_PLUGIN_ROOT\}|\$CLAUDE_PLUGIN_ROOT\b/g, "\0");
  // Quotes are removed first so `"$CLAUDE_PROJECT_DIR"/x.sh` stays one word.
  const words = expanded.replace(/["']/g, "").split(/[\s`;|&()<>=]+/).filter((w) => w && !w.includes("\0"));
  const out: string[] = [];
  for (const w of words) {
    const abs = resolve(root, w);
    if (!inside(root, abs)) continue;
    try {
      if (statSync(abs).isFile()) out.push(abs);
    } catch {}
  }
  return out;
}

/** Hook commands of the project's own settings files (command and args). */
function hookCommands(settings: Settings[]): Array<{ command: string; args?: string[] }> {
  const out: Array<{ command: string; args?: string[] }> = [];
  for (const s of settings)
    for (const groups of Object.values(s.hooks ?? {}))
      for (const g of groups) for (const h of g.hooks) if (typeof h.command === "string") out.push({ command: h.command, args: h.args });
  return out;
}

/**
 * The folder's manifest, sorted by path. `settings` are the parsed project and local settings (their hook
 * commands name the scripts to pin). Never throws: unreadable files are left out, and a missing file
 * that was pinned shows up as removed when compared.
 */
export function collectManifest(folder: string, settings: Settings[]): ManifestEntry[] {
  const root = realpathOr(folder);
  const found = new Map<string, ManifestKind>();
  for (const f of PROJECT_SETTINGS_FILES) if (existsSync(join(root, f))) found.set(join(root, f), "settings");
  if (existsSync(join(root, PROJECT_MCP_FILE))) found.set(join(root, PROJECT_MCP_FILE), "mcp");
  const budget = { n: MAX_FILES };
  const hooksDir: string[] = [];
  walk(join(root, PROJECT_HOOKS_DIR), hooksDir, budget);
  for (const h of hookCommands(settings)) for (const p of hookScriptPaths(h.command, h.args, root)) hooksDir.push(p);
  for (const p of hooksDir) if (!found.has(p)) found.set(p, "hook-script");
  const plugins: string[] = [];
  walk(join(root, PROJECT_PLUGINS_DIR), plugins, budget);
  for (const p of plugins) if (!found.has(p)) found.set(p, "plugin");
  const entries: ManifestEntry[] = [];
  for (const [abs, kind] of found) {
    const h = hashFile(abs);
    if (h) entries.push({ path: posix(relative(root, abs)), kind, sha256: h });
  }
  // Past the budget the tree is not fully pinned; the marker makes any such folder differ from a pinned one.
  if (budget.n <= 0) entries.push({ path: `(more than ${MAX_FILES} files)`, kind: "plugin", sha256: "unpinned" });
  return entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

export type ManifestChange = { path: string; kind: ManifestKind; change: "changed" | "added" | "removed" };

/** What differs between a pinned manifest and the current one. Pure. */
export function diffManifest(pinned: ManifestEntry[], current: ManifestEntry[]): ManifestChange[] {
  const before = new Map(pinned.map((e) => [e.path, e]));
  const now = new Map(current.map((e) => [e.path, e]));
  const out: ManifestChange[] = [];
  for (const e of current) {
    const b = before.get(e.path);
    if (!b) out.push({ path: e.path, kind: e.kind, change: "added" });
    else if (b.sha256 !== e.sha256) out.push({ path: e.path, kind: e.kind, change: "changed" });
  }
  for (const e of pinned) if (!now.has(e.path)) out.push({ path: e.path, kind: e.kind, change: "removed" });
  return out.sort((a, b) => (a.path < b.path ? -1 : 1));
}
