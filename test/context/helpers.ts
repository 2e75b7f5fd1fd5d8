import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { LoadedSettings, SettingsLevel } from "../../src/config/load.ts";
import type { Settings } from "../../src/config/schema.ts";
import { tempDir } from "../helpers/tmp.ts";

/** A fresh real temp dir (symlinks resolved, so paths compare equal). */
export const tempRoot = (): string => tempDir("yoke-context-");

/** Writes files given as { "rel/path": "content" } under root. */
export function writeTree(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    const p = join(root, rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, text);
  }
}

/** An env whose user, managed and yoke dirs are all inside root. */
export const envFor = (root: string): Record<string, string> => ({
  HOME: join(root, "home"),
  CLAUDE_CONFIG_DIR: join(root, "home", ".claude"),
  YOKE_CONFIG_DIR: join(root, "home", ".yoke"),
  YOKE_MANAGED_DIR: join(root, "managed"),
});

export function settingsOf(...sources: Array<{ level: SettingsLevel; settings: Settings; path?: string }>): LoadedSettings {
  let merged: Settings = {};
  for (const s of sources) merged = { ...merged, ...s.settings };
  return {
    merged,
    sources: sources.map((s) => ({ level: s.level, path: s.path ?? `/${s.level}/settings.json`, ruleRoot: "/", settings: s.settings })),
  };
}

export const noSettings = (): LoadedSettings => ({ merged: {}, sources: [] });
