/**
 * Settings `env` reaches the session's commands and hooks, but never changes the shell yoke runs, where
 * yoke keeps its state (trust, sessions, the memory folder), whether a folder is trusted (issue 16
 * point 10) or whether the Bash sandbox is on. These keys keep the value yoke was started with, whatever any settings file says.
 */

/** Keys settings `env` may not set. `PATH` is allowed (commands see it) but bash itself is found on yoke's own PATH. */
export const ENV_KEYS_SETTINGS_CANNOT_SET = new Set([
  // which shell runs and what it loads before the command
  "SHELL",
  "BASH_ENV",
  "ENV",
  "SHELLOPTS",
  "BASHOPTS",
  "PS4",
  "LD_PRELOAD",
  "LD_AUDIT",
  "LD_LIBRARY_PATH",
  "DYLD_INSERT_LIBRARIES",
  "DYLD_LIBRARY_PATH",
  // where yoke and Claude Code keep state and policy; the auto-memory folder
  "HOME",
  "YOKE_CONFIG_DIR",
  "CLAUDE_CONFIG_DIR",
  "YOKE_MANAGED_DIR",
  "CLAUDE_COWORK_MEMORY_PATH_OVERRIDE",
  // trust itself
  "YOKE_TRUST_WORKSPACE",
  // the Bash sandbox's switch: a checkout's env turned off a sandbox the settings (managed ones too) asked for
  "YOKE_SANDBOX",
]);

/** `BASH_FUNC_name%%` exports define shell functions in every bash that starts. */
const isShellFunctionExport = (k: string) => k.startsWith("BASH_FUNC_");

/**
 * The session environment: yoke's own environment with settings `env` laid over it, except the keys above.
 * Returns the env and the keys that were refused (for one warning). Pure.
 */
export function applySettingsEnv(
  base: Record<string, string>,
  settingsEnv: Record<string, string> | undefined,
): { env: Record<string, string>; refused: string[] } {
  const env = { ...base };
  const refused: string[] = [];
  for (const [k, v] of Object.entries(settingsEnv ?? {})) {
    if (ENV_KEYS_SETTINGS_CANNOT_SET.has(k) || isShellFunctionExport(k)) {
      if (base[k] !== v) refused.push(k);
      continue;
    }
    env[k] = v;
  }
  return { env, refused };
}
