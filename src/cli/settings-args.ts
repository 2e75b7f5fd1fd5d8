import { loadSettings, type LoadedSettings, type SettingsLevel } from "../config/load.ts";
import { applyWorkspaceTrust } from "../trust/workspace.ts";
import type { ParsedArgs } from "./args.ts";

/** `--setting-sources user,project,local` (`""`: none, as the Agent SDK's `settingSources: []` sends it); undefined: all. */
export function settingSourcesOf(args: ParsedArgs): SettingsLevel[] | undefined {
  const sources = typeof args.flags["setting-sources"] === "string" ? (args.flags["setting-sources"] as string) : undefined;
  return sources !== undefined ? (sources.split(",").map((s) => s.trim()).filter(Boolean) as SettingsLevel[]) : undefined;
}

/**
 * Every settings level as `--settings` / `--setting-sources` ask, gated by workspace trust (src/trust), saying
 * nothing: the run's loader (permission-wiring.ts) says the trust notice. Throws SettingsError naming the file and
 * field.
 */
export function gatedSettings(args: ParsedArgs, cwd: string): LoadedSettings {
  const flagSettings = typeof args.flags.settings === "string" ? (args.flags.settings as string) : undefined;
  const loaded = loadSettings({ cwd, flagSettings, settingSources: settingSourcesOf(args) });
  return applyWorkspaceTrust(loaded, { cwd, env: process.env, flag: !!args.flags["trust-workspace"] });
}
