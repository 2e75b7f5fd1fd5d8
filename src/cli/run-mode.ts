import type { LoadedSettings } from "../config/load.ts";
import { autoModeDisabledBy, bypassDisabledBy, checkModeAllowed, modeFromSettings } from "../permission/modes.ts";
import { PERMISSION_MODES, type PermissionMode } from "../permission/types.ts";
import { trustNotice } from "../trust/workspace.ts";
import { writeErr } from "../util/output.ts";
import type { ParsedArgs } from "./args.ts";
import { UsageError } from "./args.ts";
import { gatedSettings } from "./settings-args.ts";

// The run's settings and starting permission mode, read before its MCP servers are spawned (run-prelude.ts): a module
// that loads none of the permission engine. permission-wiring.ts re-exports it.

const flagStr = (a: ParsedArgs, k: string) => (typeof a.flags[k] === "string" ? (a.flags[k] as string) : undefined);

/** `--permission-mode` and friends. Throws UsageError naming `where` for an unknown mode. */
export function parsePermissionMode(raw: string | undefined, where: string): PermissionMode | undefined {
  if (raw === undefined) return undefined;
  const m = raw === "manual" ? "default" : raw;
  if (!(PERMISSION_MODES as readonly string[]).includes(m))
    throw new UsageError(`error: ${where} must be one of ${PERMISSION_MODES.join(", ")} (got '${raw}')`);
  return m as PermissionMode;
}

/**
 * Every settings level as `--settings` / `--setting-sources` ask, gated by workspace trust (src/trust): an
 * untrusted folder's own settings only tighten. Throws SettingsError naming the file and field.
 */
export function loadSettingsFromArgs(args: ParsedArgs, cwd: string): LoadedSettings {
  const gated = gatedSettings(args, cwd);
  // Said once, by every command that reads settings (a run, permissions explain, hooks list ...).
  const notice = trustNotice(gated.trust);
  if (notice) writeErr(`${notice}\n`);
  return gated;
}

/**
 * The starting mode: flag, then the resumed session's, then the trusted settings' `defaultMode`
 * (escalating modes from committed project settings are ignored, contracts §2.2), else `default`.
 * `--dangerously-skip-permissions` wins. Throws UsageError for an unknown mode name.
 */
export function resolvePermissionMode(args: ParsedArgs, settings: LoadedSettings, restored?: string): PermissionMode {
  let mode =
    parsePermissionMode(flagStr(args, "permission-mode"), "--permission-mode") ??
    // Resume restores the mode except plan and bypassPermissions (contracts §3.3).
    parsePermissionMode(restored === "plan" || restored === "bypassPermissions" ? undefined : restored, "the resumed session's mode") ??
    modeFromSettings(settings) ??
    "default";
  if (args.flags["dangerously-skip-permissions"]) mode = "bypassPermissions";
  return mode;
}

/** Why this mode may not start here (bypass as root outside a sandbox, or disabled by settings), or null. Pure. */
export function modeProblem(mode: PermissionMode, settings: LoadedSettings, env: Record<string, string | undefined>): string | null {
  if (mode === "auto" && autoModeDisabledBy(settings)) return "auto mode is disabled by settings (permissions.disableAutoMode).";
  return checkModeAllowed(mode, { uid: process.getuid?.() ?? 1000, env, disableBypass: bypassDisabledBy(settings) });
}
