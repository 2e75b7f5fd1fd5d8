import type { LoadedSettings } from "../config/load.ts";
import type { PermissionDecision, PermissionMode } from "./types.ts";

/**
 * Whether a mode may start. Returns null when it may, else a message for the user. Never throws.
 * bypassPermissions as root is refused outside a sandbox (contracts §3.3); IS_SANDBOX=1 declares one.
 */
export function checkModeAllowed(mode: PermissionMode, ctx: { uid: number; env: Record<string, string | undefined>; disableBypass?: boolean }): string | null {
  if (mode !== "bypassPermissions") return null;
  if (ctx.disableBypass) return "bypassPermissions mode is disabled by settings (permissions.disableBypassPermissionsMode).";
  if (ctx.uid === 0 && ctx.env.IS_SANDBOX !== "1")
    return "bypassPermissions mode cannot be used as root outside a sandbox. Run as a normal user, or set IS_SANDBOX=1 if this is an isolated container.";
  return null;
}

/**
 * Headless runs never wait: an `ask` becomes a deny whose reason tells the model nobody was there to approve
 * (contracts §3.4). `denyInsteadOfPrompting` changes only the wording. Pure; never throws.
 */
export function resolveHeadless(decision: PermissionDecision, opts: { denyInsteadOfPrompting?: boolean } = {}): PermissionDecision {
  if (decision.behavior !== "ask") return decision;
  const why = decision.rule ? ` (rule ${decision.rule.text} from ${decision.rule.source.file}[${decision.rule.source.index}])` : "";
  const lead = opts.denyInsteadOfPrompting
    ? "Denied without prompting (permissions.denyInsteadOfPrompting)"
    : "This action needs the user's approval, but no user is present in this non-interactive run, so it was denied";
  return {
    behavior: "deny",
    reason: `${lead}${why}. ${decision.reason} Do not retry the same action; find another way that the current permissions allow, or explain what you need approved.`,
    rule: decision.rule,
  };
}

const TRUSTED_LEVELS = new Set(["user", "flag", "managed"]);

/** `permissions.denyInsteadOfPrompting`, honoured from user, flag and managed settings only (contracts §2.2). Pure. */
export function denyInsteadOfPromptingFrom(settings: LoadedSettings): boolean {
  let v = false;
  for (const s of settings.sources) {
    const d = s.settings.permissions?.denyInsteadOfPrompting;
    if (d !== undefined && TRUSTED_LEVELS.has(s.level)) v = d;
  }
  return v;
}

/** True when any settings file sets `permissions.disableBypassPermissionsMode: "disable"`. Pure. */
export function bypassDisabledBy(settings: LoadedSettings): boolean {
  return settings.sources.some((s) => s.settings.permissions?.disableBypassPermissionsMode === "disable");
}

/** `permissions.defaultMode` from the settings levels trusted to set it (contracts §2.2), or undefined. Pure. */
export function modeFromSettings(settings: LoadedSettings): PermissionMode | undefined {
  let mode: PermissionMode | undefined;
  for (const s of settings.sources) {
    const m = s.settings.permissions?.defaultMode;
    if (!m) continue;
    // Escalating modes are not taken from committed project settings (contracts §2.2).
    if (s.level === "project" && (m === "bypassPermissions" || m === "auto")) continue;
    if (s.level === "local" && m === "auto") continue;
    mode = m === "manual" ? "default" : m;
  }
  return mode;
}

/** True when any settings file sets `permissions.disableAutoMode: "disable"` (contracts §2.2). Pure. */
export const autoModeDisabledBy = (settings: LoadedSettings): boolean =>
  settings.sources.some((s) => s.settings.permissions?.disableAutoMode === "disable");
