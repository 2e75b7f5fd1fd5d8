import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { LoadedSettings, SettingsLevel } from "../../src/config/load.ts";
import type { Settings } from "../../src/config/schema.ts";
import { createPermissionEvaluator } from "../../src/permission/index.ts";
import type { PermissionMode } from "../../src/permission/types.ts";
import { tempDir } from "../helpers/tmp.ts";

export type Perms = NonNullable<Settings["permissions"]>;

/** LoadedSettings with one source per entry, as loadSettings would build them. */
export function settingsOf(...entries: { level?: SettingsLevel; path?: string; ruleRoot: string; permissions: Perms }[]): LoadedSettings {
  const sources = entries.map((e, i) => ({
    level: e.level ?? "project",
    path: e.path ?? join(e.ruleRoot, ".claude", i ? `settings-${i}.json` : "settings.json"),
    ruleRoot: e.ruleRoot,
    settings: { permissions: e.permissions },
  }));
  return { merged: {}, sources };
}

/** A temp root with home/ and proj/ (realpath'd), removed by the returned cleanup. */
export function tempProject(prefix: string) {
  const root = tempDir(prefix);
  const home = join(root, "home");
  const cwd = join(root, "proj");
  mkdirSync(home, { recursive: true });
  mkdirSync(cwd, { recursive: true });
  return { root, home, cwd, env: { HOME: home }, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

/** Writes `files` ({ "rel/path": content }) under root, making folders as needed. */
export function writeFiles(root: string, files: Record<string, string>): void {
  for (const [f, c] of Object.entries(files)) {
    mkdirSync(join(root, f, ".."), { recursive: true });
    writeFileSync(join(root, f), c);
  }
}

/** The permission evaluator's decision on a Bash command in project `t`, under `rules` unless a call gives its own. */
export function bashDecider(t: { cwd: string; env: Record<string, string> }, rules: Perms) {
  return (command: string, o: { perms?: Perms; mode?: PermissionMode; env?: Record<string, string>; cwd?: string } = {}) =>
    createPermissionEvaluator({ settings: settingsOf({ ruleRoot: t.cwd, permissions: o.perms ?? rules }), cwd: t.cwd, mode: o.mode, env: { ...t.env, ...o.env } }).decide({
      toolName: "Bash",
      input: { command },
      readOnly: false,
      cwd: o.cwd ?? t.cwd,
    });
}
