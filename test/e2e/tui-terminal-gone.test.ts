/**
 * The terminal going away under a session (window closed, ssh dropped), in the states a session can be in: a tool
 * streaming output, a permission prompt waiting, a turn just answered, the SessionEnd hook still running. Its input
 * ends, every write to it fails with EIO and SIGHUP arrives, in whatever order the kernel and Bun deliver them.
 *
 * Matched to Claude Code 2.1.332 (contracts §1.4 SessionEnd reasons): the session ends with SessionEnd, reason
 * "other", the transcript whole (every line parses) and resumable, and no yoke process is left behind. A failed
 * write to the gone terminal is not a crash: before this file, one arriving while SessionEnd ran (a frame drawn as
 * the turn was stopped) exited at once and the hook never finished.
 */
import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runYoke } from "../helpers/binary.ts";
import { alive } from "../helpers/process-alive.ts";
import { tempDir } from "../helpers/tmp.ts";
import { waitFor } from "../helpers/wait-for.ts";
import { closeTerminal, send, sessionEndRecorder, transcriptFiles, tuiSuite, yokePid, type TuiSession } from "./tui-helpers.ts";

const session = tuiSuite();
const say = (text: string) => ({ content: [{ type: "text" as const, text }] });




/** Every line parses, the prompt is in it, and the session resumes in -p with the prompt sent again. */
async function expectWholeAndResumable(s: TuiSession, prompt: string, sessionId: string) {
  const files = transcriptFiles(s.env);
  expect(files).toHaveLength(1);
  const raw = readFileSync(files[0]!, "utf8");
  expect(raw.endsWith("\n")).toBe(true);
  const lines = raw.trim().split("\n").map((l) => JSON.parse(l));
  expect(lines.find((l) => l.sessionId)!.sessionId).toBe(sessionId);
  expect(lines.some((l) => l.type === "user" && JSON.stringify(l.message.content).includes(prompt))).toBe(true);
  s.fake.push(say("resumed fine"));
  const r = await runYoke(["-p", "--resume", sessionId, "go on"], { env: s.env, cwd: s.cwd });
  expect(r.stdout.trim()).toBe("resumed fine");
  expect(JSON.stringify(s.fake.requests.at(-1)!.body.messages)).toContain(prompt);
  return lines;
}

test("while a tool streams output (frames drawn as it is stopped): SessionEnd runs to its end, the call is recorded as stopped", async () => {
  const { marker, settings } = sessionEndRecorder(1);
  const s = await session(
    [{ content: [{ type: "tool_use", name: "Bash", input: { command: "for i in $(seq 1 2000); do echo tick $i; sleep 0.01; done", description: "tick" } }] }],
    { argv: ["--allowedTools", "Bash", "--settings", JSON.stringify(settings)] },
  );
  send(s.term, "count for a while");
  await s.term.waitFor(/tick \d+/);
  const input = await closeTerminal(s, marker);
  expect(input.hook_event_name).toBe("SessionEnd");
  expect(input.reason).toBe("other");
  const lines = await expectWholeAndResumable(s, "count for a while", input.session_id);
  // The Bash call has its result: the conversation resumes with a tool_use answered.
  const results = lines.filter((l) => l.type === "user" && Array.isArray(l.message.content) && l.message.content.some((b: any) => b.type === "tool_result"));
  expect(results.length).toBe(1);
}, 90_000);

test("while a permission prompt waits: the prompt is not left hanging, SessionEnd runs and yoke exits", async () => {
  const { marker, settings } = sessionEndRecorder(1);
  const s = await session([{ content: [{ type: "tool_use", name: "Bash", input: { command: "touch should-not-exist", description: "touch" } }] }], {
    argv: ["--settings", JSON.stringify(settings)],
  });
  send(s.term, "make a file");
  await s.term.waitFor("Allow Bash?");
  const input = await closeTerminal(s, marker);
  expect(input.reason).toBe("other");
  // Nobody answered: nothing ran.
  expect(existsSync(join(s.cwd, "should-not-exist"))).toBe(false);
  await expectWholeAndResumable(s, "make a file", input.session_id);
}, 90_000);

test("between turns, with a SessionEnd hook past the default 1.5 s budget but within its own timeout: it finishes, yoke exits", async () => {
  const { marker, settings } = sessionEndRecorder(2);
  const s = await session([say("answered")], { argv: ["--settings", JSON.stringify(settings)] });
  send(s.term, "a question");
  await s.term.waitFor("answered");
  const input = await closeTerminal(s, marker);
  expect(input.reason).toBe("other");
  const lines = await expectWholeAndResumable(s, "a question", input.session_id);
  expect(lines.filter((l) => l.type === "assistant").at(-1).message.content[0].text).toBe("answered");
}, 90_000);

test("while an MCP server is still starting: yoke exits and stops it, no process left behind", async () => {
  // A server that never answers initialize keeps compose waiting; the terminal closes during that wait.
  const dir = tempDir("yoke-gone-mcp-");
  const started = join(dir, "started");
  const mcp = { mcpServers: { slow: { command: "sh", args: ["-c", `echo $$ > ${started}; exec sleep 300`] } } };
  const s = await session([], { argv: ["--mcp-config", JSON.stringify(mcp)], wait: false, env: { MCP_TIMEOUT: "60000" } });
  await waitFor(() => existsSync(started) && readFileSync(started, "utf8").trim() !== "", "the MCP server to start", 30_000);
  const pid = yokePid(s);
  const server = Number(readFileSync(started, "utf8").trim());
  s.term.kill();
  await waitFor(() => !alive(pid), "yoke to exit", 30_000);
  await waitFor(() => !alive(server), "the MCP server to be stopped", 30_000);
}, 90_000);
