import { describe, expect, test } from "bun:test";
import type { EmitPayload } from "../../src/hook/typed.ts";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { eventPayload } from "../../src/hook/events/index.ts";
import { sessionEnvFiles } from "../../src/hook/session-env.ts";
import { busFor, cmd, hooks, makeEnv, prePayload, writeSettings } from "./helpers.ts";
import { waitFor } from "../helpers/wait-for.ts";

const stopPayload = (active = false): EmitPayload<"Stop"> => ({ session_id: "sess-1", transcript_path: "/t", cwd: "/p", hook_event_name: "Stop", stop_hook_active: active });

describe("command hooks: exit codes (contracts §1.5)", () => {
  test("exit 0 with JSON allow + updatedInput", async () => {
    const e = makeEnv();
    const out = JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow", permissionDecisionReason: "ok", updatedInput: { command: "git status" } } });
    writeSettings(e, "project", hooks("PreToolUse", "Bash", cmd(`echo '${out}'`)));
    const bus = busFor(e);
    const o = await bus.emit("PreToolUse", prePayload(e));
    expect(o.permissionDecision).toBe("allow");
    expect(o.permissionDecisionReason).toBe("ok");
    expect(o.updatedInput).toEqual({ command: "git status" });
    expect(o.records[0]!.outcome).toBe("success");
    expect(o.records[0]!.hookName).toBe("PreToolUse:Bash");
  });
  test("exit 2 blocks with [command]: stderr", async () => {
    const e = makeEnv();
    writeSettings(e, "project", hooks("PreToolUse", "Bash", cmd("echo 'no rm' >&2; exit 2")));
    const o = await busFor(e).emit("PreToolUse", prePayload(e));
    expect(o.blocked).toBe(true);
    expect(o.permissionDecision).toBe("deny");
    // Observed in 2.1.332: the stderr verbatim, trailing newline kept.
    expect(o.blockReason).toBe("[echo 'no rm' >&2; exit 2]: no rm\n");
    expect(o.records[0]!.outcome).toBe("blocking");
    expect(o.records[0]!.exitCode).toBe(2);
  });
  test("exit 1 is non-blocking and names the command and settings file", async () => {
    const e = makeEnv();
    const path = writeSettings(e, "project", hooks("PreToolUse", "Bash", cmd("echo boom >&2; exit 1")));
    const o = await busFor(e).emit("PreToolUse", prePayload(e));
    expect(o.blocked).toBe(false);
    expect(o.permissionDecision).toBeUndefined();
    expect(o.records[0]!.outcome).toBe("non_blocking_error");
    expect(o.records[0]!.error).toContain(path);
    expect(o.records[0]!.error).toContain("echo boom >&2; exit 1");
    expect(o.records[0]!.error).toContain("status code 1: boom");
  });
  test("exit 1 with schema-valid JSON deny still denies (contracts §9)", async () => {
    const e = makeEnv();
    const out = JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "policy" } });
    writeSettings(e, "project", hooks("PreToolUse", "", cmd(`echo '${out}'; exit 1`)));
    const o = await busFor(e).emit("PreToolUse", prePayload(e));
    expect(o.blocked).toBe(true);
    expect(o.blockReason).toBe("policy");
  });
  test("garbage JSON on stdout is a non-blocking error naming the hook", async () => {
    const e = makeEnv();
    writeSettings(e, "project", hooks("PreToolUse", "*", cmd("echo '{not json'")));
    const bus = busFor(e);
    const o = await bus.emit("PreToolUse", prePayload(e));
    expect(o.blocked).toBe(false);
    expect(o.records[0]!.error).toContain("not valid JSON");
    expect(o.records[0]!.error).toContain("echo '{not json'");
    expect(bus.records).toHaveLength(1);
  });
  test("JSON of the wrong shape is a non-blocking error", async () => {
    const e = makeEnv();
    writeSettings(e, "project", hooks("PreToolUse", "*", cmd(`echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"yes"}}'`)));
    const o = await busFor(e).emit("PreToolUse", prePayload(e));
    expect(o.permissionDecision).toBeUndefined();
    expect(o.records[0]!.error).toContain("hookSpecificOutput.permissionDecision");
  });
  test("a crashing hook (missing script, 127) does not block", async () => {
    const e = makeEnv();
    writeSettings(e, "project", hooks("PreToolUse", "*", cmd("/nonexistent/hook.sh")));
    const o = await busFor(e).emit("PreToolUse", prePayload(e));
    expect(o.blocked).toBe(false);
    expect(o.records[0]!.exitCode).toBe(127);
    expect(o.records[0]!.error).toContain("could not start (exit 127");
  });
  test("a missing Python script (exit 2, Errno 2) is a launch failure, not a deny (user-demand #12)", async () => {
    const e = makeEnv();
    writeSettings(e, "project", hooks("PreToolUse", "*", cmd(`echo "python3: can't open file '/x/guard.py': [Errno 2] No such file or directory" >&2; exit 2`)));
    const o = await busFor(e).emit("PreToolUse", prePayload(e));
    expect(o.blocked).toBe(false);
    expect(o.records[0]!.error).toContain("could not start: python3: can't open file");
  });
  test("onFailure: block turns a failure into a block (contracts §1.2)", async () => {
    const e = makeEnv();
    writeSettings(e, "project", hooks("PreToolUse", "*", cmd("/nonexistent/hook.sh", { onFailure: "block" })));
    const o = await busFor(e).emit("PreToolUse", prePayload(e));
    expect(o.blocked).toBe(true);
    expect(o.blockReason).toContain("onFailure");
    expect(o.blockReason).toContain("/nonexistent/hook.sh");
  });
  test("onFailure: block is ignored on Stop", async () => {
    const e = makeEnv();
    writeSettings(e, "project", hooks("Stop", undefined, cmd("exit 1", { onFailure: "block" })));
    expect((await busFor(e).emit("Stop", stopPayload())).blocked).toBe(false);
  });
  test("Stop decision block → blocked with reason; stop_hook_active reaches the hook", async () => {
    const e = makeEnv();
    writeSettings(
      e,
      "project",
      hooks("Stop", undefined, cmd(`if grep -q '"stop_hook_active":true'; then exit 0; fi; echo '{"decision":"block","reason":"run the tests"}'`)),
    );
    const bus = busFor(e);
    expect(await bus.emit("Stop", stopPayload(false))).toMatchObject({ blocked: true, blockReason: "run the tests" });
    expect((await bus.emit("Stop", stopPayload(true))).blocked).toBe(false);
  });
  test("UserPromptSubmit plain stdout becomes additionalContext", async () => {
    const e = makeEnv();
    writeSettings(e, "project", hooks("UserPromptSubmit", undefined, cmd("echo 'today is Monday'")));
    const o = await busFor(e).emit("UserPromptSubmit", { session_id: "s", transcript_path: "/t", cwd: "/p", hook_event_name: "UserPromptSubmit", prompt: "hi" });
    expect(o.additionalContext).toEqual(["today is Monday"]);
  });
});

describe("timeouts and process groups", () => {
  test("a hanging hook is killed with its whole group at its timeout", async () => {
    const e = makeEnv();
    const marker = join(e.project, "child.pid");
    // The pid is written whole (.part, then mv) and the timeout leaves the shell time to write it on a busy machine: a
    // hook killed at 0.5 s before its echo left an empty marker, pid 0, and nothing to check.
    writeSettings(e, "project", hooks("PreToolUse", "*", cmd(`sleep 30 & echo $! > ${marker}.part && mv ${marker}.part ${marker}; wait`, { timeout: 2 })));
    const o = await busFor(e).emit("PreToolUse", prePayload(e));
    expect(o.records[0]!.outcome).toBe("timeout");
    expect(o.records[0]!.error).toContain("timed out after 2 s");
    // A PreToolUse guard killed at its timeout fails closed: ask (issue 16 point 8; Claude Code: no decision, contracts §1.5).
    expect(o.permissionDecision).toBe("ask");
    expect(o.permissionDecisionReason).toContain("timed out after 2 s");
    const pid = Number(readFileSync(marker, "utf8"));
    expect(pid).toBeGreaterThan(0);
    // the grandchild died too (gone, or a zombie waiting for init to reap it)
    const alive = () => existsSync(`/proc/${pid}`) && !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
    await waitFor(() => !alive(), `the hook's grandchild ${pid} to die with its group`);
  });
  test("a timeout past what a timer holds waits instead of killing the guard at once (issue 16 point 8)", async () => {
    for (const timeout of [2147484, 99999999999, 1e300]) {
      const e = makeEnv();
      const deny = `sleep 0.2; echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"guard says no"}}'`;
      writeSettings(e, "project", hooks("PreToolUse", "*", cmd(deny, { timeout })));
      const o = await busFor(e).emit("PreToolUse", prePayload(e));
      expect({ timeout, outcome: o.records[0]!.outcome, d: o.permissionDecision }).toEqual({ timeout, outcome: "success", d: "deny" });
    }
  });
  test("a timed-out hook of another event still gives no decision (contracts §1.5)", async () => {
    const e = makeEnv();
    writeSettings(e, "project", hooks("PermissionRequest", "*", cmd("sleep 5", { timeout: 0.3 })));
    const o = await busFor(e).emit("PermissionRequest", { ...prePayload(e), hook_event_name: "PermissionRequest" });
    expect(o.records[0]!.outcome).toBe("timeout");
    expect(o.permissionDecision).toBeUndefined();
  });
  test("abort signal cancels running hooks", async () => {
    const e = makeEnv();
    writeSettings(e, "project", hooks("PreToolUse", "*", cmd("sleep 30")));
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    const o = await busFor(e).emit("PreToolUse", prePayload(e), { signal: ac.signal });
    expect(o.records[0]!.outcome).toBe("cancelled");
  });
  test("matched hooks run in parallel", async () => {
    const e = makeEnv();
    // Each hook marks its arrival and waits for the other two (a barrier): run one after another, the first
    // would wait alone until its timeout.
    const barrier = (me: string) =>
      cmd(`touch ${join(e.project, me)}; until [ -e ${join(e.project, "a")} ] && [ -e ${join(e.project, "b")} ] && [ -e ${join(e.project, "c")} ]; do sleep 0.01; done; echo ${me}`, { timeout: 20 });
    writeSettings(e, "project", { hooks: { PreToolUse: [{ matcher: "Bash", hooks: [barrier("a"), barrier("b"), barrier("c")] }] } });
    const o = await busFor(e).emit("PreToolUse", prePayload(e));
    expect(o.records.map((r) => r.outcome)).toEqual(["success", "success", "success"]);
  });
});

describe("configuration (contracts §1.2, §1.3)", () => {
  test("matcher filters; Task matcher matches Agent; non-matching events do not run", async () => {
    const e = makeEnv();
    writeSettings(e, "project", {
      hooks: {
        PreToolUse: [
          { matcher: "Write|Edit", hooks: [cmd("echo we")] },
          { matcher: "Task", hooks: [cmd("echo task")] },
        ],
      },
    });
    const bus = busFor(e);
    expect((await bus.emit("PreToolUse", prePayload(e, "Bash"))).records).toHaveLength(0);
    expect((await bus.emit("PreToolUse", prePayload(e, "Edit"))).records.map((r) => r.stdout.trim())).toEqual(["we"]);
    expect((await bus.emit("PreToolUse", prePayload(e, "Agent"))).records.map((r) => r.stdout.trim())).toEqual(["task"]);
    expect(bus.has("PreToolUse")).toBe(true);
    expect(bus.has("Stop")).toBe(false);
  });
  test("identical commands across files run once; hooks from all files merge", async () => {
    const e = makeEnv();
    const log = join(e.project, "runs.log");
    writeSettings(e, "user", hooks("PreToolUse", "Bash", cmd(`echo u >> ${log}`)));
    writeSettings(e, "project", {
      hooks: { PreToolUse: [{ matcher: "Bash", hooks: [cmd(`echo u >> ${log}`)] }, { matcher: "*", hooks: [cmd(`echo p >> ${log}`)] }] },
    });
    writeSettings(e, "local", hooks("PreToolUse", "Bash|Read", cmd(`echo u >> ${log}`)));
    const o = await busFor(e).emit("PreToolUse", prePayload(e));
    expect(o.records).toHaveLength(2);
    expect(readFileSync(log, "utf8").split("\n").filter(Boolean).sort()).toEqual(["p", "u"]);
  });
  test("disableAllHooks in project settings disables non-managed hooks, not managed ones", async () => {
    const e = makeEnv();
    writeSettings(e, "project", { ...hooks("PreToolUse", "*", cmd("echo project")), disableAllHooks: true });
    writeSettings(e, "managed", hooks("PreToolUse", "*", cmd("echo managed")));
    const bus = busFor(e);
    const o = await bus.emit("PreToolUse", prePayload(e));
    expect(o.records.map((r) => r.stdout.trim())).toEqual(["managed"]);
    expect(bus.list().find((r) => r.command === "echo project")?.note).toContain("disableAllHooks");
  });
  test("disableAllHooks in managed disables everything, plugins included", async () => {
    const e = makeEnv();
    writeSettings(e, "managed", { ...hooks("PreToolUse", "*", cmd("echo managed")), disableAllHooks: true });
    const bus = busFor(e);
    bus.registerInProcess("PreToolUse", () => ({ decision: "block", reason: "x" }), { source: "p" });
    const o = await bus.emit("PreToolUse", prePayload(e));
    expect(o.records).toHaveLength(0);
    expect(bus.has("PreToolUse")).toBe(false);
  });
  test("allowManagedHooksOnly ignores user/project/local hooks", async () => {
    const e = makeEnv();
    writeSettings(e, "user", hooks("PreToolUse", "*", cmd("echo user")));
    writeSettings(e, "managed", { ...hooks("PreToolUse", "*", cmd("echo managed")), allowManagedHooksOnly: true });
    const o = await busFor(e).emit("PreToolUse", prePayload(e));
    expect(o.records.map((r) => r.stdout.trim())).toEqual(["managed"]);
  });
  test("Claude Code plugin hooks (contracts §6.1): ${CLAUDE_PLUGIN_ROOT} substituted and exported, never de-duplicated against settings hooks", async () => {
    const e = makeEnv();
    writeSettings(e, "project", hooks("Stop", undefined, cmd("echo same")));
    const bus = busFor(e);
    const env = { CLAUDE_PLUGIN_ROOT: "/opt/cc", CLAUDE_PLUGIN_DATA: "/data/cc" };
    const ph = { Stop: [{ hooks: [cmd("echo same"), cmd('echo "${CLAUDE_PLUGIN_ROOT}|$CLAUDE_PLUGIN_DATA"')] }] } as never;
    bus.addPluginHooks(ph, { path: "/opt/cc/hooks/hooks.json", owner: "cc", env });
    const o = await bus.emit("Stop", stopPayload());
    expect(o.records.map((r) => r.stdout.trim()).sort()).toEqual(["/opt/cc|/data/cc", "same", "same"]);
    expect(bus.list().filter((r) => r.source.startsWith("plugin: cc"))).toHaveLength(2);
  });
  test("a user's disableAllHooks turns Claude Code plugin hooks off too; list says why", async () => {
    const e = makeEnv();
    writeSettings(e, "user", { disableAllHooks: true });
    const bus = busFor(e);
    bus.addPluginHooks({ Stop: [{ hooks: [cmd("echo plugin")] }] } as never, { path: "/p/hooks/hooks.json", owner: "cc", env: {} });
    expect((await bus.emit("Stop", stopPayload())).records).toHaveLength(0);
    expect(bus.list()[0]!.note).toBe("disabled by disableAllHooks");
  });
  // Observed in 2.1.332: strictPluginOnlyCustomization locking "hooks" blocks settings.json hooks, not managed or plugin ones.
  test('managed strictPluginOnlyCustomization ["hooks"]: user/project hooks off (list says why), managed and plugin hooks run', async () => {
    const e = makeEnv();
    writeSettings(e, "user", hooks("Stop", undefined, cmd("echo user")));
    writeSettings(e, "project", hooks("Stop", undefined, cmd("echo project")));
    writeSettings(e, "managed", { ...hooks("Stop", undefined, cmd("echo managed")), strictPluginOnlyCustomization: ["hooks"] });
    const bus = busFor(e);
    bus.addPluginHooks({ Stop: [{ hooks: [cmd("echo plugin")] }] } as never, { path: "/p/hooks/hooks.json", owner: "cc", env: {} });
    const o = await bus.emit("Stop", stopPayload());
    expect(o.records.map((r) => r.stdout.trim()).sort()).toEqual(["managed", "plugin"]);
    expect(bus.list().find((r) => r.command === "echo user")?.note).toContain("strictPluginOnlyCustomization");
  });
  test('strictPluginOnlyCustomization ["skills"] or in a non-managed file leaves hooks alone', async () => {
    for (const [level, value] of [["managed", ["skills"]], ["user", true]] as const) {
      const e = makeEnv();
      writeSettings(e, "project", hooks("Stop", undefined, cmd("echo project")));
      writeSettings(e, level, { strictPluginOnlyCustomization: value });
      expect((await busFor(e).emit("Stop", stopPayload())).records).toHaveLength(1);
    }
  });
  test("allowManagedHooksOnly in a non-managed file has no effect", async () => {
    const e = makeEnv();
    writeSettings(e, "user", { ...hooks("PreToolUse", "*", cmd("echo user")), allowManagedHooksOnly: true });
    expect((await busFor(e).emit("PreToolUse", prePayload(e))).records).toHaveLength(1);
  });
  test("`if` rules use matchRule; without it they run; on non-tool events they never run", async () => {
    const e = makeEnv();
    writeSettings(e, "project", {
      hooks: {
        PreToolUse: [{ matcher: "Bash", hooks: [cmd("echo git", { if: "Bash(git *)" })] }],
        Stop: [{ hooks: [cmd("echo stop", { if: "Bash(git *)" })] }],
      },
    });
    const seen: unknown[] = [];
    const withRule = busFor(e, {
      matchRule: (rule, tool, input) => {
        seen.push([rule, tool, input]);
        return String(input.command).startsWith("git ");
      },
    });
    expect((await withRule.emit("PreToolUse", prePayload(e, "Bash", { command: "ls" }))).records).toHaveLength(0);
    expect((await withRule.emit("PreToolUse", prePayload(e, "Bash", { command: "git log" }))).records).toHaveLength(1);
    expect(seen[0]).toEqual(["Bash(git *)", "Bash", { command: "ls" }]);
    expect((await busFor(e).emit("PreToolUse", prePayload(e, "Bash", { command: "ls" }))).records).toHaveLength(1);
    expect((await busFor(e).emit("Stop", stopPayload())).records).toHaveLength(0);
    expect(busFor(e).list().map((r) => r.note)).toEqual([undefined, '"if" on Stop never matches']);
  });
  test("unsupported handler types are reported, not silently dropped", async () => {
    const e = makeEnv();
    writeSettings(e, "project", hooks("Stop", undefined, { type: "prompt", prompt: "Should we stop?" }));
    const bus = busFor(e);
    const o = await bus.emit("Stop", stopPayload());
    expect(o.records[0]!.error).toContain('hook type "prompt"');
    expect(bus.list()[0]!.note).toContain("not supported");
  });
});

describe("environment and protocol (contracts §1.4, §1.8)", () => {
  test("stdin is the compact payload; cwd is the session cwd; env carries the contract vars", async () => {
    const e = makeEnv();
    writeSettings(e, "project", {
      env: { FROM_SETTINGS: "yes" },
      ...hooks("PreToolUse", "*", cmd(`cat > stdin.json; pwd > cwd.txt; env > env.txt`)),
    });
    const payload = eventPayload("PreToolUse", { session_id: "sess-1", transcript_path: "/t", cwd: e.project }, { tool_name: "Bash", tool_input: { command: "ls" }, tool_use_id: "tu" });
    await busFor(e, { env: { ...e.env, OTEL_EXPORTER_OTLP_ENDPOINT: "http://x", KEEP_ME: "1" } }).emit("PreToolUse", payload);
    expect(readFileSync(join(e.project, "stdin.json"), "utf8")).toBe(JSON.stringify(payload));
    expect(readFileSync(join(e.project, "cwd.txt"), "utf8").trim()).toBe(e.project);
    const env = readFileSync(join(e.project, "env.txt"), "utf8");
    expect(env).toContain(`CLAUDE_PROJECT_DIR=${e.project}\n`);
    expect(env).toContain("CLAUDECODE=1\n");
    expect(env).toContain("CLAUDE_CODE_ENTRYPOINT=cli\n");
    expect(env).toContain("CLAUDE_CODE_SESSION_ID=sess-1\n");
    expect(env).toContain("FROM_SETTINGS=yes\n");
    expect(env).toContain("KEEP_ME=1\n");
    expect(env).not.toContain("OTEL_");
    expect(env).not.toContain("CLAUDE_ENV_FILE");
  });
  test("${CLAUDE_PROJECT_DIR} substitution and exec form args", async () => {
    const e = makeEnv();
    const script = join(e.project, ".claude", "hook.sh");
    writeFileSync(script, '#!/bin/sh\necho "args:$1:$2"\n');
    chmodSync(script, 0o755);
    writeSettings(e, "project", {
      hooks: {
        Stop: [
          { hooks: [cmd("${CLAUDE_PROJECT_DIR}/.claude/hook.sh shell 'two words'")] },
          { hooks: [{ type: "command", command: "${CLAUDE_PROJECT_DIR}/.claude/hook.sh", args: ["${CLAUDE_PROJECT_DIR}", "a b; echo injected"] }] },
        ],
      },
    });
    const o = await busFor(e).emit("Stop", stopPayload());
    expect(o.records.map((r) => r.stdout.trim()).sort()).toEqual([`args:${e.project}:a b; echo injected`, "args:shell:two words"]);
  });
  test("SessionStart gets CLAUDE_ENV_FILE under <yokeDir>/session-env/<session>", async () => {
    const e = makeEnv();
    writeSettings(e, "project", hooks("SessionStart", "startup", cmd(`echo 'export FOO=bar' >> "$CLAUDE_ENV_FILE"; echo "$CLAUDE_ENV_FILE"`)));
    const o = await busFor(e).emit("SessionStart", { session_id: "sess-1", transcript_path: "/t", cwd: e.project, hook_event_name: "SessionStart", source: "startup" });
    const file = join(e.yoke, "session-env", "sess-1", "sessionstart-hook-0.sh");
    expect(o.additionalContext).toEqual([file]);
    expect(readFileSync(file, "utf8")).toBe("export FOO=bar\n");
    expect(sessionEnvFiles(e.yoke, "sess-1")).toEqual([file]);
    expect(sessionEnvFiles(e.yoke, "other")).toEqual([]);
  });
  test("the Bash tool gets every non-empty CLAUDE_ENV_FILE in hook order, however many hooks ran", async () => {
    const e = makeEnv();
    const dir = join(e.yoke, "session-env", "s");
    mkdirSync(dir, { recursive: true });
    for (const n of [12, 2, 10, 3]) writeFileSync(join(dir, `sessionstart-hook-${n}.sh`), n === 3 ? "" : `export N${n}=1\n`);
    writeFileSync(join(dir, "notes.txt"), "x");
    expect(sessionEnvFiles(e.yoke, "s").map((f) => f.slice(dir.length + 1))).toEqual(["sessionstart-hook-2.sh", "sessionstart-hook-10.sh", "sessionstart-hook-12.sh"]);
  });
  test("async hooks run in the background and do not decide", async () => {
    const e = makeEnv();
    const done = join(e.project, "async.done");
    // The hook finishes only once the test lets it (a barrier): after a fixed 0.3 s it could be done before a slow
    // emit returned.
    const go = join(e.project, "go");
    writeSettings(e, "project", hooks("PreToolUse", "*", cmd(`until [ -e ${go} ]; do sleep 0.01; done; touch ${done}; echo '{"decision":"block","systemMessage":"later"}'`, { async: true })));
    const bus = busFor(e);
    const o = await bus.emit("PreToolUse", prePayload(e));
    expect(o.blocked).toBe(false);
    expect(existsSync(done)).toBe(false);
    writeFileSync(go, "");
    await bus.drainAsync(30_000);
    expect(existsSync(done)).toBe(true);
    expect(bus.records).toHaveLength(1);
    expect(bus.takeAsyncOutput().systemMessages).toEqual(["later"]);
    expect(bus.takeAsyncOutput().systemMessages).toEqual([]);
  });
  test("huge stdout is capped before it reaches the model", async () => {
    const e = makeEnv();
    writeSettings(e, "project", hooks("UserPromptSubmit", undefined, cmd("head -c 50000 /dev/zero | tr '\\0' a")));
    const o = await busFor(e).emit("UserPromptSubmit", { session_id: "s", transcript_path: "/t", cwd: "/p", hook_event_name: "UserPromptSubmit", prompt: "x" });
    expect(o.additionalContext[0]!.length).toBeLessThan(10_100);
  });
});

describe("in-process handlers", () => {
  test("returns JSON like a command hook; matcher applies; unregister works", async () => {
    const e = makeEnv();
    const bus = busFor(e);
    const off = bus.registerInProcess(
      "PreToolUse",
      (p) => ({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "ask", permissionDecisionReason: `check ${p.tool_name}` } }),
      { source: "guard", matcher: "Bash" },
    );
    expect((await bus.emit("PreToolUse", prePayload(e, "Bash"))).permissionDecision).toBe("ask");
    expect((await bus.emit("PreToolUse", prePayload(e, "Read"))).records).toHaveLength(0);
    expect(bus.list()).toEqual([{ event: "PreToolUse", matcher: "Bash", type: "in-process", command: "(function)", source: "plugin: guard" }]);
    off();
    expect(bus.has("PreToolUse")).toBe(false);
  });
  test("a throwing PreToolUse handler blocks the tool, naming the plugin", async () => {
    const e = makeEnv();
    const bus = busFor(e);
    bus.registerInProcess("PreToolUse", () => { throw new Error("db down"); }, { source: "audit" });
    const o = await bus.emit("PreToolUse", prePayload(e));
    expect(o.blocked).toBe(true);
    expect(o.blockReason).toContain('plugin "audit"');
    expect(o.blockReason).toContain("db down");
    expect(o.records[0]!.source).toBe("plugin: audit");
  });
  test("a timed-out PreToolUse handler blocks; the handler's signal is aborted", async () => {
    const e = makeEnv();
    const bus = busFor(e);
    let aborted = false;
    bus.registerInProcess("PreToolUse", (_p, { signal }) => new Promise(() => { signal.addEventListener("abort", () => (aborted = true)); }), { source: "slow", timeoutMs: 50 });
    const o = await bus.emit("PreToolUse", prePayload(e));
    expect(o.blocked).toBe(true);
    expect(o.records[0]!.outcome).toBe("timeout");
    expect(aborted).toBe(true);
  });
  test("aborting the step ends the emit at once even when an in-process handler ignores its signal", async () => {
    const e = makeEnv();
    const bus = busFor(e);
    bus.registerInProcess("Stop", () => new Promise(() => {}), { source: "deaf" });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    const o = await bus.emit("Stop", stopPayload(), { signal: ac.signal });
    expect(o.records[0]!.outcome).toBe("cancelled");
    expect(o.blocked).toBe(false);
  });
  test("an in-process PreToolUse handler with invalid output fails closed", async () => {
    const e = makeEnv();
    const bus = busFor(e);
    bus.registerInProcess("PreToolUse", () => ({ hookSpecificOutput: { hookEventName: "Stop" } }), { source: "typo" });
    const o = await bus.emit("PreToolUse", prePayload(e));
    expect(o.blocked).toBe(true);
    expect(o.blockReason).toContain("hookSpecificOutput.hookEventName");
  });
  test("a throwing handler elsewhere is recorded and skipped", async () => {
    const e = makeEnv();
    const bus = busFor(e);
    bus.registerInProcess("Stop", async () => { throw new Error("oops"); }, { source: "mem" });
    bus.registerInProcess("Stop", () => ({ decision: "block", reason: "continue please" }), { source: "ok" });
    const o = await bus.emit("Stop", stopPayload());
    expect(o).toMatchObject({ blocked: true, blockReason: "continue please" });
    expect(o.records.find((r) => r.source === "plugin: mem")?.error).toContain('plugin "mem" failed: oops');
  });
  test("in-process and command hooks merge", async () => {
    const e = makeEnv();
    writeSettings(e, "project", hooks("PreToolUse", "*", cmd(`echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}'`)));
    const bus = busFor(e);
    bus.registerInProcess("PreToolUse", () => ({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "plugin says no" } }), { source: "p" });
    const o = await bus.emit("PreToolUse", prePayload(e));
    expect(o).toMatchObject({ blocked: true, permissionDecision: "deny", blockReason: "plugin says no" });
    expect(o.records).toHaveLength(2);
  });
});
