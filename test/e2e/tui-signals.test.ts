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
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { alive } from "../helpers/process-alive.ts";
import { tempDir } from "../helpers/tmp.ts";
import { waitFor } from "../helpers/wait-for.ts";
import { send, sessionEndRecorder, terminalProbe, transcriptFiles, tuiSuite, yokePid } from "./tui-helpers.ts";

const session = tuiSuite();
const say = (text: string) => ({ content: [{ type: "text" as const, text }] });



for (const [sig, code] of [
  ["SIGINT", 130],
  ["SIGTERM", 143],
] as const) {
  test(`${sig} between turns: SessionEnd (reason "other"), the terminal restored, exit ${code}, the transcript whole`, async () => {
    const p = terminalProbe();
    const { marker, settings } = sessionEndRecorder();
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
    const p = terminalProbe();
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
