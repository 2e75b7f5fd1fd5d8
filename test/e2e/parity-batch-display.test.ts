// Issue 17 (review point 4): the PostToolBatch and MessageDisplay hook events, fired with the payload Claude Code
// 2.1.332 sends (hooks-hook-stdin-shape.txt) at the moment it fires them, run through the compiled binary.
import { beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { yokeBin } from "../helpers/binary.ts";
import { bashCall, hook, hooksProject, runWith, say, script } from "./hooks-helpers.ts";

beforeAll(() => void yokeBin());

const payloads = (file: string): any[] => readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l));
/** A hook that logs its stdin payload to `log` and prints `out`. */
const logging = (cwd: string, name: string, log: string, out = "") =>
  script(cwd, `${name}.sh`, `cat >> ${log}; echo >> ${log}${out ? `\necho '${out}'` : ""}`);
const transcriptLines = (home: string): any[] => {
  const root = join(home, ".yoke", "projects");
  const dir = join(root, readdirSync(root)[0]!);
  const file = readdirSync(dir).find((f) => f.endsWith(".jsonl"))!;
  return readFileSync(join(dir, file), "utf8").trim().split("\n").map((l) => JSON.parse(l));
};
const twoCalls = {
  content: [
    { type: "text" as const, text: "Running both." },
    { type: "tool_use" as const, name: "Bash", input: { command: "echo hi" } },
    { type: "tool_use" as const, name: "Read", input: { file_path: "notes.txt" } },
  ],
};

describe("PostToolBatch (contracts §1.1, §1.4, §1.9)", () => {
  test("fires once per assistant message after all its tools, calls in the message's order with the model-facing result; additionalContext reaches the model", async () => {
    const cwd = hooksProject({});
    writeFileSync(join(cwd, "notes.txt"), "note one\n");
    const log = join(cwd, "batch.log");
    const cmd = logging(cwd, "batch", log, '{"hookSpecificOutput":{"hookEventName":"PostToolBatch","additionalContext":"batch ctx"}}');
    writeFileSync(join(cwd, ".claude/settings.json"), JSON.stringify({ hooks: hook("PostToolBatch", cmd) }));
    const r = await runWith(cwd, [twoCalls, bashCall("echo again"), say("done")], ["--allowedTools", "Bash,Read"]);
    expect(r.code).toBe(0);
    const seen = payloads(log);
    expect(seen.length).toBe(2);
    // hooks-hook-stdin-shape.txt: the common tool-context keys, then tool_calls.
    expect(Object.keys(seen[0])).toEqual(["session_id", "transcript_path", "cwd", "prompt_id", "permission_mode", "effort", "hook_event_name", "tool_calls"]);
    expect(seen[0].tool_calls.map((c: any) => c.tool_name)).toEqual(["Bash", "Read"]);
    expect(Object.keys(seen[0].tool_calls[0])).toEqual(["tool_name", "tool_input", "tool_use_id", "tool_response"]);
    // tool_response is the tool_result content the model gets, not PostToolUse's structured object (observed in 2.1.332).
    expect(seen[0].tool_calls[0].tool_response).toBe("hi");
    expect(seen[0].tool_calls[1].tool_response).toContain("note one");
    expect(seen[0].tool_calls[0].tool_use_id).toBe(r.requests[1]!.body.messages[1].content.find((b: any) => b.type === "tool_use").id);
    expect(seen[1].tool_calls.map((c: any) => c.tool_input.command)).toEqual(["echo again"]);
    expect(JSON.stringify(r.requests[1]!.body.messages.at(-1))).toContain("PostToolBatch hook additional context: batch ctx");
  });

  test.each([
    ["decision block", `'{"decision":"block","reason":"batch says stop"}'`, (_: string) => "batch says stop"],
    // The exit-2 stderr keeps its newline (observed in 2.1.332).
    ["exit 2", `"tests are red" >&2; exit 2`, (cmd: string) => `[${cmd}]: tests are red\n`],
  ])("a %s ends the turn before the next model call: result empty, terminal_reason hook_stopped, a hook_stopped_continuation line", async (_, body, why) => {
    const cwd = hooksProject({});
    const cmd = script(cwd, "batch.sh", `cat >/dev/null; echo ${body}`);
    writeFileSync(join(cwd, ".claude/settings.json"), JSON.stringify({ hooks: hook("PostToolBatch", cmd) }));
    const r = await runWith(cwd, [bashCall("echo hi"), say("(never asked)")], ["--allowedTools", "Bash", "--output-format", "stream-json", "--verbose"]);
    expect(r.code).toBe(0);
    expect(r.requests.length).toBe(1);
    const result = r.lines!.at(-1);
    // Observed in 2.1.332: subtype success, result "", stop_reason tool_use, terminal_reason hook_stopped.
    expect([result.subtype, result.is_error, result.result, result.stop_reason, result.terminal_reason]).toEqual(["success", false, "", "tool_use", "hook_stopped"]);
    const line = transcriptLines(r.env.HOME!).find((l) => l.type === "attachment");
    expect(line.attachment).toMatchObject({ type: "hook_stopped_continuation", message: why(cmd), hookName: "PostToolBatch", hookEvent: "PostToolBatch" });
    expect(line.attachment.toolUseID).toMatch(/^hook-/);
    expect(line.rendered[0].content).toBe(`<system-reminder>\nPostToolBatch hook stopped continuation: ${why(cmd)}\n</system-reminder>`);
    expect(line.renderedRole).toBe("system");
  });

  test("no tool calls, no PostToolBatch; a matcher on it is ignored (no matcher support)", async () => {
    const cwd = hooksProject({});
    const log = join(cwd, "batch.log");
    writeFileSync(join(cwd, ".claude/settings.json"), JSON.stringify({ hooks: hook("PostToolBatch", logging(cwd, "batch", log), "NoSuchTool") }));
    const plain = await runWith(cwd, [say("just text")], []);
    expect(plain.code).toBe(0);
    expect(() => readFileSync(log)).toThrow();
    const tool = await runWith(cwd, [bashCall("echo hi"), say("ok")], ["--allowedTools", "Bash"]);
    expect(tool.code).toBe(0);
    expect(payloads(log).length).toBe(1);
  });
});

describe("MessageDisplay (contracts §1.1, §1.6)", () => {
  test("fires per assistant text with Claude Code's keys; turn_id shared within the prompt, message_id new per text; not for tool-only messages", async () => {
    const cwd = hooksProject({});
    const log = join(cwd, "disp.log");
    writeFileSync(join(cwd, ".claude/settings.json"), JSON.stringify({ hooks: hook("MessageDisplay", logging(cwd, "disp", log)) }));
    const r = await runWith(cwd, [twoCalls, bashCall("echo again"), say("all done")], ["--allowedTools", "Bash,Read"]);
    expect(r.code).toBe(0);
    const seen = payloads(log);
    expect(seen.map((p) => p.delta)).toEqual(["Running both.", "all done"]);
    expect(Object.keys(seen[0])).toEqual(["session_id", "transcript_path", "cwd", "prompt_id", "hook_event_name", "turn_id", "message_id", "index", "final", "delta"]);
    expect(seen.map((p) => [p.index, p.final])).toEqual([[0, true], [0, true]]);
    expect(seen[0].turn_id).toBe(seen[1].turn_id);
    expect(seen[0].message_id).not.toBe(seen[1].message_id);
    expect(seen[0].prompt_id).toBe(seen[1].prompt_id);
  });

  test("displayContent replaces the shown text in stream-json, also with partial messages; the model and the transcript keep the original", async () => {
    const cwd = hooksProject({});
    const cmd = script(cwd, "disp.sh", `cat >/dev/null; echo '{"hookSpecificOutput":{"hookEventName":"MessageDisplay","displayContent":"SHOWN"}}'`);
    writeFileSync(join(cwd, ".claude/settings.json"), JSON.stringify({ hooks: hook("MessageDisplay", cmd) }));
    const r = await runWith(cwd, [twoCalls, say("second")], ["--allowedTools", "Bash,Read", "--output-format", "stream-json", "--verbose", "--include-partial-messages"]);
    expect(r.code).toBe(0);
    const shown = r.lines!.filter((l) => l.type === "assistant").flatMap((l) => l.message.content).filter((b: any) => b.type === "text").map((b: any) => b.text);
    expect(shown).toEqual(["SHOWN", "SHOWN"]);
    expect(JSON.stringify(r.requests[1]!.body.messages)).toContain("Running both.");
    const texts = transcriptLines(r.env.HOME!).filter((l) => l.type === "assistant").flatMap((l) => l.message.content).filter((b: any) => b.type === "text").map((b: any) => b.text);
    expect(texts).toEqual(["Running both.", "second"]);
  });
});
