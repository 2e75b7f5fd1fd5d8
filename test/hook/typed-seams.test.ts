// Issue 11 point 4: the hook seams are typed per event. These are compile-time checks (tsc runs them in
// `bun run typecheck`, which landing requires); the runtime part shows the typed handlers do run.
import { expect, test } from "bun:test";
import { createHookContext } from "../../src/cli/hook-context.ts";
import { eventPayload } from "../../src/hook/events/index.ts";
import type { EmitPayload, HookAnswer, HookOn, HookPayloadBuilder } from "../../src/hook/typed.ts";
import type { HookBus } from "../../src/hook/types.ts";
import { busFor, makeEnv } from "./helpers.ts";

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

// HookBus.emit and the payload builder: the payload follows the event name.
const build: HookPayloadBuilder = createHookContext({
  sessionId: "s1",
  transcriptPath: () => "/t.jsonl",
  cwd: () => "/p",
  permissionMode: () => "default",
  effort: () => undefined,
  newId: () => "prompt-1",
}).hookPayload;

test("emit takes the event's own payload; a wrong or missing field does not compile", async () => {
  const e = makeEnv();
  const bus = busFor(e);
  const seen: unknown[] = [];
  bus.registerInProcess("PreToolUse", (p) => void seen.push(p), { source: "t" });
  const pre = build("PreToolUse", { tool_name: "Bash", tool_input: { command: "ls" }, tool_use_id: "tu1" });
  const name: string = pre.tool_name;
  await bus.emit("PreToolUse", pre);
  expect(seen).toEqual([{ session_id: "s1", transcript_path: "/t.jsonl", cwd: "/p", permission_mode: "default", hook_event_name: "PreToolUse", tool_name: name, tool_input: { command: "ls" }, tool_use_id: "tu1" }]);

  const typeOnly = (b: HookBus) => {
    // @ts-expect-error a PreToolUse payload is not a Stop payload
    void b.emit("Stop", pre);
    // @ts-expect-error a misspelt field (tool_nme) in the builder's fields
    void build("PreToolUse", { tool_nme: "Bash", tool_input: {}, tool_use_id: "t" });
    // @ts-expect-error another event's field: Stop has no tool_name
    void build("Stop", { stop_hook_active: false, tool_name: "Bash" });
    // @ts-expect-error a required field is missing: PostToolUse needs tool_response
    void build("PostToolUse", { tool_name: "Bash", tool_input: {}, tool_use_id: "t" });
    // @ts-expect-error a field of the wrong type
    void build("Stop", { stop_hook_active: "yes" });
    // @ts-expect-error a payload without the common fields (session_id, transcript_path, cwd) is not a payload
    void b.emit("Stop", { hook_event_name: "Stop", stop_hook_active: false });
    // @ts-expect-error hook_event_name must be the emitted event's
    void b.emit("Stop", { ...build("Stop", { stop_hook_active: false }), hook_event_name: "SubagentStop" });
    // @ts-expect-error an unknown event name
    void b.emit("PreToolCall", pre);
    // A field of another event written into a literal payload is caught too (excess property check).
    // @ts-expect-error tool_name on a Stop payload
    void b.emit("Stop", { session_id: "s", transcript_path: "/t", cwd: "/p", hook_event_name: "Stop", stop_hook_active: false, tool_name: "x" });
    // Events that own a common field must give it: SubagentStart's agent_id and agent_type.
    // @ts-expect-error agent_id missing
    void build("SubagentStart", { agent_type: "Explore" });
    const typed: EmitPayload<"SubagentStart"> = build("SubagentStart", { agent_id: "a1", agent_type: "Explore" });
    return typed;
  };
  expect(typeof typeOnly).toBe("function");
});

test("the typed builder orders the payload as Claude Code does (contracts §1.4)", () => {
  const p = eventPayload("PostToolUseFailure", { session_id: "s", transcript_path: "/t", cwd: "/p" }, { duration_ms: 3, is_interrupt: false, error: "boom", tool_use_id: "t", tool_input: {}, tool_name: "Bash" });
  expect(Object.keys(p)).toEqual(["session_id", "transcript_path", "cwd", "hook_event_name", "tool_name", "tool_input", "tool_use_id", "error", "is_interrupt", "duration_ms"]);
});
