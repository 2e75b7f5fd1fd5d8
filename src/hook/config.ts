import { pluginOnlySurfaces } from "../config/plugin-only.ts";
import type { LoadedSettings, SettingsLevel } from "../config/load.ts";
import type { HookHandlerConfig } from "../config/schema.ts";

/** One handler from a settings file's `hooks` key, with where it came from. */
export type ConfiguredHook = {
  /** The event key as written (may be an event yoke does not fire, e.g. PostToolBatch). */
  event: string;
  matcher?: string;
  handler: HookHandlerConfig;
  level: SettingsLevel;
  /** Settings file path, or `--settings`. */
  path: string;
  /** Why the hook will not run (policy), if it will not. */
  disabledBy?: string;
  /** Claude Code plugin hooks: extra environment (CLAUDE_PLUGIN_ROOT …) and `${VAR}` substitutions. */
  extraEnv?: Record<string, string>;
  /** Plugin copies of a hook are not de-duplicated against settings hooks (contracts §1.9). */
  owner?: string;
  /** The plugin's `name@marketplace` (`name@inline` for a plugin folder), named in its block messages. */
  pluginId?: string;
};

/** contracts §1.2: `disableAllHooks` and `allowManagedHooksOnly` as Claude Code applies them. */
export type HookPolicy = {
  /** Managed settings set disableAllHooks: nothing runs. */
  allDisabled: boolean;
  /** A user/project/local/flag file set disableAllHooks: only managed hooks run. */
  nonManagedDisabled: boolean;
  /** Managed settings set allowManagedHooksOnly: user/project/local/flag and plugin hooks are ignored. */
  managedOnly: boolean;
};

/** Pure; never throws. The highest-precedence non-managed file that sets disableAllHooks decides for those. */
export function hookPolicy(settings: LoadedSettings): HookPolicy {
  let nonManaged: boolean | undefined;
  let allDisabled = false;
  let managedOnly = false;
  for (const s of settings.sources) {
    if (s.level === "managed") {
      if (s.settings.disableAllHooks === true) allDisabled = true;
      if (s.settings.allowManagedHooksOnly === true) managedOnly = true;
    } else if (typeof s.settings.disableAllHooks === "boolean") nonManaged = s.settings.disableAllHooks;
  }
  return { allDisabled, nonManagedDisabled: nonManaged === true, managedOnly };
}

/** Why the policy keeps a hook from running (plugin hooks count as non-managed), or undefined. Pure. */
export function disabledByPolicy(policy: HookPolicy, managed: boolean): string | undefined {
  if (policy.allDisabled) return "disableAllHooks in managed settings";
  if (managed) return undefined;
  if (policy.managedOnly) return "allowManagedHooksOnly in managed settings";
  if (policy.nonManagedDisabled) return "disableAllHooks";
  return undefined;
}

/** Every hook in every settings file, lowest precedence first, each marked with the policy that disables it. */
export function collectSettingsHooks(settings: LoadedSettings, policy = hookPolicy(settings)): ConfiguredHook[] {
  const out: ConfiguredHook[] = [];
  // Its bad values are said once, by the skills' wiring.
  const pluginOnly = pluginOnlySurfaces(settings, () => {}).has("hooks");
  for (const s of settings.sources) {
    const hooks = s.settings.hooks;
    if (!hooks) continue;
    // Managed strictPluginOnlyCustomization locking hooks: settings files' hooks off, plugin hooks still on (observed in 2.1.332).
    const disabledBy =
      disabledByPolicy(policy, s.level === "managed") ?? (pluginOnly && s.level !== "managed" ? "strictPluginOnlyCustomization in managed settings" : undefined);
    for (const [event, groups] of Object.entries(hooks)) {
      for (const g of groups) {
        for (const h of g.hooks) {
          out.push({ event, matcher: g.matcher, handler: h, level: s.level, path: s.path, ...(disabledBy ? { disabledBy } : {}) });
        }
      }
    }
  }
  return out;
}

/** internals §8.1: identical command hooks across settings files run once; key = shell, command, args, if. */
export const dedupeKey = (h: HookHandlerConfig): string =>
  // Other types have no command: their whole entry tells two apart (two mcp_tool hooks are not one).
  [h.type, (h as { shell?: string }).shell ?? "bash", h.command ?? "", JSON.stringify(h.args ?? null), h.if ?? "", h.type === "command" ? "" : JSON.stringify(h)].join("\0");

/** How a handler reads in listings and records: the command line (exec form joined with spaces). */
export const commandLabel = (h: HookHandlerConfig): string => {
  if (h.type !== "command") {
    const x = h as Record<string, unknown>;
    return String(x.url ?? x.prompt ?? (x.server ? `${x.server}/${x.tool}` : ""));
  }
  return h.args ? [h.command ?? "", ...h.args].join(" ") : (h.command ?? "");
};
