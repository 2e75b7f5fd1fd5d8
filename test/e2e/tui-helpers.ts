/**
 * Shared pieces of the interactive-session e2e tests: the compiled binary in tmux (test/helpers/tmux.ts) against
 * the fake Anthropic API, and the session's transcript read back from the config dir.
 */
import { afterAll, beforeAll, expect } from "bun:test";
import { existsSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isolatedEnv, yokeBin } from "../helpers/binary.ts";
import { fakeApiEnv, startFakeAnthropic, type FakeAnthropic, type FakeEntry } from "../helpers/fake-anthropic.ts";
import { alive, processes } from "../helpers/process-alive.ts";
import { startTerm, type Term } from "../helpers/tmux.ts";
import { tempDir } from "../helpers/tmp.ts";
import { waitFor } from "../helpers/wait-for.ts";

export type TuiSession = { fake: FakeAnthropic; cwd: string; env: Record<string, string>; term: Term; bin: string };
export type SessionOptions = {
  argv?: string[];
  env?: Record<string, string | undefined>;
  columns?: number;
  rows?: number;
  cwd?: string;
  /** Text to wait for before handing the session over; false: do not wait. Default "context" (the status line). */
  wait?: string | false;
  /** A shell command run in the same terminal right after yoke exits (e.g. `stty -a > file`); yoke's status is kept. */
  after?: string;
};

/** Registers the hooks that build the binary once and close every terminal and fake API the file opened. */
export function tuiSuite(): (script: FakeEntry[], o?: SessionOptions) => Promise<TuiSession> {
  let bin = "";
  const terms: Term[] = [];
  const fakes: FakeAnthropic[] = [];
  beforeAll(() => {
    bin = yokeBin();
  });
  afterAll(async () => {
    for (const t of terms) t.kill();
    for (const f of fakes) await f.stop();
  });
  return async (script, o = {}) => {
    const fake = await startFakeAnthropic({ script });
    fakes.push(fake);
    const cwd = o.cwd ?? tempDir("yoke-tui-");
    // Memory runs by default in a terminal (issue 12 point 6); these tests script the main conversation only.
    const env = isolatedEnv({ ...fakeApiEnv(fake), YOKE_MEMORY_EXTRACTION: "0", YOKE_SESSION_MEMORY: "0", ...o.env });
    const argv = o.after ? ["sh", "-c", `"$0" "$@"; s=$?; ${o.after}; exit $s`, bin, ...(o.argv ?? [])] : [bin, ...(o.argv ?? [])];
    const term = startTerm({ argv, env, cwd, columns: o.columns, rows: o.rows });
    terms.push(term);
    if (o.wait !== false) await term.waitFor(o.wait ?? "context");
    return { fake, cwd, env, term, bin };
  };
}

export const send = (term: Term, text: string) => {
  term.type(text);
  term.keys("Enter");
};

/** The transcript files (main sessions, not subagents) under the config dir, newest last by name order. */
export function transcriptFiles(env: Record<string, string>): string[] {
  const root = join(env.YOKE_CONFIG_DIR!, "projects");
  return readdirSync(root, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith(".jsonl") && !f.includes("subagents"))
    .map((f) => join(root, f));
}

export const readLines = (file: string): any[] => readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l));

/** Every transcript line of the one session under the config dir. */
export function transcriptLines(env: Record<string, string>): any[] {
  const files = transcriptFiles(env);
  expect(files.length).toBe(1);
  return readLines(files[0]!);
}

/** The session id from the line printed after the session ends. */
export const resumeId = (screen: string) => /yoke --resume ([0-9a-f-]{36})/.exec(screen)?.[1];

/** The text blocks of the last user message of a request. */
export const lastUserTexts = (req: { body: any }): string[] => {
  const m = [...req.body.messages].reverse().find((x: any) => x.role === "user");
  return typeof m.content === "string" ? [m.content] : m.content.filter((b: any) => b.type === "text").map((b: any) => b.text);
};

/**
 * A probe run in the same terminal right after yoke exits (pass `after` as the session's `after`): it records
 * `stty -a` and yoke's exit status, then holds the pane open (tmux reports a dead pane's cursor as hidden) until
 * `restored` has read the cursor and screen flags.
 */
export function terminalProbe() {
  const f = join(tempDir("yoke-probe-"), "p");
  return {
    after: `stty -a > ${f}.stty; echo $s > ${f}.code; until [ -e ${f}.done ]; do sleep 0.05; done`,
    /** yoke's exit status, once the terminal is checked: line editing, echo and signals on, cursor shown, main screen. */
    async restored(term: Term): Promise<number> {
      await waitFor(() => existsSync(`${f}.code`) && readFileSync(`${f}.code`, "utf8").trim() !== "", "yoke to exit", 30_000);
      const modes = readFileSync(`${f}.stty`, "utf8").split(/[\s;]+/);
      expect(modes).toContain("icanon");
      expect(modes).toContain("echo");
      expect(modes).toContain("isig");
      expect(term.format("#{cursor_flag}")).toBe("1");
      expect(term.format("#{alternate_on}")).toBe("0");
      writeFileSync(`${f}.done`, "");
      await term.waitExit();
      return Number(readFileSync(`${f}.code`, "utf8").trim());
    },
  };
}

const cwdOf = (pid: number) => {
  try {
    return readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return "";
  }
};

/** yoke's pid: the process running the binary in this session's folder (a probe's shell may sit between it and the pane). */
export function yokePid(s: TuiSession): number {
  const p = processes().find((x) => x.cmdline.split("\0")[0] === s.bin && cwdOf(x.pid) === s.cwd);
  if (!p) throw new Error("yoke is not running");
  return p.pid;
}

/**
 * A SessionEnd hook that records its input (after `sleepSeconds`, so frames and writes can keep failing meanwhile),
 * written whole (`.part`, then mv). Its timeout of 10 s raises SessionEnd's 1.5 s budget (contracts §1.2), so a
 * loaded machine does not cut it short.
 */
export function sessionEndRecorder(sleepSeconds = 0) {
  const marker = join(tempDir("yoke-session-end-"), "session-end.json");
  const sleep = sleepSeconds > 0 ? `sleep ${sleepSeconds}; ` : "";
  const hook = { type: "command", command: `${sleep}cat > ${marker}.part && mv ${marker}.part ${marker}`, timeout: 10 };
  return { marker, settings: { hooks: { SessionEnd: [{ hooks: [hook] }] } } };
}

/** Closes the terminal (tmux's server goes); returns SessionEnd's input once the hook has run and yoke has exited. */
export async function closeTerminal(s: TuiSession, marker: string) {
  const pid = yokePid(s);
  s.term.kill();
  await waitFor(() => existsSync(marker), "the SessionEnd hook to finish", 30_000);
  await waitFor(() => !alive(pid), "yoke to exit", 30_000);
  return JSON.parse(readFileSync(marker, "utf8"));
}
