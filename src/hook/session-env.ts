import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/** contracts §1.8: `<yokeDir>/session-env/<session-id>/sessionstart-hook-<n>.sh` (CLAUDE_ENV_FILE). */
export const sessionEnvFile = (yokeDir: string, sessionId: string, n: number): string =>
  join(yokeDir, "session-env", sessionId, `sessionstart-hook-${n}.sh`);

/**
 * The CLAUDE_ENV_FILEs SessionStart hooks wrote into, in hook order, empty ones left out: the Bash tool
 * sources them before every command. Never throws ([] when there are none or the folder is unreadable).
 */
export function sessionEnvFiles(yokeDir: string, sessionId: string): string[] {
  const dir = join(yokeDir, "session-env", sessionId);
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => /^sessionstart-hook-\d+\.sh$/.test(n));
  } catch {
    return [];
  }
  const num = (n: string) => Number(/\d+/.exec(n)![0]);
  return names
    .sort((a, b) => num(a) - num(b))
    .map((n) => join(dir, n))
    .filter((p) => {
      try {
        return statSync(p).size > 0;
      } catch {
        return false;
      }
    });
}
