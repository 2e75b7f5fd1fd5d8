import type { LoadedSettings } from "../config/load.ts";
import { applySettingsEnv } from "../trust/env.ts";

/**
 * Process env, then settings env, then what Claude Code exports to its tools and hooks (contracts §1.8). Its own
 * module, re-exported by compose.ts.
 */
export function runEnv(settings: LoadedSettings, warn: (m: string) => void, interactive = false): Record<string, string> {
  const launch: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) launch[k] = v;
  // Settings env never moves the shell, yoke's state or the memory folder, nor decides trust (src/trust/env.ts).
  const { env, refused } = applySettingsEnv(launch, settings.merged.env);
  if (refused.length) warn(`settings env may not set ${refused.join(", ")}; ignored`);
  // So scripts can tell they run under an agent.
  env.CLAUDECODE = "1";
  // A caller's own value wins (the Agent SDK sets sdk-ts); else `cli` at the terminal, `sdk-cli` headless. The
  // transcript's `entrypoint` is this value (observed in 2.1.332: interactive writes "cli", -p "sdk-cli").
  env.CLAUDE_CODE_ENTRYPOINT = env.CLAUDE_CODE_ENTRYPOINT || (interactive ? "cli" : "sdk-cli");
  return env;
}
