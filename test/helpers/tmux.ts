/**
 * Driving a terminal program as a person would: the program runs in a real pseudo-terminal inside tmux, keys go in
 * with send-keys and the screen comes back as text with capture-pane. Each terminal gets its own tmux server
 * (its own socket), so tests never touch a developer's tmux or each other's.
 *
 * Waiting is by the screen's content (`waitFor`), never by sleeping: a wait that does not see its text within the
 * limit throws with the last screen, so a failing test shows what the person would have seen.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./tmp.ts";
import { WAIT_MS } from "./wait-for.ts";

export type Term = {
  /** tmux key names (`Enter`, `Escape`, `C-c`, `BTab`, `Up`) or literal text with `{ literal: true }`. */
  keys(...keys: string[]): void;
  /** Types text literally (no key-name lookup). */
  type(text: string): void;
  /** Pastes text as a terminal does with bracketed paste on (the program sees ESC[200~ … ESC[201~). */
  paste(text: string): void;
  /** The visible screen, trailing spaces trimmed. */
  screen(): string;
  /** The screen plus scrollback (what scrolled off the top too). */
  history(): string;
  /** Waits until the screen (with scrollback) matches; returns it. Throws naming the pattern and showing the screen. */
  waitFor(pattern: string | RegExp, opts?: { timeoutMs?: number; where?: "screen" | "history" }): Promise<string>;
  resize(columns: number, rows: number): void;
  /** A tmux format of the pane, e.g. `#{cursor_flag}` (1: cursor shown), `#{alternate_on}` (1: alternate screen). */
  format(f: string): string;
  /** The program's exit status once it ended, else null. */
  exitStatus(): number | null;
  waitExit(timeoutMs?: number): Promise<number>;
  kill(): void;
};

let counter = 0;

export function tmuxAvailable(): boolean {
  return spawnSync("tmux", ["-V"]).status === 0;
}

export function startTerm(o: { argv: string[]; env: Record<string, string>; cwd: string; columns?: number; rows?: number }): Term {
  const socket = `yoke-test-${process.pid}-${++counter}`;
  const tmux = (...args: string[]) => {
    const r = spawnSync("tmux", ["-L", socket, "-f", "/dev/null", ...args], { encoding: "utf8" });
    if (r.status !== 0 && args[0] !== "kill-server") throw new Error(`tmux ${args.join(" ")}: ${r.stderr}`);
    return r.stdout;
  };
  // `env -i` so the program sees exactly the test's environment, not the tmux server's. The exit status is written
  // to a file by a shell around it: tmux's own #{pane_dead_status} is sometimes empty right after the pane dies.
  const statusFile = join(tempDir("yoke-term-"), "status");
  const command = [
    "env",
    "-i",
    ...Object.entries({ TERM: "xterm-256color", ...o.env }).map(([k, v]) => `${k}=${v}`),
    "sh",
    "-c",
    '"$@"; echo $? > "$0"',
    statusFile,
    ...o.argv,
  ];
  // remain-on-exit is set before the program starts, so one that exits at once still leaves its screen and status.
  tmux("start-server", ";", "set-option", "-g", "remain-on-exit", "on", ";", "new-session", "-d", "-s", "t", "-x", String(o.columns ?? 100), "-y", String(o.rows ?? 30), "-c", o.cwd, ...command);
  const capture = (extra: string[]) =>
    tmux("capture-pane", "-p", "-t", "t", ...extra)
      .split("\n")
      .map((l) => l.trimEnd())
      .join("\n")
      .trimEnd();
  const term: Term = {
    keys: (...keys) => void tmux("send-keys", "-t", "t", ...keys),
    type: (text) => void tmux("send-keys", "-t", "t", "-l", text),
    paste(text) {
      tmux("set-buffer", "-b", "p", text);
      tmux("paste-buffer", "-p", "-d", "-b", "p", "-t", "t");
    },
    screen: () => capture([]),
    history: () => capture(["-S", "-", "-E", "-"]),
    async waitFor(pattern, opts = {}) {
      const deadline = Date.now() + (opts.timeoutMs ?? WAIT_MS);
      const match = (s: string) => (typeof pattern === "string" ? s.includes(pattern) : pattern.test(s));
      for (;;) {
        const s = opts.where === "screen" ? term.screen() : term.history();
        if (match(s)) return s;
        if (Date.now() > deadline) throw new Error(`waitFor ${String(pattern)}: not on screen. The screen:\n${term.screen()}`);
        await Bun.sleep(40);
      }
    },
    resize: (columns, rows) => void tmux("resize-window", "-t", "t", "-x", String(columns), "-y", String(rows)),
    format: (f) => tmux("display-message", "-p", "-t", "t", f).trim(),
    exitStatus() {
      try {
        const s = readFileSync(statusFile, "utf8").trim();
        return s ? Number(s) : null;
      } catch {
        return null;
      }
    },
    async waitExit(timeoutMs = WAIT_MS) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const s = term.exitStatus();
        if (s !== null) return s;
        if (Date.now() > deadline) throw new Error(`the program did not exit. The screen:\n${term.screen()}`);
        await Bun.sleep(40);
      }
    },
    kill: () => void tmux("kill-server"),
  };
  return term;
}

