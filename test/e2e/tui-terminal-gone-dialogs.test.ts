/**
 * The terminal going away (tmux closes it: input ends, writes fail, SIGHUP) while the session waits on a dialog other
 * than the permission prompt (tui-terminal-gone.test.ts has that one), or while a subagent runs a command: the
 * rewind picker, the /resume picker, a subagent's streaming Bash, a /compact whose request never answers. Each time SessionEnd runs with reason "other"
 * (contracts §1.4), yoke exits, and nothing it started is left running.
 */
import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runYoke } from "../helpers/binary.ts";
import { alive } from "../helpers/process-alive.ts";
import { tempDir } from "../helpers/tmp.ts";
import { waitFor } from "../helpers/wait-for.ts";
import { closeTerminal, send, sessionEndRecorder, transcriptFiles, tuiSuite } from "./tui-helpers.ts";

const session = tuiSuite();
const say = (text: string) => ({ content: [{ type: "text" as const, text }] });




test("while the rewind picker is open", async () => {
  const { marker, settings } = sessionEndRecorder();
  const s = await session([say("first answer")], { argv: ["--settings", JSON.stringify(settings)] });
  send(s.term, "first prompt");
  await s.term.waitFor("first answer");
  s.term.keys("Escape");
  await s.term.waitFor("Press Esc again to rewind", { where: "screen" });
  s.term.keys("Escape");
  await s.term.waitFor("Rewind to before which prompt?");
  expect((await closeTerminal(s, marker)).reason).toBe("other");
}, 90_000);

test("while the /resume picker is open", async () => {
  const { marker, settings } = sessionEndRecorder();
  // The fake answers in order: the earlier -p session of this folder (for the picker to list) first.
  const s = await session([say("earlier"), say("first answer")], { argv: ["--settings", JSON.stringify(settings)] });
  await runYoke(["-p", "an earlier session"], { env: s.env, cwd: s.cwd });
  send(s.term, "first prompt");
  await s.term.waitFor("first answer");
  send(s.term, "/resume");
  await s.term.waitFor("Resume which session?");
  expect((await closeTerminal(s, marker)).reason).toBe("other");
  // This session's transcript is whole.
  for (const f of transcriptFiles(s.env)) for (const l of readFileSync(f, "utf8").trim().split("\n")) JSON.parse(l);
}, 90_000);

test("while a subagent's Bash streams output: SessionEnd runs, the command's process is stopped", async () => {
  const { marker, settings } = sessionEndRecorder();
  const dir = tempDir("yoke-gone-sub-");
  const pidFile = join(dir, "bash.pid");
  const command = `echo $$ > ${pidFile}; for i in $(seq 1 3000); do echo tick $i; sleep 0.01; done`;
  const s = await session(
    [
      { content: [{ type: "tool_use", name: "Agent", input: { description: "count", prompt: "count", subagent_type: "general-purpose" } }] },
      { content: [{ type: "tool_use", name: "Bash", input: { command, description: "tick" } }] },
    ],
    { argv: ["--allowedTools", "Bash", "--settings", JSON.stringify(settings)] },
  );
  send(s.term, "delegate counting");
  await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").trim() !== "", "the subagent's command to start", 30_000);
  const bash = Number(readFileSync(pidFile, "utf8").trim());
  expect((await closeTerminal(s, marker)).reason).toBe("other");
  await waitFor(() => !alive(bash), "the subagent's command to be stopped", 30_000);
}, 90_000);

test("during /compact (its request never answers): SessionEnd runs, the transcript is whole and resumes", async () => {
  const { marker, settings } = sessionEndRecorder();
  const s = await session([say("first answer"), say("second answer"), say("third answer"), { fault: "hang" }], { argv: ["--settings", JSON.stringify(settings)] });
  send(s.term, "first prompt");
  await s.term.waitFor("first answer");
  send(s.term, "second prompt");
  await s.term.waitFor("second answer");
  send(s.term, "third prompt");
  await s.term.waitFor("third answer");
  send(s.term, "/compact keep it short");
  await waitFor(() => s.fake.requests.length >= 4, "the compaction request to arrive", 30_000);
  const input = await closeTerminal(s, marker);
  expect(input.reason).toBe("other");
  const files = transcriptFiles(s.env);
  expect(files).toHaveLength(1);
  const raw = readFileSync(files[0]!, "utf8");
  expect(raw.endsWith("\n")).toBe(true);
  for (const l of raw.trim().split("\n")) JSON.parse(l);
  s.fake.push(say("resumed fine"));
  const r = await runYoke(["-p", "--resume", input.session_id, "go on"], { env: s.env, cwd: s.cwd });
  expect(r.stdout.trim()).toBe("resumed fine");
  expect(JSON.stringify(s.fake.requests.at(-1)!.body.messages)).toContain("first prompt");
}, 90_000);
