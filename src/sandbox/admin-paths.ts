import { isAbsolute } from "node:path";
import type { LoadedSettings } from "../config/load.ts";
import type { SandboxSettings } from "../config/schema.ts";

/** The settings that choose which program the sandbox is: an organization's to set, never a checkout's. */
const ADMIN_ONLY = ["bwrapPath", "socatPath"] as const;

/**
 * The sandbox settings in force, with `bwrapPath` and `socatPath` read only from managed settings and only as absolute
 * paths, as Claude Code 2.1.332's schema says ("Only honored from admin-controlled managed settings"). Anywhere else
 * they would let a checkout's `.claude/settings.json` (or any settings file) name a "bubblewrap" that sandboxes nothing:
 * the run would believe Bash is sandboxed, and auto-allow it, while nothing is; and the program would run at start.
 * Each value left out is said once through `warn`, naming the file and field. Pure but for `warn`.
 */
export function sandboxSettingsOf(settings: Pick<LoadedSettings, "sources" | "merged">, warn: (line: string) => void): SandboxSettings | undefined {
  const merged = settings.merged.sandbox;
  if (!merged) return merged;
  const out: SandboxSettings = { ...merged };
  for (const key of ADMIN_ONLY) {
    delete out[key];
    for (const s of settings.sources) {
      const v = (s.settings as { sandbox?: Record<string, unknown> }).sandbox?.[key];
      if (v === undefined) continue;
      if (s.level !== "managed") warn(`${s.path}: sandbox.${key} is honored only from managed settings; ignored`);
      else if (typeof v !== "string" || !isAbsolute(v)) warn(`${s.path}: sandbox.${key} ${JSON.stringify(v)} must be an absolute path; ignored`);
      else out[key] = v;
    }
  }
  return out;
}
