// contracts §1.1 / §1.6 / §3.4: PermissionRequest decides only through hookSpecificOutput.decision.behavior.
import { describe, expect, test } from "bun:test";
import { mergePermissionRequest } from "../../../src/hook/events/permission-request.ts";
import type { HandlerResult } from "../../../src/hook/events/index.ts";

const res = (output?: Record<string, unknown>, blockingError?: string): HandlerResult => ({
  record: { source: "command: x (s.json)", hookName: "PermissionRequest:Bash", exitCode: blockingError ? 2 : 0, stdout: "", stderr: "", durationMs: 1, outcome: "success" },
  ...(output ? { output } : {}),
  ...(blockingError !== undefined ? { blockingError } : {}),
});
const decide = (decision: Record<string, unknown>) => res({ hookSpecificOutput: { hookEventName: "PermissionRequest", decision } });

describe("PermissionRequest merge", () => {
  test("allow with updatedInput", () => {
    const o = mergePermissionRequest([decide({ behavior: "allow", updatedInput: { command: "npm test -- --ci" } })]);
    expect(o.permissionDecision).toBe("allow");
    expect(o.updatedInput).toEqual({ command: "npm test -- --ci" });
  });
  test("a deny from any handler wins and carries its message", () => {
    const o = mergePermissionRequest([decide({ behavior: "allow" }), decide({ behavior: "deny", message: "not on CI" })]);
    expect(o).toMatchObject({ permissionDecision: "deny", permissionDecisionReason: "not on CI" });
    expect(o.updatedInput).toBeUndefined();
  });
  test("exit 2 alone decides nothing (contracts §1.1)", () => {
    const o = mergePermissionRequest([res(undefined, "stderr text")]);
    expect(o.permissionDecision).toBeUndefined();
    expect(o.blocked).toBe(false);
  });
  test("no decision: nothing decided", () => {
    expect(mergePermissionRequest([res({})]).permissionDecision).toBeUndefined();
  });
});
