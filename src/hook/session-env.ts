import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/** contracts §1.8: `<yokeDir>/session-env/<session-id>/sessionstart-hook-<n>.sh` (CLAUDE_ENV_FILE). */
export const sessionEnvFile = (yokeDir: string, sessionId: string, n: number): string =>
  join(yokeDir, "session-env", sessionId, `sessionstart-hook-${n}.sh`);

const ENV_FILE = /^sessionstart-hook-(\d+)\.sh$/;

/**
 * The CLAUDE_ENV_FILE files SessionStart hooks wrote into, in hook order: the Bash tool sources them
 * before every command. Empty files are left out. Never throws ([] when there are none or the folder
 * cannot be read).
 */
export function sessionEnvFiles(yokeDir: string, sessionId: string): string[] {
  const dir = join(yokeDir, "session-env", sessionId);
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => ENV_FILE.test(n));
  } catch {
    return [];
  }
  const order = (n: string) => Number(ENV_FILE.exec(n)![1]);
  return names
    .sort((a, b) => order(a) - order(b))
    .map((n) => join(dir, n))
    .filter((f) => {
      try {
        return statSync(f).size > 0;
      } catch {
        return false;
      }
    });
}
