import { homedir } from "node:os";
import { join } from "node:path";

/** Where Claude Code's files live (read-only for us, except settings.local.json permission rules). */
export const claudeUserDir = (env = process.env): string => env.CLAUDE_CONFIG_DIR || join(env.HOME || homedir(), ".claude");
export const managedDir = (env = process.env): string => env.YOKE_MANAGED_DIR || "/etc/claude-code";

/** yoke's own state: sessions, checkpoints, memory, plugin storage. */
export const yokeDir = (env = process.env): string => env.YOKE_CONFIG_DIR || join(env.HOME || homedir(), ".yoke");

/** Claude Code's project folder name: every non-alphanumeric character becomes `-`; long names get a hash suffix. */
export function sanitizePath(p: string): string {
  const s = p.replace(/[^a-zA-Z0-9]/g, "-");
  if (s.length <= 200) return s;
  let h = 5381;
  for (let i = 0; i < p.length; i++) h = ((h << 5) + h + p.charCodeAt(i)) | 0;
  return `${s.slice(0, 200)}-${Math.abs(h).toString(36)}`;
}

export const projectStateDir = (cwd: string, env = process.env): string => join(yokeDir(env), "projects", sanitizePath(cwd));
