import type { LoadedSettings } from "./load.ts";

/** The surfaces `strictPluginOnlyCustomization` can lock (observed in 2.1.332). */
export const PLUGIN_ONLY_SURFACES = ["skills", "agents", "hooks", "mcp"] as const;
export type PluginOnlySurface = (typeof PLUGIN_ONLY_SURFACES)[number];

/**
 * `strictPluginOnlyCustomization` in managed settings (observed in 2.1.332; contracts §2.1 for the managed level):
 * the locked surfaces load only from managed settings and plugins, never from `~/.claude/<surface>/`, the project's
 * `.claude/<surface>/` or settings files. `true` locks all four, a list the ones it names, `false` none. Read from
 * managed files only (a user or project file cannot lock or unlock). A list entry that names no surface is said and
 * locks nothing; any other value is said and locks all four until it is fixed, as Claude Code does. Pure but for `warn`.
 */
export function pluginOnlySurfaces(settings: LoadedSettings, warn: (m: string) => void): Set<PluginOnlySurface> {
  const locked = new Set<PluginOnlySurface>();
  for (const s of settings.sources) {
    if (s.level !== "managed") continue;
    const v = (s.settings as Record<string, unknown>).strictPluginOnlyCustomization;
    if (v === undefined || v === null || v === false) continue;
    if (v === true) for (const x of PLUGIN_ONLY_SURFACES) locked.add(x);
    else if (Array.isArray(v)) {
      const unknown = v.filter((x) => !(PLUGIN_ONLY_SURFACES as readonly unknown[]).includes(x));
      for (const x of v) if ((PLUGIN_ONLY_SURFACES as readonly unknown[]).includes(x)) locked.add(x as PluginOnlySurface);
      if (unknown.length)
        warn(`${s.path}: field "strictPluginOnlyCustomization": ${unknown.map((x) => JSON.stringify(x)).join(", ")} is no surface (known: ${PLUGIN_ONLY_SURFACES.join(", ")}); it locks nothing`);
    } else {
      warn(`${s.path}: field "strictPluginOnlyCustomization": expected true, false or a list of surfaces, got ${JSON.stringify(v)}; treated as true (skills, agents, hooks and MCP servers only from managed settings and plugins) until it is fixed`);
      for (const x of PLUGIN_ONLY_SURFACES) locked.add(x);
    }
  }
  return locked;
}
