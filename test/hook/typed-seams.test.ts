// Issue 11 point 4: the hook seams are typed per event. These are compile-time checks (tsc runs them in
// `bun run typecheck`, which landing requires); the runtime part shows the typed handlers do run.
import { expect, test } from "bun:test";
import type { HookAnswer, HookOn } from "../../src/hook/typed.ts";

// The signature plugins get as host.hooks.on.
const seen: string[] = [];
const on = ((event: string) => {
  seen.push(event);
  return () => {};
}) as unknown as HookOn;

test("a PreToolUse handler sees tool_input and may answer permissionDecision", () => {
  on("PreToolUse", (p) => {
    const cmd: unknown = p.tool_input.command;
    const name: string = p.tool_name;
    if (cmd === "rm" && name) return { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "no" } };
    return { decision: "block", reason: "legacy form" };
  });
  expect(seen.splice(0)).toEqual(["PreToolUse"]);
});

test("a Stop handler cannot answer permissionDecision, and does not see tool_input", () => {
  // @ts-expect-error permissionDecision belongs to PreToolUse / PermissionRequest, not Stop
  on("Stop", () => ({ hookSpecificOutput: { hookEventName: "Stop", permissionDecision: "deny" } }));
  on("Stop", (p) => {
    // @ts-expect-error Stop's payload has no tool_input
    void p.tool_input.command;
    const again: boolean = p.stop_hook_active;
    return again ? undefined : { decision: "block", reason: "run the tests first" };
  });
  // @ts-expect-error hookEventName must name the handler's own event
  on("PostToolUse", () => ({ hookSpecificOutput: { hookEventName: "Stop" } }));
  // @ts-expect-error an unknown decision value
  on("PreToolUse", () => ({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "maybe" } }));
  const ok: HookAnswer<"UserPromptSubmit"> = { hookSpecificOutput: { hookEventName: "UserPromptSubmit", additionalContext: "today is Monday" } };
  expect(ok.hookSpecificOutput?.additionalContext).toBe("today is Monday");
  expect(seen).toEqual(["Stop", "Stop", "PostToolUse", "PreToolUse"]);
});
