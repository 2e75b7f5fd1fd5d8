// Issue 4 end to end: Claude Code hook scripts behave the same under the compiled binary, in -p text, json and stream-json.
import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { toolResultsOf } from "../helpers/fake-anthropic.ts";
import { yokeBin } from "../helpers/binary.ts";
import { writeTree } from "../helpers/tmp.ts";
import { bashCall, hook, hooksProject, project, requestText, runWith, say, script } from "./hooks-helpers.ts";

beforeAll(() => {
  yokeBin();
});

describe("PreToolUse (contracts §1.5, §1.6, §1.7)", () => {
  test("exit 2 blocks the Bash call: model sees `PreToolUse:Bash hook error: [cmd]: stderr`, json result lists the denial", async () => {
    const cwd = project();
    const guard = script(cwd, "hooks/guard.sh", 'cat > /dev/null; echo "no touching marker" >&2; exit 2');
    writeFileSync(join(cwd, ".claude/settings.json"), JSON.stringify({ hooks: hook("PreToolUse", guard, "Bash") }));
    const r = await runWith(cwd, [bashCall("touch marker"), say("blocked, ok")], ["--output-format", "json", "--allowedTools", "Bash"]);
    expect(r.code).toBe(0); // a hook denial ends in success, as in Claude Code (exit 3 only with --exit-code-on-denial)
    expect(existsSync(join(cwd, "marker"))).toBe(false);
    const [res] = toolResultsOf(r.requests[1]!);
    expect(res!.is_error).toBe(true);
    // Observed in 2.1.332: the stderr verbatim, its newline kept.
    expect(res!.text).toBe(`PreToolUse:Bash hook error: [${guard}]: no touching marker\n`);
    expect(r.json.permission_denials).toHaveLength(1);
    expect(r.json.permission_denials[0]).toMatchObject({ tool_name: "Bash", tool_input: { command: "touch marker" } });
    expect(r.json.result).toBe("blocked, ok");
  });

  test("exit 2 in text mode: same block, stdout is the final text", async () => {
    const cwd = hooksProject(hook("PreToolUse", 'echo "stop right there" >&2; exit 2', "Bash"));
    const r = await runWith(cwd, [bashCall("touch marker"), say("fine")], ["--allowedTools", "Bash"]);
    expect(r.code).toBe(0); // a hook denial ends in success, as in Claude Code (exit 3 only with --exit-code-on-denial)
    expect(r.stdout).toBe("fine\n");
    expect(existsSync(join(cwd, "marker"))).toBe(false);
    expect(toolResultsOf(r.requests[1]!)[0]!.text).toContain("PreToolUse:Bash hook error: [");
    expect(toolResultsOf(r.requests[1]!)[0]!.text).toContain("stop right there");
  });

  test("JSON deny with a reason blocks; JSON allow lets a write through that default mode would deny; ask is denied headless", async () => {
    const decide = (d: string) =>
      `cat >/dev/null; echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"${d}","permissionDecisionReason":"policy says ${d}"}}'`;
    // deny
    let cwd = hooksProject(hook("PreToolUse", decide("deny"), "Write"));
    let r = await runWith(cwd, [{ content: [{ type: "tool_use", name: "Write", input: { file_path: join(cwd, "a.txt"), content: "x" } }] }, say("ok")], [
      "--output-format",
      "json",
      "--permission-mode",
      "acceptEdits",
    ]);
    expect(existsSync(join(cwd, "a.txt"))).toBe(false);
    expect(toolResultsOf(r.requests[1]!)[0]!.text).toBe("PreToolUse:Write hook error: policy says deny");
    expect(r.json.permission_denials).toHaveLength(1);
    // allow: default mode would deny a Write headless; the hook's allow answers the prompt
    cwd = hooksProject(hook("PreToolUse", decide("allow"), "Write"));
    r = await runWith(cwd, [{ content: [{ type: "tool_use", name: "Write", input: { file_path: join(cwd, "a.txt"), content: "x" } }] }, say("ok")], [
      "--output-format",
      "json",
    ]);
    expect(readFileSync(join(cwd, "a.txt"), "utf8")).toBe("x");
    expect(r.json.permission_denials).toEqual([]);
    // ask: would prompt; -p cannot, so it is denied
    cwd = hooksProject(hook("PreToolUse", decide("ask"), "Write"));
    r = await runWith(cwd, [{ content: [{ type: "tool_use", name: "Write", input: { file_path: join(cwd, "a.txt"), content: "x" } }] }, say("ok")], [
      "--output-format",
      "json",
      "--permission-mode",
      "acceptEdits",
    ]);
    expect(existsSync(join(cwd, "a.txt"))).toBe(false);
    expect(r.json.permission_denials).toHaveLength(1);
    expect(toolResultsOf(r.requests[1]!)[0]!.is_error).toBe(true);
  });

  test("updatedInput rewrites the command that runs", async () => {
    const cwd = hooksProject(
      hook(
        "PreToolUse",
        `cat >/dev/null; echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"echo rewritten > out.txt"}}}'`,
        "Bash",
      ),
    );
    const r = await runWith(cwd, [bashCall("echo original > out.txt"), say("done")], []);
    expect(r.code).toBe(0);
    expect(readFileSync(join(cwd, "out.txt"), "utf8")).toBe("rewritten\n");
  });

  test("matchers: `Write|Edit` list, regex, `*` and an empty matcher (contracts §1.3)", async () => {
    const log = (tag: string) => `cat >/dev/null; echo ${tag} >> "$CLAUDE_PROJECT_DIR/fired.log"`;
    const cwd = project({
      hooks: {
        PreToolUse: [
          { matcher: "Write|Edit", hooks: [{ type: "command", command: log("list") }] },
          { matcher: "^Ba.*", hooks: [{ type: "command", command: log("regex") }] },
          { matcher: "*", hooks: [{ type: "command", command: log("star") }] },
          { matcher: "", hooks: [{ type: "command", command: log("empty") }] },
          { matcher: "Read", hooks: [{ type: "command", command: log("read") }] },
        ],
      },
    });
    const r = await runWith(cwd, [{ content: [{ type: "tool_use", name: "Write", input: { file_path: join(cwd, "w.txt"), content: "w" } }] }, bashCall("true"), say("ok")], [
      "--allowedTools",
      "Bash Write",
    ]);
    expect(r.code).toBe(0);
    const fired = readFileSync(join(cwd, "fired.log"), "utf8").trim().split("\n").sort();
    expect(fired).toEqual(["empty", "empty", "list", "regex", "star", "star"]);
  });
});

describe("PostToolUse, UserPromptSubmit, Stop (contracts §1.6, §1.7)", () => {
  test("PostToolUse additionalContext and decision block reach the model after the tool ran", async () => {
    const cwd = hooksProject(
      hook(
        "PostToolUse",
        `cat >/dev/null; echo '{"decision":"block","reason":"lint failed on out.txt","hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"CTX-POST-42"}}'`,
        "Bash",
      ),
    );
    const r = await runWith(cwd, [bashCall("echo hi > out.txt"), say("ok")], ["--allowedTools", "Bash"]);
    expect(r.code).toBe(0);
    expect(readFileSync(join(cwd, "out.txt"), "utf8")).toBe("hi\n");
    const text = requestText(r.requests[1]!);
    expect(text).toContain("PostToolUse:Bash hook additional context: CTX-POST-42");
    // Observed in 2.1.332: `<Event>:<Tool> hook blocking error from command: "<command>": <reason>`.
    expect(text).toContain(
      `PostToolUse:Bash hook blocking error from command: "cat >/dev/null; echo '{"decision":"block","reason":"lint failed on out.txt","hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"CTX-POST-42"}}'": lint failed on out.txt`,
    );
  });

  test("PostToolUseFailure gets the error; its additionalContext reaches the model; PostToolUse does not fire", async () => {
    const cwd = hooksProject({
      ...hook("PostToolUseFailure", `cat > "$CLAUDE_PROJECT_DIR/fail.json"; echo '{"hookSpecificOutput":{"hookEventName":"PostToolUseFailure","additionalContext":"CTX-FAIL-3"}}'`, "Bash"),
      ...hook("PostToolUse", `touch "$CLAUDE_PROJECT_DIR/post-fired"`, "Bash"),
    });
    const r = await runWith(cwd, [bashCall("echo oops >&2; exit 3"), say("ok")], ["--allowedTools", "Bash"]);
    expect(r.code).toBe(0);
    expect(existsSync(join(cwd, "post-fired"))).toBe(false);
    const payload = JSON.parse(readFileSync(join(cwd, "fail.json"), "utf8"));
    expect(payload).toMatchObject({ hook_event_name: "PostToolUseFailure", tool_name: "Bash", tool_input: { command: "echo oops >&2; exit 3" } });
    expect(payload.error).toContain("oops");
    expect(requestText(r.requests[1]!)).toContain("PostToolUseFailure:Bash hook additional context: CTX-FAIL-3");
  });

  test("UserPromptSubmit: plain stdout and additionalContext become context; payload carries the prompt", async () => {
    const cwd = hooksProject(hook("UserPromptSubmit", `cat > "$CLAUDE_PROJECT_DIR/ups.json"; echo PLAIN-CTX-7`));
    const r = await runWith(cwd, [say("hello")], ["--output-format", "json"], { prompt: "what now" });
    expect(r.json.result).toBe("hello");
    expect(requestText(r.requests[0]!)).toContain("PLAIN-CTX-7");
    const payload = JSON.parse(readFileSync(join(cwd, "ups.json"), "utf8"));
    expect(payload).toMatchObject({ hook_event_name: "UserPromptSubmit", prompt: "what now", cwd, permission_mode: "default" });
    expect(typeof payload.session_id).toBe("string");
    expect(typeof payload.transcript_path).toBe("string");
  });

  test("UserPromptSubmit decision block: no model call, result is an error naming the reason", async () => {
    const cwd = hooksProject(hook("UserPromptSubmit", `cat >/dev/null; echo '{"decision":"block","reason":"no secrets in prompts"}'`));
    const r = await runWith(cwd, [], ["--output-format", "json"], { prompt: "my password is hunter2" });
    expect(r.requests).toHaveLength(0);
    expect(r.code).toBe(1);
    expect(r.json.is_error).toBe(true);
    expect(r.json.result).toContain("no secrets in prompts");
  });

  test("Stop block sends the loop on with the reason; stop_hook_active is true on re-entry (stream-json)", async () => {
    const cwd = project();
    const stop = script(
      cwd,
      "hooks/stop.sh",
      `p=$(cat); echo "$p" >> "$CLAUDE_PROJECT_DIR/stop.log"
if echo "$p" | grep -q '"stop_hook_active":false'; then echo '{"decision":"block","reason":"You forgot to run the tests."}'; fi
exit 0`,
    );
    writeFileSync(join(cwd, ".claude/settings.json"), JSON.stringify({ hooks: hook("Stop", stop) }));
    const r = await runWith(cwd, [say("all done"), say("ran the tests, really done")], ["--output-format", "stream-json", "--verbose"]);
    expect(r.code).toBe(0);
    expect(r.requests).toHaveLength(2);
    expect(requestText(r.requests[1]!)).toContain("Stop hook feedback:\nYou forgot to run the tests.");
    const payloads = readFileSync(join(cwd, "stop.log"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(payloads.map((p) => p.stop_hook_active)).toEqual([false, true]);
    expect(payloads[0]).toMatchObject({ hook_event_name: "Stop", last_assistant_message: "all done" });
    expect(r.lines!.find((l) => l.subtype === "notification")?.message).toContain("You forgot to run the tests.");
    expect(r.lines!.at(-1)).toMatchObject({ type: "result", is_error: false, result: "ran the tests, really done", num_turns: 2 });
  });
});

describe("session hooks and environment (contracts §1.4, §1.8)", () => {
  test("SessionStart context reaches the model; CLAUDE_ENV_FILE exports reach later Bash commands; SessionEnd fires", async () => {
    const cwd = project({
      hooks: {
        ...hook(
          "SessionStart",
          `cat > "$CLAUDE_PROJECT_DIR/start.json"; echo 'export FROM_HOOK=bar42' >> "$CLAUDE_ENV_FILE"; echo '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"START-CTX-9"}}'`,
          "startup",
        ),
        // Its own timeout raises SessionEnd's 1.5 s budget (contracts §1.2): a loaded machine must not cut it short.
        ...hook("SessionEnd", `cat > "$CLAUDE_PROJECT_DIR/end.json"`, undefined, { timeout: 30 }),
      },
    });
    const r = await runWith(cwd, [bashCall('echo "value=$FROM_HOOK"'), say("ok")], ["--allowedTools", "Bash"]);
    expect(r.code).toBe(0);
    expect(requestText(r.requests[0]!)).toContain("START-CTX-9");
    expect(toolResultsOf(r.requests[1]!)[0]!.text).toContain("value=bar42");
    expect(JSON.parse(readFileSync(join(cwd, "start.json"), "utf8"))).toMatchObject({ hook_event_name: "SessionStart", source: "startup" });
    expect(JSON.parse(readFileSync(join(cwd, "end.json"), "utf8"))).toMatchObject({ hook_event_name: "SessionEnd", reason: "other", cwd });
  });

  test("hook env: CLAUDE_PROJECT_DIR, CLAUDECODE, cwd; ${CLAUDE_PROJECT_DIR} in the command is substituted", async () => {
    const cwd = project();
    script(cwd, "hooks/env.sh", `cat >/dev/null; printf '%s\\n%s\\n%s\\n' "$CLAUDE_PROJECT_DIR" "$CLAUDECODE" "$PWD" > "$CLAUDE_PROJECT_DIR/env.txt"`);
    writeFileSync(join(cwd, ".claude/settings.json"), JSON.stringify({ hooks: hook("PreToolUse", "${CLAUDE_PROJECT_DIR}/hooks/env.sh", "Bash") }));
    const r = await runWith(cwd, [bashCall("true"), say("ok")], ["--allowedTools", "Bash"]);
    expect(r.code).toBe(0);
    expect(readFileSync(join(cwd, "env.txt"), "utf8").split("\n").slice(0, 3)).toEqual([cwd, "1", cwd]);
  });

  test("after the model cd's, hooks run in the new cwd (payload cwd too) while CLAUDE_PROJECT_DIR stays the project (user-demand #13)", async () => {
    const cwd = hooksProject(hook("PreToolUse", `p=$(cat); echo "$PWD|$CLAUDE_PROJECT_DIR|$(echo "$p" | grep -o '"cwd":"[^"]*"')" >> "$CLAUDE_PROJECT_DIR/where.log"`, "Bash"));
    const r = await runWith(cwd, [bashCall("mkdir -p sub && cd sub"), bashCall("pwd"), say("ok")], ["--allowedTools", "Bash"]);
    expect(r.code).toBe(0);
    const sub = join(cwd, "sub");
    expect(toolResultsOf(r.requests[2]!)[0]!.text).toContain(sub);
    expect(readFileSync(join(cwd, "where.log"), "utf8").trim().split("\n")).toEqual([`${cwd}|${cwd}|"cwd":"${cwd}"`, `${sub}|${cwd}|"cwd":"${sub}"`]);
  });

  test("disableAllHooks: configured hooks do not run", async () => {
    const cwd = project({ disableAllHooks: true, hooks: hook("PreToolUse", 'echo blocked >&2; exit 2', "Bash") });
    const r = await runWith(cwd, [bashCall("touch marker"), say("ok")], ["--allowedTools", "Bash"]);
    expect(r.code).toBe(0);
    expect(existsSync(join(cwd, "marker"))).toBe(true);
  });
});

describe("hooks that misbehave never take the run down (issue 4 item 2)", () => {
  test("a hook that hangs is killed at its timeout and the run finishes; the guarded call fails closed", async () => {
    // The hook would outlive runYoke's limit: a run that waited for it is killed (timedOut), however slow the machine.
    const cwd = hooksProject(hook("PreToolUse", "sleep 300", "Bash", { timeout: 1 }));
    const r = await runWith(cwd, [bashCall("touch marker"), say("ok")], ["--allowedTools", "Bash"]);
    expect(r.timedOut).toBe(false);
    expect(r.code).toBe(0);
    // A PreToolUse guard that never answered asks, and a headless run denies (issue 16 point 8; Claude Code lets it run).
    expect(existsSync(join(cwd, "marker"))).toBe(false);
    expect(r.stderr).toContain('hook command "sleep 300"');
    expect(r.stderr).toContain("timed out after 1 s");
  });

  test("garbage JSON and a crash are reported naming the command and settings file; the tool still runs", async () => {
    const cwd = project({
      hooks: {
        PreToolUse: [
          { matcher: "Bash", hooks: [{ type: "command", command: "cat >/dev/null; echo '{not json at all'" }] },
          { matcher: "Bash", hooks: [{ type: "command", command: "cat >/dev/null; echo boom >&2; exit 1" }] },
          { matcher: "Bash", hooks: [{ type: "command", command: "kill -SEGV $$" }] },
        ],
      },
    });
    const r = await runWith(cwd, [bashCall("touch marker"), say("ok")], ["--allowedTools", "Bash"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("ok\n");
    expect(existsSync(join(cwd, "marker"))).toBe(true);
    const settingsFile = join(cwd, ".claude/settings.json");
    const lines = r.stderr.trim().split("\n");
    const garbage = lines.find((l) => l.includes("{not json at all"));
    expect(garbage).toContain(settingsFile);
    expect(garbage).toContain("not valid JSON");
    const crash = lines.find((l) => l.includes("exit 1"));
    expect(crash).toContain(settingsFile);
    expect(crash).toContain("boom");
    expect(crash).toContain("only exit 2 or a JSON decision blocks"); // user-demand #12: exit 1 is not a block
    expect(lines.find((l) => l.includes("kill -SEGV"))).toContain(settingsFile);
  });
});

describe("stream-json --include-hook-events (contracts §1.9)", () => {
  test("hook_started / hook_response lines for every hook; SessionStart's even without the flag", async () => {
    const cwd = project({
      hooks: {
        ...hook("SessionStart", "cat >/dev/null; echo started-ok"),
        ...hook("PreToolUse", "cat >/dev/null; echo pre-out; echo pre-err >&2", "Bash"),
      },
    });
    let r = await runWith(cwd, [bashCall("true"), say("ok")], ["--output-format", "stream-json", "--verbose", "--allowedTools", "Bash", "--include-hook-events"]);
    expect(r.code).toBe(0);
    const hooks = r.lines!.filter((l) => l.type === "system" && l.subtype.startsWith("hook_"));
    expect(hooks.map((l) => `${l.subtype}:${l.hook_name}`)).toEqual([
      "hook_started:SessionStart:startup",
      "hook_response:SessionStart:startup",
      "hook_started:PreToolUse:Bash",
      "hook_response:PreToolUse:Bash",
    ]);
    const pre = hooks[3];
    expect(pre).toMatchObject({ hook_event: "PreToolUse", stdout: "pre-out\n", stderr: "pre-err\n", exit_code: 0, outcome: "success" });
    expect(pre.hook_id).toBe(hooks[2].hook_id);
    expect(typeof pre.session_id).toBe("string");
    expect(r.lines!.findIndex((l) => l.subtype === "hook_response")).toBeLessThan(r.lines!.findIndex((l) => l.subtype === "init"));

    r = await runWith(cwd, [bashCall("true"), say("ok")], ["--output-format", "stream-json", "--verbose", "--allowedTools", "Bash"]);
    expect(r.lines!.filter((l) => l.subtype?.startsWith("hook_")).map((l) => l.hook_event)).toEqual(["SessionStart", "SessionStart"]);
    // Two runs of the binary with hooks: more than the 5 s default on a loaded machine.
  }, 60_000);

  test("hook_started is written when a hook starts: two parallel hooks start before either answers", async () => {
    const cwd = project({
      hooks: {
        PreToolUse: [
          // slow answers only once fast has ended and been reaped by yoke (its pid gone), a barrier where a fixed 0.4 s
          // lost to a late start of fast on a busy machine. Run one after another, slow (first) would wait forever.
          {
            matcher: "Bash",
            hooks: [{ type: "command", command: `cat >/dev/null; f="$CLAUDE_PROJECT_DIR/fast.pid"; until [ -s "$f" ] && ! kill -0 "$(cat "$f")" 2>/dev/null; do sleep 0.01; done; echo slow` }],
          },
          { matcher: "Bash", hooks: [{ type: "command", command: `cat >/dev/null; f="$CLAUDE_PROJECT_DIR/fast.pid"; echo $$ > "$f.part" && mv "$f.part" "$f"; echo fast` }] },
        ],
      },
    });
    const r = await runWith(cwd, [bashCall("true"), say("ok")], ["--output-format", "stream-json", "--verbose", "--allowedTools", "Bash", "--include-hook-events"]);
    expect(r.code).toBe(0);
    const seq = r.lines!.filter((l) => l.type === "system" && l.hook_event === "PreToolUse").map((l) => `${l.subtype}${l.stdout ? `:${l.stdout.trim()}` : ""}`);
    expect(seq).toEqual(["hook_started", "hook_started", "hook_response:fast", "hook_response:slow"]);
    const toolResult = r.lines!.findIndex((l) => l.type === "user" && JSON.stringify(l.message).includes("tool_result"));
    expect(r.lines!.findLastIndex((l) => l.subtype === "hook_response")).toBeLessThan(toolResult);
  });

  test("stream-json: an exit-2 PreToolUse shows as permission_denials and a hook_response with outcome error", async () => {
    const cwd = hooksProject(hook("PreToolUse", 'echo "nope" >&2; exit 2', "Bash"));
    const r = await runWith(cwd, [bashCall("touch marker"), say("ok")], ["--output-format", "stream-json", "--verbose", "--include-hook-events", "--allowedTools", "Bash"]);
    const resp = r.lines!.find((l) => l.subtype === "hook_response");
    expect(resp).toMatchObject({ hook_event: "PreToolUse", exit_code: 2, outcome: "error", stderr: "nope\n" });
    expect(r.lines!.at(-1).permission_denials).toHaveLength(1);
    expect(existsSync(join(cwd, "marker"))).toBe(false);
  });
});

describe("every mode fires hooks the same way (issue 4 item 3)", () => {
  test("stream-json input: UserPromptSubmit per prompt, SessionStart and SessionEnd once", async () => {
    const log = (tag: string) => `p=$(cat); echo "${tag} $p" >> "$CLAUDE_PROJECT_DIR/events.log"`;
    const cwd = hooksProject({ ...hook("SessionStart", log("start")), ...hook("UserPromptSubmit", log("prompt")), ...hook("SessionEnd", log("end"), undefined, { timeout: 30 }) });
    const user = (text: string) => JSON.stringify({ type: "user", message: { role: "user", content: text } });
    const r = await runWith(cwd, [say("one"), say("two")], ["--output-format", "stream-json", "--input-format", "stream-json", "--verbose"], {
      stdin: `${user("first prompt")}\n${user("second prompt")}\n`,
    });
    expect(r.code).toBe(0);
    expect(r.lines!.filter((l) => l.type === "result").map((l) => l.result)).toEqual(["one", "two"]);
    const events = readFileSync(join(cwd, "events.log"), "utf8").trim().split("\n");
    expect(events.map((l) => l.split(" ")[0])).toEqual(["start", "prompt", "prompt", "end"]);
    expect(events.map((l) => JSON.parse(l.slice(l.indexOf(" ") + 1))).filter((p) => p.prompt).map((p) => p.prompt)).toEqual(["first prompt", "second prompt"]);
  });

  test("a Stop hook that always blocks lets go after 8 blocks in a row", async () => {
    const cwd = hooksProject(hook("Stop", `cat >/dev/null; echo '{"decision":"block","reason":"again"}'`));
    const replies = Array.from({ length: 9 }, (_, i) => say(`attempt ${i + 1}`));
    const r = await runWith(cwd, replies, ["--output-format", "json"]);
    expect(r.code).toBe(0);
    expect(r.requests).toHaveLength(9);
    expect(r.json.result).toBe("attempt 9");
  });
});

describe("PermissionRequest hooks decide before a headless run denies (contracts §3.4)", () => {
  test("allow lets the call run, deny's message reaches the model; rule-decided calls never ask the hook", async () => {
    const cwd = project();
    const judge = script(
      cwd,
      "hooks/judge.sh",
      `p=$(cat); echo "$p" >> ${join(cwd, "pr.log")}
case "$p" in
  *'"command":"touch allowed"'*) echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}' ;;
  *) echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"only touch allowed is approved"}}}' ;;
esac`,
    );
    writeFileSync(join(cwd, ".claude/settings.json"), JSON.stringify({ hooks: hook("PermissionRequest", judge, "Bash") }));
    const r = await runWith(cwd, [bashCall("touch allowed"), bashCall("touch refused"), bashCall("ls"), say("done")], ["--output-format", "json"]);
    expect(existsSync(join(cwd, "allowed"))).toBe(true);
    expect(existsSync(join(cwd, "refused"))).toBe(false);
    const second = toolResultsOf(r.requests[2]!)[0]!;
    expect(second.is_error).toBe(true);
    expect(second.text).toContain("only touch allowed is approved");
    expect(r.json.permission_denials.map((d: any) => d.tool_input.command)).toEqual(["touch refused"]);
    // `ls` is read-only and allowed without asking: the hook is not consulted.
    const payloads = readFileSync(join(cwd, "pr.log"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(payloads.map((p) => p.tool_input.command)).toEqual(["touch allowed", "touch refused"]);
    expect(payloads[0]).toMatchObject({ hook_event_name: "PermissionRequest", tool_name: "Bash", permission_mode: "default" });
    expect(payloads[0].tool_use_id).toBeUndefined();
  });
});

describe("lifecycle events beyond the classic nine (contracts §1.1, §1.4)", () => {
  const logHook = (cwd: string, name: string) => script(cwd, `hooks/${name}.sh`, `p=$(cat); printf '%s\\n' "$p" >> ${join(cwd, `${name}.log`)}`);
  const logged = (cwd: string, name: string) =>
    existsSync(join(cwd, `${name}.log`)) ? readFileSync(join(cwd, `${name}.log`), "utf8").trim().split("\n").map((l) => JSON.parse(l)) : [];

  test("StopFailure fires with the error type when the turn ends on an API error", async () => {
    const cwd = project();
    writeFileSync(join(cwd, ".claude/settings.json"), JSON.stringify({ hooks: hook("StopFailure", logHook(cwd, "sf"), "invalid_request") }));
    const r = await runWith(cwd, [{ fault: 400, message: "bad request body" }], ["--output-format", "json"]);
    expect(r.code).toBe(1);
    const [p] = logged(cwd, "sf");
    expect(p).toMatchObject({ hook_event_name: "StopFailure", error: "invalid_request" });
    expect(p.error_details).toContain("bad request body");
  });

  test("InstructionsLoaded: session_start for CLAUDE.md and its import, path_glob_match when a rule's file is read", async () => {
    const cwd = project();
    writeFileSync(join(cwd, "CLAUDE.md"), "Rule one.\n@extra.md\n");
    writeFileSync(join(cwd, "extra.md"), "Imported.\n");
    writeTree(cwd, { ".claude/rules/ts.md": "---\npaths: ['src/**/*.ts']\n---\nTS rule\n", "src/a.ts": "export const a = 1;\n" });
    writeFileSync(join(cwd, ".claude/settings.json"), JSON.stringify({ hooks: hook("InstructionsLoaded", logHook(cwd, "il")) }));
    const read = { content: [{ type: "tool_use" as const, name: "Read", input: { file_path: join(cwd, "src/a.ts") } }] };
    const r = await runWith(cwd, [read, say("ok")], ["--output-format", "json"]);
    expect(r.code).toBe(0);
    const rows = logged(cwd, "il").map((p) => [p.file_path.slice(cwd.length + 1), p.memory_type, p.load_reason]);
    expect(rows).toEqual([
      ["CLAUDE.md", "Project", "session_start"],
      ["extra.md", "Project", "include"],
      [".claude/rules/ts.md", "Project", "path_glob_match"],
    ]);
    expect(logged(cwd, "il")[2].trigger_file_path).toBe(join(cwd, "src/a.ts"));
  });

  test("PostCompact fires after /compact with the summary", async () => {
    const cwd = project();
    writeFileSync(join(cwd, ".claude/settings.json"), JSON.stringify({ hooks: hook("PostCompact", logHook(cwd, "pc"), "manual") }));
    writeTree(cwd, { "notes.txt": "codename ORCHID\n" });
    const read = { content: [{ type: "tool_use" as const, name: "Read", input: { file_path: join(cwd, "notes.txt") } }] };
    const first = await runWith(cwd, [read, read, read, say("first answer")], ["--output-format", "json"], { prompt: "remember the codename ORCHID" });
    expect(first.code).toBe(0);
    const r = await runWith(cwd, [say("Summary: the user's codename is ORCHID.")], ["--output-format", "json", "--continue"], {
      prompt: "/compact keep the codename",
      env: { HOME: first.env.HOME, YOKE_CONFIG_DIR: first.env.YOKE_CONFIG_DIR, CLAUDE_CONFIG_DIR: first.env.CLAUDE_CONFIG_DIR },
    });
    expect({ code: r.code, out: r.stdout, err: r.stderr }).toMatchObject({ code: 0 });
    const [p] = logged(cwd, "pc");
    expect(p).toMatchObject({ hook_event_name: "PostCompact", trigger: "manual" });
    expect(p.compact_summary).toContain("ORCHID");
  });
});
