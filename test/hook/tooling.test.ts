import { describe, expect, test } from "bun:test";
import { dryRunPayload, formatHookList, formatHookRun, listHooks, runHooksDry } from "../../src/hook/tooling.ts";
import { busFor, cmd, hooks, makeEnv, writeSettings } from "./helpers.ts";

describe("yoke hooks list / run core", () => {
  test("listHooks shows every hook with its source and why it will not run", () => {
    const e = makeEnv();
    const user = writeSettings(e, "user", { hooks: { PreToolUse: [{ matcher: "Bash", hooks: [cmd("guard.sh", { timeout: 5, if: "Bash(rm *)" })] }], PreModelSwitch: [{ hooks: [cmd("x")] }] } });
    const bus = busFor(e);
    bus.registerInProcess("Stop", () => {}, { source: "memory" });
    const rows = listHooks(bus);
    expect(rows[0]).toMatchObject({ event: "PreToolUse", matcher: "Bash", type: "command", command: "guard.sh", source: user, level: "user", timeoutSec: 5, if: "Bash(rm *)" });
    expect(rows[1]!.note).toContain("PreModelSwitch is not fired by yoke");
    expect(rows[2]).toMatchObject({ event: "Stop", source: "plugin: memory" });
    const text = formatHookList(rows);
    expect(text.split("\n")[0]).toMatch(/^EVENT\s+MATCHER\s+TYPE\s+COMMAND\s+SOURCE$/);
    expect(text).toContain("guard.sh");
    expect(text).toContain("if: Bash(rm *)  timeout: 5s");
    expect(formatHookList([])).toBe("No hooks configured.\n");
  });

  test("dry-run payload fills the common fields in order", () => {
    const e = makeEnv();
    const bus = busFor(e);
    const p = dryRunPayload(bus, "PreToolUse", { tool: "Write", input: { file_path: "/x", content: "" } });
    expect(Object.keys(p)).toEqual(["session_id", "transcript_path", "cwd", "permission_mode", "hook_event_name", "tool_name", "tool_input", "tool_use_id"]);
    expect(p).toMatchObject({ session_id: "sess-1", cwd: e.project, tool_name: "Write" });
    expect(Object.keys(dryRunPayload(bus, "SessionStart"))).toEqual(["session_id", "transcript_path", "cwd", "hook_event_name", "source"]);
    const fromFile = dryRunPayload(bus, "Stop", { payload: { stop_hook_active: true, session_id: "other" } });
    expect(fromFile).toMatchObject({ session_id: "other", hook_event_name: "Stop", stop_hook_active: true });
    expect(Object.keys(fromFile)).toEqual(["session_id", "transcript_path", "cwd", "permission_mode", "hook_event_name", "stop_hook_active"]);
  });

  test("runHooksDry + formatHookRun print output, exit, duration and the merged decision", async () => {
    const e = makeEnv();
    writeSettings(e, "project", hooks("PreToolUse", "Bash", cmd(`read -r l; case "$l" in *'rm -rf'*) echo "dangerous" >&2; exit 2;; esac; echo fine`)));
    const bus = busFor(e);
    const bad = await runHooksDry(bus, "PreToolUse", { tool: "Bash", input: { command: "rm -rf /" } });
    expect(bad.outcome.permissionDecision).toBe("deny");
    const text = formatHookRun("PreToolUse", bad);
    expect(text).toContain("exit: 2  outcome: blocking");
    expect(text).toMatch(/duration: \d+\.\d ms/);
    expect(text).toContain("stderr:\n    dangerous");
    expect(text).toContain("decision: deny");
    expect(text).toContain("reason: [");
    const ok = await runHooksDry(bus, "PreToolUse", { tool: "Bash", input: { command: "ls" } });
    expect(formatHookRun("PreToolUse", ok)).toContain("decision: none (normal permission flow)");
    expect(formatHookRun("Stop", await runHooksDry(bus, "Stop"))).toContain("No Stop hooks matched.");
  });
});
