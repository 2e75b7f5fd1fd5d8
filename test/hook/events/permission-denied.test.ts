// contracts §1.1 / §1.4 / §1.6: PermissionDenied fires after auto mode denies a call; it cannot block, `retry: true` lets the model retry.
import { describe, expect, test } from "bun:test";
import { mergePermissionDenied, permissionDeniedInput } from "../../../src/hook/events/permission-denied.ts";
import { buildPayload, type HandlerResult } from "../../../src/hook/events/index.ts";

const res = (output?: Record<string, unknown>, blockingError?: string): HandlerResult => ({
  record: { source: "command: x (s.json)", hookName: "PermissionDenied:Bash", exitCode: blockingError ? 2 : 0, stdout: "", stderr: "", durationMs: 1, outcome: "success" },
  ...(output ? { output } : {}),
  ...(blockingError !== undefined ? { blockingError } : {}),
});

describe("PermissionDenied merge", () => {
  test("retry: true from any handler", () => {
    expect(mergePermissionDenied([res({}), res({ hookSpecificOutput: { hookEventName: "PermissionDenied", retry: true } })]).retry).toBe(true);
  });
  test("retry false, absent, or not a boolean: no retry", () => {
    for (const hso of [{ retry: false }, {}, { retry: "true" }]) expect(mergePermissionDenied([res({ hookSpecificOutput: { hookEventName: "PermissionDenied", ...hso } })]).retry).toBeUndefined();
  });
  test("exit 2 blocks nothing", () => {
    const o = mergePermissionDenied([res(undefined, "no")]);
    expect(o.blocked).toBe(false);
    expect(o.retry).toBeUndefined();
  });
  test("payload: common fields, then tool_name, tool_input, tool_use_id, reason", () => {
    const p = buildPayload("PermissionDenied", { session_id: "s", transcript_path: "/t", cwd: "/c", permission_mode: "auto" }, { reason: "r", tool_use_id: "toolu_1", tool_input: { command: "x" }, tool_name: "Bash" });
    expect(Object.keys(p)).toEqual(["session_id", "transcript_path", "cwd", "permission_mode", "hook_event_name", "tool_name", "tool_input", "tool_use_id", "reason"]);
    expect(permissionDeniedInput().safeParse(p).success).toBe(true);
  });
});
