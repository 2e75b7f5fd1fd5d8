/**
 * What an untrusted folder's own settings files (`.claude/settings.json`, `.claude/settings.local.json`) may
 * still do: only tighten. An allow-list, so a key that runs code or widens access is dropped even when yoke
 * learns it later: deny and ask rules, switches that turn features off, a stricter mode, and a `sandbox`
 * block that can only add restrictions. Everything else (allow rules, additionalDirectories, env, hooks,
 * apiKeyHelper, statusLine, MCP approvals, enabledPlugins, autoMemoryDirectory ...) waits for trust.
 */
import type { Settings } from "../config/schema.ts";

/** Keys that change how yoke talks or looks, not what it may touch or run. */
const INERT_KEYS = new Set([
  "$schema",
  "model",
  "fallbackModel",
  "attribution",
  "includeCoAuthoredBy",
  "includeGitInstructions",
  "outputStyle",
  "language",
  "respectGitignore",
  "claudeMdExcludes",
  "instructionLoader",
  "autoCompactEnabled",
  "autoCompactWindow",
  "fileCheckpointingEnabled",
  "verbose",
  "alwaysThinkingEnabled",
  "effortLevel",
]);

/** Switches that only ever turn something off (or on, for safety features): kept when they hold this value. */
const TIGHTENING_VALUES: Record<string, unknown> = {
  disableAllHooks: true,
  autoMemoryEnabled: false,
  memoryExtraction: false,
  sessionMemory: false,
  relevantMemory: false,
  redactTranscripts: true,
};

/** Modes no looser than the default one. */
const TIGHT_MODES = new Set(["default", "manual", "plan", "dontAsk"]);

const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);

/** The restricting half of a `sandbox` block (issue 16 point 12 keys). Pure. */
export function tightenOnlySandbox(sb: unknown, dropped: string[]): Record<string, unknown> | undefined {
  if (!isObj(sb)) {
    if (sb !== undefined) dropped.push("sandbox");
    return undefined;
  }
  const out: Record<string, unknown> = {};
  const keepIf = (k: string, v: unknown) => {
    if (sb[k] === undefined) return;
    if (sb[k] === v) out[k] = v;
    else dropped.push(`sandbox.${k}`);
  };
  keepIf("enabled", true);
  keepIf("autoAllowBashIfSandboxed", false);
  keepIf("allowUnsandboxedCommands", false);
  keepIf("enableWeakerNestedSandbox", false);
  // Only tightens: a sandbox that cannot start ends the run instead of leaving the static checks alone.
  keepIf("failIfUnavailable", true);
  const fs = sb.filesystem;
  if (isObj(fs)) {
    const f: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(fs)) {
      if (/^deny/.test(k)) f[k] = v;
      else dropped.push(`sandbox.filesystem.${k}`);
    }
    if (Object.keys(f).length) out.filesystem = f;
  } else if (fs !== undefined) dropped.push("sandbox.filesystem");
  const net = sb.network;
  if (isObj(net)) {
    const n: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(net)) {
      if (/^denied|^deny/.test(k)) n[k] = v;
      else dropped.push(`sandbox.network.${k}`);
    }
    if (Object.keys(n).length) out.network = n;
  } else if (net !== undefined) dropped.push("sandbox.network");
  for (const k of Object.keys(sb)) if (!["enabled", "autoAllowBashIfSandboxed", "allowUnsandboxedCommands", "enableWeakerNestedSandbox", "failIfUnavailable", "filesystem", "network"].includes(k)) dropped.push(`sandbox.${k}`);
  return Object.keys(out).length ? out : undefined;
}

/**
 * The part of one untrusted project settings file that still applies, and the dotted names of what was
 * left out (for the notice). Pure.
 */
export function untrustedView(settings: Settings): { settings: Settings; dropped: string[] } {
  const dropped: string[] = [];
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(settings as Record<string, unknown>)) {
    if (v === undefined) continue;
    if (INERT_KEYS.has(k)) out[k] = v;
    else if (k in TIGHTENING_VALUES) {
      if (v === TIGHTENING_VALUES[k]) out[k] = v;
      else dropped.push(k);
    } else if (k === "plugins" && isObj(v)) {
      // Switching a plugin off is allowed; switching one on is not.
      const off = Object.fromEntries(Object.entries(v).filter(([, on]) => on === false));
      if (Object.keys(off).length) out.plugins = off;
      if (Object.values(v).some((on) => on !== false)) dropped.push("plugins");
    } else if (k === "permissions" && isObj(v)) {
      const p: Record<string, unknown> = {};
      for (const [pk, pv] of Object.entries(v)) {
        if (pk === "deny" || pk === "ask" || pk === "disableBypassPermissionsMode" || pk === "disableAutoMode" || pk === "denyInsteadOfPrompting") p[pk] = pv;
        else if (pk === "defaultMode" && typeof pv === "string" && TIGHT_MODES.has(pv)) p[pk] = pv;
        else dropped.push(`permissions.${pk}`);
      }
      if (Object.keys(p).length) out.permissions = p;
    } else if (k === "sandbox") {
      const sb = tightenOnlySandbox(v, dropped);
      if (sb) out.sandbox = sb;
    } else dropped.push(k);
  }
  return { settings: out as Settings, dropped };
}
