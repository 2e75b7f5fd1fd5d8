import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** contracts §1.8: `<yokeDir>/session-env/<session-id>/sessionstart-hook-<n>.sh` (CLAUDE_ENV_FILE). */
export const sessionEnvFile = (yokeDir: string, sessionId: string, n: number): string =>
  join(yokeDir, "session-env", sessionId, `sessionstart-hook-${n}.sh`);

/**
 * What SessionStart hooks appended to their CLAUDE_ENV_FILE, concatenated in hook order: the Bash
 * tool sources this before every command. "" when there is none. Never throws (unreadable files
 * are skipped).
 */
export function sessionEnvScript(yokeDir: string, sessionId: string): string {
  const dir = join(yokeDir, "session-env", sessionId);
  if (!existsSync(dir)) return "";
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => /^sessionstart-hook-\d+\.sh$/.test(n));
  } catch {
    return "";
  }
  names.sort((a, b) => Number(a.match(/\d+/)![0]) - Number(b.match(/\d+/)![0]));
  const parts: string[] = [];
  for (const n of names) {
    try {
      const t = readFileSync(join(dir, n), "utf8");
      if (t.trim()) parts.push(t.endsWith("\n") ? t : `${t}\n`);
    } catch {
      // skipped
    }
  }
  return parts.join("");
}
