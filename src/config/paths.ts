import { join } from "node:path";
import { userHome } from "../util/home.ts";

/** Where Claude Code's files live (read-only for us, except settings.local.json permission rules). */
export const claudeUserDir = (env = process.env): string => env.CLAUDE_CONFIG_DIR || join(userHome(env), ".claude");
export const managedDir = (env = process.env): string => env.YOKE_MANAGED_DIR || "/etc/claude-code";

/** yoke's own state: sessions, checkpoints, memory, plugin storage. */
export const yokeDir = (env = process.env): string => env.YOKE_CONFIG_DIR || join(userHome(env), ".yoke");

/** Claude Code's project folder name: every non-alphanumeric character becomes `-`; long names get a hash suffix. */
export function sanitizePath(p: string): string {
  const s = p.replace(/[^a-zA-Z0-9]/g, "-");
  if (s.length <= 200) return s;
  let h = 5381;
  for (let i = 0; i < p.length; i++) h = ((h << 5) + h + p.charCodeAt(i)) | 0;
  return `${s.slice(0, 200)}-${Math.abs(h).toString(36)}`;
}

export const projectStateDir = (cwd: string, env = process.env): string => join(yokeDir(env), "projects", sanitizePath(cwd));

/** Started by the Agent SDK (TypeScript or Python): it sets these for the CLI it spawns (contracts §4.7). */
export const runByAgentSdk = (env: Record<string, string | undefined> = process.env): boolean =>
  !!env.CLAUDE_AGENT_SDK_VERSION || env.CLAUDE_CODE_ENTRYPOINT === "sdk-ts" || env.CLAUDE_CODE_ENTRYPOINT === "sdk-py";

/**
 * The root of the `projects/` folder that holds transcripts. yoke's own dir; under the Agent SDK, Claude Code's
 * (`CLAUDE_CONFIG_DIR` or ~/.claude, as Claude Code honours it), because the SDK's listSessions, getSessionMessages
 * and resume read transcripts there (issue 15 point 7). Other state (memory, checkpoints, logs) stays in yoke's dir.
 */
export const sessionsRoot = (env: Record<string, string | undefined> = process.env): string =>
  runByAgentSdk(env) ? claudeUserDir(env as NodeJS.ProcessEnv) : yokeDir(env as NodeJS.ProcessEnv);

/** Every transcript root a lookup by id searches: the one this run writes to first, then the other. */
export const sessionsRoots = (env: Record<string, string | undefined> = process.env): string[] => [
  ...new Set([sessionsRoot(env), yokeDir(env as NodeJS.ProcessEnv), claudeUserDir(env as NodeJS.ProcessEnv)]),
];

/** A project's transcript folder: `<sessions root>/projects/<sanitized cwd>` (contracts §5.1). */
export const transcriptDir = (cwd: string, env: Record<string, string | undefined> = process.env): string =>
  join(sessionsRoot(env), "projects", sanitizePath(cwd));
