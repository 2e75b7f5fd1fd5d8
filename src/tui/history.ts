import { appendFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

/**
 * Prompt history kept across sessions, one JSON line per prompt in `<yoke dir>/history.jsonl`, in the shape of Claude
 * Code's `~/.claude/history.jsonl` (contracts §5: `display`, `pastedContents`, `timestamp`, `project`, `sessionId`).
 * Up/Down shows this project's entries only. Reading never throws (a bad line is skipped); a failed append is
 * reported through `onError` and the session goes on.
 */
export type PromptHistory = { entries: string[]; add(text: string): void };

const MAX_LOADED = 200;

export function openHistory(o: { yokeDir: string; project: string; sessionId: () => string; onError: (message: string) => void }): PromptHistory {
  const file = join(o.yokeDir, "history.jsonl");
  let entries: string[] = [];
  try {
    if (existsSync(file)) {
      for (const line of readFileSync(file, "utf8").split("\n")) {
        if (!line.trim()) continue;
        try {
          const e = JSON.parse(line);
          if (e && e.project === o.project && typeof e.display === "string" && e.display.trim()) entries.push(e.display);
        } catch {
          // A torn or foreign line: skipped, the rest of the history still loads.
        }
      }
    }
  } catch (e) {
    o.onError(`cannot read prompt history ${file}: ${(e as Error).message}`);
  }
  entries = entries.slice(-MAX_LOADED);
  let failed = false;
  return {
    entries,
    add(text) {
      if (!text.trim()) return;
      entries.push(text);
      try {
        mkdirSync(dirname(file), { recursive: true });
        appendFileSync(file, `${JSON.stringify({ display: text, pastedContents: {}, timestamp: Date.now(), project: o.project, sessionId: o.sessionId() })}\n`);
      } catch (e) {
        if (!failed) o.onError(`cannot save prompt history to ${file}: ${(e as Error).message}`);
        failed = true;
      }
    },
  };
}
