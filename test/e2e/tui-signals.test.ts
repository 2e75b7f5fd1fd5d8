/**
 * SIGINT and SIGTERM sent to the interactive session from outside (`kill`, a process manager, a closing IDE), at each
 * stage: while the session is still composing (an MCP server that never answers keeps it there) and between turns.
 * As when the terminal goes away (tui-terminal-gone.test.ts): the terminal is left usable (line editing, echo,
 * signals on, cursor shown, main screen), a started session ends with SessionEnd, reason "other" (contracts §1.4),
 * its transcript whole, and yoke exits 128 + the signal's number. Before this file, SIGINT from outside killed yoke at
 * once at every stage (no handler: raw mode and the cursor left as they were, no SessionEnd), and SIGTERM did so until
 * the session had been composed.
 */
import { expect, test } from "bun:test";
import { existsSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { alive, processes } from "../helpers/process-alive.ts";
import { tempDir } from "../helpers/tmp.ts";
import type { Term } from "../helpers/tmux.ts";
import { waitFor } from "../helpers/wait-for.ts";
import { send, transcriptFiles, tuiSuite, type TuiSession } from "./tui-helpers.ts";

const session = tuiSuite();
const say = (text: string) => ({ content: [{ type: "text" as const, text }] });

/** Records `stty -a` and yoke's status right after it exits, holding the pane until the screen flags are read. */
function probe() {
  const f = join(tempDir("yoke-sig-probe-"), "p");
  return {
    after: `stty -a > ${f}.stty; echo $s > ${f}.code; until [ -e ${f}.done ]; do sleep 0.05; done`,
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

/** yoke's pid: the process running the binary in this session's folder (the probe's shell sits between it and the pane). */
function yokePid(s: TuiSession): number {
  const p = processes().find((x) => x.cmdline.split("\0")[0] === s.bin && cwdOf(x.pid) === s.cwd);
  if (!p) throw new Error("yoke is not running");
  return p.pid;
}

/** A SessionEnd hook that records its input. */
function sessionEndMarker() {
  const marker = join(tempDir("yoke-sig-"), "session-end.json");
  const hook = { type: "command", command: `cat > ${marker}.part && mv ${marker}.part ${marker}`, timeout: 10 };
  return { marker, settings: { hooks: { SessionEnd: [{ hooks: [hook] }] } } };
}

for (const [sig, code] of [
  ["SIGINT", 130],
  ["SIGTERM", 143],
] as const) {
  test(`${sig} between turns: SessionEnd (reason "other"), the terminal restored, exit ${code}, the transcript whole`, async () => {
    const p = probe();
    const { marker, settings } = sessionEndMarker();
    const s = await session([say("answered")], { argv: ["--settings", JSON.stringify(settings)], after: p.after });
    send(s.term, "a question");
    await s.term.waitFor("answered");
    process.kill(yokePid(s), sig);
    expect(await p.restored(s.term)).toBe(code);
    await waitFor(() => existsSync(marker), "the SessionEnd hook to finish", 30_000);
    expect(JSON.parse(readFileSync(marker, "utf8")).reason).toBe("other");
    const files = transcriptFiles(s.env);
    expect(files).toHaveLength(1);
    const lines = readFileSync(files[0]!, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(lines.some((l) => l.type === "assistant")).toBe(true);
  }, 90_000);

  test(`${sig} while an MCP server is still starting: the terminal restored, exit ${code}, the server stopped`, async () => {
    const p = probe();
    const dir = tempDir("yoke-sig-mcp-");
    const started = join(dir, "started");
    const mcp = { mcpServers: { slow: { command: "sh", args: ["-c", `echo $$ > ${started}; exec sleep 300`] } } };
    const s = await session([], { argv: ["--mcp-config", JSON.stringify(mcp)], wait: false, env: { MCP_TIMEOUT: "60000" }, after: p.after });
    await waitFor(() => existsSync(started) && readFileSync(started, "utf8").trim() !== "", "the MCP server to start", 30_000);
    const server = Number(readFileSync(started, "utf8").trim());
    process.kill(yokePid(s), sig);
    expect(await p.restored(s.term)).toBe(code);
    await waitFor(() => !alive(server), "the MCP server to be stopped", 30_000);
  }, 90_000);
}
