import { spawnProcess } from "../util/subprocess.ts";

/**
 * The settings `statusLine` command (contracts §6.7), run as Claude Code runs it: `sh -c command` with the
 * session's JSON on stdin and COLUMNS/LINES set, debounced 300 ms, its stdout lines (ANSI kept, other control
 * characters blanked) shown in place of the default status line. A failing or slow command (5 s) is reported once
 * through `onError` and the default line stays. Never throws.
 */
export type StatusLineSetting = { type?: string; command?: string; padding?: number };

export function createStatusLine(o: {
  setting: StatusLineSetting;
  cwd: string;
  env: Record<string, string>;
  size: () => { columns: number; rows: number };
  onLines: (lines: string[] | null) => void;
  onError: (message: string) => void;
}): { update(input: Record<string, unknown>): void; stop(): void } {
  const command = o.setting.command;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let next: Record<string, unknown> | null = null;
  let running = false;
  let reported = false;
  let stopped = false;
  const fail = (m: string) => {
    if (!reported) o.onError(`statusLine command failed: ${m}`);
    reported = true;
    o.onLines(null);
  };
  const run = () => {
    timer = null;
    if (!next || running || stopped || !command) return;
    const input = next;
    next = null;
    running = true;
    const { columns, rows } = o.size();
    const child = spawnProcess(["sh", "-c", command], { cwd: o.cwd, env: { ...o.env, COLUMNS: String(columns), LINES: String(rows) }, stdin: "pipe" });
    let out = "";
    let err = "";
    const kill = setTimeout(() => child.kill("SIGKILL"), 5000);
    child.stdout?.on("data", (d) => (out += d));
    child.stderr?.on("data", (d) => (err += d));
    child.on("error", (e) => fail(e.message));
    child.on("close", (code, signal) => {
      clearTimeout(kill);
      running = false;
      if (stopped) return;
      if (code === 0) {
        const pad = " ".repeat(Math.max(0, Math.min(8, o.setting.padding ?? 0)));
        const lines = out.split("\n").filter((l) => l.trim()).map((l) => pad + l.replace(/[\x00-\x08\x0b-\x1a\x1c-\x1f\x7f]/g, " "));
        o.onLines(lines.length ? lines.slice(0, 5) : null);
      } else fail(signal ? `killed by ${signal} after 5 s` : `exit ${code}${err.trim() ? `: ${err.trim().split("\n")[0]}` : ""}`);
      if (next) schedule();
    });
    child.stdin?.on("error", () => {});
    child.stdin?.end(JSON.stringify(input));
  };
  const schedule = () => {
    if (!timer) timer = setTimeout(run, 300);
  };
  return {
    update(input) {
      if (!command || stopped) return;
      next = input;
      schedule();
    },
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
