import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { LoadedSettings, SettingsLevel } from "../../src/config/load.ts";
import type { Settings } from "../../src/config/schema.ts";
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
