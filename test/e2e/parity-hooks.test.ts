// Issue 17 points 1, 3 and 5: hook payloads and hook-driven loops as Claude Code 2.1.332 has them, run through the
// compiled binary against the fake API.
import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isolatedEnv, runYoke, yokeBin } from "../helpers/binary.ts";
import { toolResultsOf } from "../helpers/fake-anthropic.ts";
import { bashCall, hook, hooksProject, runWith, say, script } from "./hooks-helpers.ts";

// Each test runs the compiled binary (some several times): seconds apiece on a loaded 2-core machine.

beforeAll(() => void yokeBin());

const payloads = (file: string): any[] => readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l));

/** A Stop hook as published hooks write it: block unless stop_hook_active says it already did. */
const guardedStop = (cwd: string, log: string) =>
  script(cwd, "stop.sh", `in=$(cat); echo "$in" >> ${log}\nif echo "$in" | grep -q '"stop_hook_active":true'; then exit 0; fi\necho "run the tests first" >&2; exit 2`);

describe("Stop hook loops (issue 17.1, 17.3)", () => {
  test("stop_hook_active stays true for the rest of the turn, also after tool calls (contracts §1.6)", async () => {
    const cwd = hooksProject({});
    const log = join(cwd, "stop.log");
    writeFileSync(join(cwd, ".claude/settings.json"), JSON.stringify({ hooks: hook("Stop", guardedStop(cwd, log)) }));
    // end → blocked → tool call → end again: the guarded hook must see true and let the turn end (3 requests).
    const r = await runWith(cwd, [say("done?"), bashCall("echo tests ok"), say("tests pass"), say("(unexpected)")], ["--allowedTools", "Bash", "--output-format", "json"]);
    expect(r.code).toBe(0);
    expect(r.json.result).toBe("tests pass");
    expect(payloads(log).map((p) => p.stop_hook_active)).toEqual([false, true]);
    expect(r.requests.length).toBe(3);
  });

  test.each([
    ["2", 3],
    ["0", 1],
  ])("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP=%s: the turn ends after that many blocks in a row", async (cap, requests) => {
    const cwd = hooksProject(hook("Stop", `bash -c 'cat >/dev/null; echo "keep going" >&2; exit 2'`));
    const replies = Array.from({ length: 12 }, (_, i) => say(`attempt ${i}`));
    const r = await runWith(cwd, replies, ["--output-format", "json"], { env: { CLAUDE_CODE_STOP_HOOK_BLOCK_CAP: cap } });
    expect(r.code).toBe(0);
    expect(r.requests.length).toBe(requests);
  });

  test("a bad CLAUDE_CODE_STOP_HOOK_BLOCK_CAP is an error naming it", async () => {
    const r = await runWith(hooksProject({}), [], [], { env: { CLAUDE_CODE_STOP_HOOK_BLOCK_CAP: "many" } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP must be a whole number");
  });

  test("a Stop hook's systemMessage is shown to the user: stderr in text mode, system/informational in stream-json (contracts §1.6)", async () => {
    const cwd = hooksProject(hook("Stop", `bash -c 'cat >/dev/null; echo "{\\"systemMessage\\":\\"lint is clean\\"}"'`));
    const text = await runWith(cwd, [say("ok")], []);
    expect(text.stdout.trim()).toBe("ok");
    expect(text.stderr).toContain("lint is clean");
    const sj = await runWith(cwd, [say("ok")], ["--output-format", "stream-json", "--verbose"]);
    expect(sj.lines!.find((l) => l.type === "system" && l.subtype === "informational")?.content).toBe("lint is clean");
  });
});

describe("payload keys (issue 17.5; hooks-hook-stdin-shape.txt, observed in 2.1.332)", () => {
  test("every key Claude Code sends, in its order; prompt_id shared within a prompt; file paths absolute", async () => {
    const cwd = hooksProject({});
    const log = join(cwd, "all.log");
    const rec = script(cwd, "rec.sh", `cat >> ${log}; echo >> ${log}`);
    const events = ["UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd", "SessionStart"];
    // SessionEnd's own timeout raises its 1.5 s budget (contracts §1.2): a loaded machine must not cut the record short.
    const own = (e: string) => (e === "SessionEnd" ? { timeout: 30 } : {});
    writeFileSync(join(cwd, ".claude/settings.json"), JSON.stringify({ hooks: Object.assign({}, ...events.map((e) => hook(e, rec, undefined, own(e)))) }));
    const r = await runWith(
      cwd,
      [{ content: [{ type: "tool_use", name: "Write", input: { file_path: "sub/out.txt", content: "x\n" } }] }, say("written")],
      ["--permission-mode", "acceptEdits"],
    );
    expect(r.code).toBe(0);
    const seen = payloads(log);
    const keys = (e: string) => Object.keys(seen.find((p) => p.hook_event_name === e));
    expect(keys("SessionStart")).toEqual(["session_id", "transcript_path", "cwd", "hook_event_name", "source", "model"]);
    expect(keys("UserPromptSubmit")).toEqual(["session_id", "transcript_path", "cwd", "prompt_id", "permission_mode", "hook_event_name", "prompt"]);
    const common = ["session_id", "transcript_path", "cwd", "prompt_id", "permission_mode", "effort", "hook_event_name"];
    expect(keys("PreToolUse")).toEqual([...common, "tool_name", "tool_input", "tool_use_id"]);
    expect(keys("PostToolUse")).toEqual([...common, "tool_name", "tool_input", "tool_response", "tool_use_id", "duration_ms"]);
    expect(keys("Stop")).toEqual([...common, "stop_hook_active", "last_assistant_message", "background_tasks", "session_crons"]);
    expect(keys("SessionEnd")).toEqual(["session_id", "transcript_path", "cwd", "prompt_id", "hook_event_name", "reason"]);
    const ids = new Set(seen.filter((p) => p.prompt_id).map((p) => p.prompt_id));
    expect(ids.size).toBe(1);
    const pre = seen.find((p) => p.hook_event_name === "PreToolUse");
    expect(pre.effort).toEqual({ level: "medium" });
    expect(pre.tool_input.file_path).toBe(join(cwd, "sub/out.txt"));
    const stop = seen.find((p) => p.hook_event_name === "Stop");
    expect(stop.background_tasks).toEqual([]);
    // Observed in 2.1.332 with this set-up (a Write, no scheduled prompt): session_crons is [] too. It lists the jobs
    // its CronCreate tool scheduled in the session ({id, schedule, recurring, prompt}, e.g.
    // {"id":"a213c83e","schedule":"7 * * * *","recurring":true,"prompt":"check the deploy"}); yoke has no such tool,
    // so nothing can be scheduled and [] is what 2.1.332 sends for a session without one.
    expect(stop.session_crons).toEqual([]);
  });

  test("PostToolUseFailure carries is_interrupt; PermissionRequest carries permission_suggestions (contracts §1.4)", async () => {
    const cwd = hooksProject({});
    const log = join(cwd, "all.log");
    const rec = script(cwd, "rec.sh", `cat >> ${log}; echo >> ${log}`);
    writeFileSync(join(cwd, ".claude/settings.json"), JSON.stringify({ hooks: { ...hook("PostToolUseFailure", rec), ...hook("PermissionRequest", rec) } }));
    const r = await runWith(cwd, [bashCall("exit 3"), bashCall("npm test"), say("stopped")], ["--allowedTools", "Bash(exit *)"]);
    expect(r.code).toBe(0); // ended right after the headless denial of `npm test` (exit 3 only with --exit-code-on-denial)
    const seen = payloads(log);
    const failure = seen.find((p) => p.hook_event_name === "PostToolUseFailure");
    expect(failure.is_interrupt).toBe(false);
    const perm = seen.find((p) => p.hook_event_name === "PermissionRequest");
    expect(perm.permission_suggestions).toEqual([
      { type: "addRules", rules: [{ toolName: "Bash", ruleContent: "npm test:*" }], behavior: "allow", destination: "localSettings" },
    ]);
  });

  test('a PreToolUse deny with no reason reaches the model as "Blocked by hook" (internals §8.1)', async () => {
    const cwd = hooksProject(hook("PreToolUse", `bash -c 'cat >/dev/null; echo "{\\"decision\\":\\"block\\"}"'`, "Bash"));
    const r = await runWith(cwd, [bashCall("echo hi"), say("ok")], ["--allowedTools", "Bash"]);
    expect(toolResultsOf(r.requests[1]!)[0]!.text).toBe("PreToolUse:Bash hook error: Blocked by hook");
  });
});

describe("async hooks (issue 17.2, contracts §1.2 async, §1.6 async form)", () => {
  test('a hook whose first line is {"async":true} runs on in the background: the session does not wait, its later output is not "invalid JSON"', async () => {
    const cwd = hooksProject({});
    const gate = join(cwd, "gate");
    // Waits for a file the model's next tool call creates: if the session waited for this hook, it could never come.
    const slow = script(
      cwd,
      "slow.sh",
      `cat >/dev/null; echo '{"async":true}'\nfor i in $(seq 1 500); do [ -e ${gate} ] && break; sleep 0.01; done\necho '{"systemMessage":"ASYNC-DONE"}'`,
    );
    writeFileSync(join(cwd, ".claude/settings.json"), JSON.stringify({ hooks: hook("PostToolUse", slow, "Bash") }));
    const r = await runWith(cwd, [bashCall("echo first"), bashCall(`touch ${gate}`), say("both ran")], ["--allowedTools", "Bash", "--output-format", "stream-json", "--verbose", "--include-hook-events"]);
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain("not valid JSON");
    expect(r.lines!.find((l) => l.type === "result")).toMatchObject({ result: "both ran" });
    const outputs = r.lines!.filter((l) => l.type === "system" && l.subtype === "hook_response").map((l) => l.stdout);
    expect(outputs.some((o: string) => o.includes("ASYNC-DONE"))).toBe(true);
  });

  test('the "async" setting: the hook runs beside the session and cannot block it', async () => {
    const cwd = hooksProject({});
    const gate = join(cwd, "gate");
    const slow = script(cwd, "slow.sh", `cat >/dev/null\nfor i in $(seq 1 500); do [ -e ${gate} ] && break; sleep 0.01; done\necho "too late to block" >&2; exit 2`);
    writeFileSync(join(cwd, ".claude/settings.json"), JSON.stringify({ hooks: hook("PreToolUse", slow, "Bash", { async: true }) }));
    const r = await runWith(cwd, [bashCall(`touch ${gate}`), say("ran")], ["--allowedTools", "Bash", "--output-format", "json"]);
    expect(r.code).toBe(0);
    expect(toolResultsOf(r.requests[1]!)[0]!.is_error).toBe(false);
  });
});

describe("yoke hooks run (issue 17.4)", () => {
  test("the transcript_path exists: a temporary copy of the latest session (or an empty file), said on stderr, removed after", async () => {
    const cwd = hooksProject({});
    const seen = join(cwd, "seen.txt");
    // A Stop hook that inspects the transcript, as published ones do.
    const stop = script(cwd, "stop.sh", `p=$(sed -E 's/.*"transcript_path":"([^"]*)".*/\\1/'); echo "$p" > ${seen}; wc -l < "$p" >> ${seen}; grep -c '"type":"assistant"' "$p" >> ${seen} || true`);
    writeFileSync(join(cwd, ".claude/settings.json"), JSON.stringify({ hooks: hook("Stop", stop) }));
    const env = isolatedEnv({ YOKE_TRUST_WORKSPACE: "1" });
    const empty = await runYoke(["hooks", "run", "Stop"], { cwd, env });
    expect(empty.code).toBe(0);
    expect(empty.stderr).toContain("transcript_path is an empty file (no earlier session in this folder)");
    const [p0, n0] = readFileSync(seen, "utf8").trim().split("\n");
    expect(n0!.trim()).toBe("0");
    expect(existsSync(p0!)).toBe(false);
    expect(p0!.startsWith(cwd)).toBe(false);
    // After a real session, the hook sees a copy of it, with its assistant line.
    const real = await runWith(cwd, [say("the answer")], [], { env: { HOME: env.HOME, YOKE_CONFIG_DIR: env.YOKE_CONFIG_DIR, CLAUDE_CONFIG_DIR: env.CLAUDE_CONFIG_DIR } });
    expect(real.code).toBe(0);
    const copy = await runYoke(["hooks", "run", "Stop"], { cwd, env });
    expect(copy.stderr).toContain("transcript_path is a temporary copy of session");
    const [p1, , a1] = readFileSync(seen, "utf8").trim().split("\n");
    expect(Number(a1)).toBe(1);
    expect(existsSync(p1!)).toBe(false);
    expect(readdirSync(cwd).filter((f) => f.includes("dry-run"))).toEqual([]);
  });
});
