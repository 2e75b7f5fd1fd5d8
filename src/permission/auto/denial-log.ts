/**
 * Auto-mode denials, kept per project for `yoke permissions recent` (Claude Code's "/permissions →
 * Recently denied"). One JSON line per denial in `<yoke dir>/projects/<sanitized cwd>/auto-mode-denials.jsonl`,
 * trimmed to the newest MAX_KEPT lines. Writing never throws (a full disk must not stop a run: the denial
 * itself still reaches the model and the stream); reading skips lines it cannot parse.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { projectStateDir } from "../../config/paths.ts";

export type AutoDenial = {
  time: string;
  sessionId: string;
  toolName: string;
  toolUseId: string;
  input: Record<string, unknown>;
  reason: string;
  /** "classifier": it said block; "failure": it could not answer (fail closed); "paused": the breaker was open. */
  kind: "classifier" | "failure" | "paused";
};

const MAX_KEPT = 200;
const FILE = "auto-mode-denials.jsonl";

export const denialLogPath = (cwd: string, env: Record<string, string | undefined>): string => join(projectStateDir(cwd, env), FILE);

export function recordDenial(file: string, d: AutoDenial): string | undefined {
  try {
    mkdirSync(dirname(file), { recursive: true });
    appendFileSync(file, `${JSON.stringify(d)}\n`, { mode: 0o600 });
    // Trim now and then, not on every write: only once the file is clearly past the limit.
    if (statSync(file).size > 400_000) {
      const lines = readFileSync(file, "utf8").split("\n").filter(Boolean);
      writeFileSync(file, `${lines.slice(-MAX_KEPT).join("\n")}\n`, { mode: 0o600 });
    }
    return undefined;
  } catch (e) {
    return `could not record the auto-mode denial in ${file}: ${(e as Error).message}`;
  }
}

/** The newest `limit` denials, newest first. A missing file is an empty list. */
export function readDenials(file: string, limit = 20): AutoDenial[] {
  if (!existsSync(file)) return [];
  const out: AutoDenial[] = [];
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (!line.trim()) continue;
    try {
      const v = JSON.parse(line);
      if (v && typeof v.toolName === "string" && typeof v.reason === "string") out.push(v as AutoDenial);
    } catch {
      /* a torn last line from a killed run */
    }
  }
  return out.reverse().slice(0, limit);
}
