// A managed settings folder for the compiled binary (YOKE_MANAGED_DIR; /etc/claude-code by default).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./tmp.ts";

/** A fresh managed folder whose managed-settings.json is `settings`; its env for the run. */
export function managedEnv(settings: Record<string, unknown>): { YOKE_MANAGED_DIR: string } {
  const dir = tempDir("yoke-managed-");
  writeFileSync(join(dir, "managed-settings.json"), JSON.stringify(settings, null, 2));
  return { YOKE_MANAGED_DIR: dir };
}

/** sandbox.bwrapPath is honored only from managed settings (as in Claude Code 2.1.332): the env that sets it. */
export const adminBwrap = (bwrapPath: string) => managedEnv({ sandbox: { bwrapPath } });
