import { describe, expect, test } from "bun:test";
import { buildPayload, EVENT_SPECS } from "../../../src/hook/events/index.ts";
import { mergePreToolUse } from "../../../src/hook/events/pre-tool-use.ts";
import { mergePostToolUse } from "../../../src/hook/events/post-tool-use.ts";
import { mergeStop } from "../../../src/hook/events/stop.ts";
import { mergeSubagentStop } from "../../../src/hook/events/subagent-stop.ts";
import { mergeUserPromptSubmit } from "../../../src/hook/events/user-prompt-submit.ts";
import { mergeSessionStart } from "../../../src/hook/events/session-start.ts";
import { mergeNotification } from "../../../src/hook/events/notification.ts";
import { mergePreCompact } from "../../../src/hook/events/pre-compact.ts";
import { mergeSubagentStart } from "../../../src/hook/events/subagent-start.ts";
import { mergeUserPromptExpansion } from "../../../src/hook/events/user-prompt-expansion.ts";
import { res } from "../helpers.ts";

describe("UserPromptExpansion merge (contracts §1.5, §1.6)", () => {
  const upe = (extra: Record<string, unknown>) => res({ output: { hookSpecificOutput: { hookEventName: "UserPromptExpansion", ...extra } } });
  test("decision:block blocks with its reason; suppressOriginalPrompt is carried", () => {
    const o = mergeUserPromptExpansion([res({ output: { decision: "block", reason: "no", hookSpecificOutput: { hookEventName: "UserPromptExpansion", suppressOriginalPrompt: true } } })]);
    expect(o).toMatchObject({ blocked: true, blockReason: "no", suppressOriginalPrompt: true });
  });
  test("exit 2 blocks; JSON context and plain stdout are kept apart (plain is the hook's success output)", () => {
    const o = mergeUserPromptExpansion([res({ blockingError: "[x]: stop" }), upe({ additionalContext: "A" }), res({ plainStdout: "  P \n" })]);
    expect(o.blocked).toBe(true);
    expect(o.additionalContext).toEqual(["A"]);
    expect(o.successOutput).toEqual(["P"]);
  });
  test("nothing said: no block, no context", () => {
    const o = mergeUserPromptExpansion([res({})]);
    expect(o.blocked).toBe(false);
    expect(o.successOutput).toBeUndefined();
    expect(o.additionalContext).toEqual([]);
  });
});

const pre = (permissionDecision: string, extra: Record<string, unknown> = {}) =>
  res({ output: { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision, ...extra } } });

describe("PreToolUse merge: deny > defer > ask > allow (contracts §1.6)", () => {
  const table: [string, string[], string | undefined][] = [
    ["allow alone", ["allow"], "allow"],
    ["ask beats allow", ["allow", "ask"], "ask"],
    ["defer beats ask", ["ask", "defer", "allow"], "defer"],
    ["deny beats all", ["allow", "defer", "deny", "ask"], "deny"],
    ["none", [], undefined],
  ];
  for (const [name, ds, want] of table) {
    test(name, () => {
      const o = mergePreToolUse(ds.map((d) => pre(d, { permissionDecisionReason: `r-${d}` })));
      expect(o.permissionDecision).toBe(want as never);
      expect(o.blocked).toBe(want === "deny");
      if (want) expect(o.permissionDecisionReason).toBe(`r-${want}`);
    });
  }
  test("deny reasons are joined and become the block reason", () => {
    const o = mergePreToolUse([pre("deny", { permissionDecisionReason: "a" }), pre("deny", { permissionDecisionReason: "b" })]);
    expect(o.blockReason).toBe("a\nb");
  });
  test("legacy top-level decision approve/block → allow/deny (contracts §9)", () => {
    expect(mergePreToolUse([res({ output: { decision: "approve" } })]).permissionDecision).toBe("allow");
    const o = mergePreToolUse([res({ output: { decision: "block", reason: "no" } })]);
    expect(o.permissionDecision).toBe("deny");
    expect(o.blocked).toBe(true);
    expect(o.blockReason).toBe("no");
  });
  test("exit 2 denies and cannot be overridden by JSON allow (contracts §1.5)", () => {
    const o = mergePreToolUse([res({ blockingError: "[x]: nope" }), pre("allow")]);
    expect(o.permissionDecision).toBe("deny");
    expect(o.blockReason).toBe("[x]: nope");
  });
  test("updatedInput kept on allow, dropped when denied", () => {
    const up = { command: "git status" };
    expect(mergePreToolUse([pre("allow", { updatedInput: up })]).updatedInput).toEqual(up);
    expect(mergePreToolUse([pre("allow", { updatedInput: up }), pre("deny")]).updatedInput).toBeUndefined();
    expect(mergePreToolUse([pre("deny", { updatedInput: up })]).updatedInput).toBeUndefined();
  });
  test("additionalContext collected; continue:false stops", () => {
    const o = mergePreToolUse([pre("allow", { additionalContext: "ctx1" }), res({ output: { continue: false, stopReason: "halt" } })]);
    expect(o.additionalContext).toEqual(["ctx1"]);
    expect(o.stop).toBe(true);
    expect(o.stopReason).toBe("halt");
  });
  test("a timed-out hook gives no decision", () => {
    const r = res();
    r.record.outcome = "timeout";
    expect(mergePreToolUse([r]).permissionDecision).toBeUndefined();
  });
});

describe("Stop / SubagentStop: decision block → blocked with reason", () => {
  test("block with reason", () => {
    const o = mergeStop([res({ output: { decision: "block", reason: "tests fail" } })]);
    expect(o).toMatchObject({ blocked: true, blockReason: "tests fail" });
  });
  test("exit 2 stderr is the reason", () => {
    expect(mergeSubagentStop([res({ blockingError: "keep going" })])).toMatchObject({ blocked: true, blockReason: "keep going" });
  });
  test("no opinion → not blocked", () => expect(mergeStop([res()]).blocked).toBe(false));
  test("default reason", () => expect(mergeStop([res({ output: { decision: "block" } })]).blockReason).toBe("Blocked by hook"));
});

describe("plain stdout as context", () => {
  test("UserPromptSubmit and SessionStart add plain stdout as additionalContext", () => {
    expect(mergeUserPromptSubmit([res({ plainStdout: "hello\n" })]).additionalContext).toEqual(["hello"]);
    expect(mergeSessionStart([res({ plainStdout: "ctx" })]).additionalContext).toEqual(["ctx"]);
  });
  test("PostToolUse plain stdout is not context", () => {
    expect(mergePostToolUse([res({ plainStdout: "x" })]).additionalContext).toEqual([]);
  });
  test("10,000-char cap (contracts §1.5)", () => {
    const o = mergeUserPromptSubmit([res({ plainStdout: "a".repeat(12_000) })]);
    expect(o.additionalContext[0]!.length).toBeLessThan(10_100);
    expect(o.additionalContext[0]).toContain("truncated");
  });
  test("PreCompact plain stdout goes to additionalContext (compact instructions)", () => {
    expect(mergePreCompact([res({ plainStdout: "keep the API notes" })]).additionalContext).toEqual(["keep the API notes"]);
  });
});

describe("event specifics", () => {
  test("UserPromptSubmit block, sessionTitle, suppressOriginalPrompt", () => {
    const o = mergeUserPromptSubmit([
      res({ output: { hookSpecificOutput: { hookEventName: "UserPromptSubmit", sessionTitle: "T", suppressOriginalPrompt: true } } }),
      res({ blockingError: "secret in prompt" }),
    ]);
    expect(o).toMatchObject({ blocked: true, blockReason: "secret in prompt", sessionTitle: "T", suppressOriginalPrompt: true });
  });
  test("SessionStart cannot block; exit-2 stderr shown to the user", () => {
    const r = res({ blockingError: "bad env" });
    r.record.hookName = "SessionStart:startup";
    const o = mergeSessionStart([r]);
    expect(o.blocked).toBe(false);
    expect(o.systemMessages).toEqual(["SessionStart:startup hook error: bad env"]);
  });
  test("SubagentStart cannot block", () => expect(mergeSubagentStart([res({ blockingError: "x" })]).blocked).toBe(false));
  test("Notification discards systemMessage", () => {
    expect(mergeNotification([res({ output: { systemMessage: "hi" } })]).systemMessages).toEqual([]);
    expect(mergeStop([res({ output: { systemMessage: "hi" } })]).systemMessages).toEqual(["hi"]);
  });
  test("PostToolUse: block reason is feedback; updatedToolOutput", () => {
    const o = mergePostToolUse([
      res({ output: { decision: "block", reason: "lint failed", hookSpecificOutput: { hookEventName: "PostToolUse", updatedToolOutput: { stdout: "x" } } } }),
    ]);
    expect(o).toMatchObject({ blocked: true, blockReason: "lint failed", updatedToolOutput: { stdout: "x" } });
  });
  test("hook errors reach the user as systemMessages", () => {
    const r = res();
    r.record.outcome = "non_blocking_error";
    r.record.error = "hook command \"x\" (/s.json) failed with non-blocking status code 1: boom";
    r.record.hookName = "PreToolUse:Bash";
    expect(mergePreToolUse([r]).systemMessages[0]).toContain("PreToolUse:Bash hook error: hook command \"x\"");
  });
});

describe("buildPayload key order (contracts §1.4)", () => {
  test("PreToolUse: common fields, hook_event_name, event fields", () => {
    const p = buildPayload(
      "PreToolUse",
      { permission_mode: "acceptEdits", cwd: "/p", transcript_path: "/t", session_id: "s", prompt_id: "pr", effort: { level: "medium" } },
      { tool_use_id: "tu", tool_input: { file_path: "/p/x" }, tool_name: "Write" },
    );
    expect(Object.keys(p)).toEqual([
      "session_id", "transcript_path", "cwd", "prompt_id", "permission_mode", "effort", "hook_event_name", "tool_name", "tool_input", "tool_use_id",
    ]);
    expect(JSON.stringify(p)).toBe(
      '{"session_id":"s","transcript_path":"/t","cwd":"/p","prompt_id":"pr","permission_mode":"acceptEdits","effort":{"level":"medium"},"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"/p/x"},"tool_use_id":"tu"}',
    );
  });
  test("agent_id/agent_type inside a subagent come before hook_event_name", () => {
    const p = buildPayload("PostToolUse", { session_id: "s", transcript_path: "/t", cwd: "/p", agent_type: "Explore", agent_id: "a1" }, { tool_name: "Read" });
    expect(Object.keys(p)).toEqual(["session_id", "transcript_path", "cwd", "agent_id", "agent_type", "hook_event_name", "tool_name"]);
  });
  test("SubagentStart owns agent_id/agent_type: after hook_event_name", () => {
    const p = buildPayload("SubagentStart", { session_id: "s", transcript_path: "/t", cwd: "/p" }, { agent_type: "Explore", agent_id: "a1" });
    expect(Object.keys(p)).toEqual(["session_id", "transcript_path", "cwd", "hook_event_name", "agent_id", "agent_type"]);
  });
  test("every event's built payload validates against its input schema", () => {
    const common = { session_id: "s", transcript_path: "/t", cwd: "/p", permission_mode: "default" as const };
    const fields: Record<string, Record<string, unknown>> = {
      PreToolUse: { tool_name: "Bash", tool_input: { command: "ls" }, tool_use_id: "t" },
      PermissionRequest: { tool_name: "Bash", tool_input: { command: "ls" } },
      PermissionDenied: { tool_name: "Bash", tool_input: { command: "ls" }, tool_use_id: "t", reason: "Auto mode blocked this action" },
      PostToolUse: { tool_name: "Bash", tool_input: {}, tool_response: { stdout: "" }, tool_use_id: "t" },
      PostToolUseFailure: { tool_name: "Bash", tool_input: {}, tool_use_id: "t", error: "Exit code 1\n" },
      UserPromptSubmit: { prompt: "hi" },
      UserPromptExpansion: { expansion_type: "slash_command", command_name: "greet", command_args: "x", command_source: "projectSettings", prompt: "/greet x" },
      Stop: { stop_hook_active: false },
      SubagentStart: { agent_id: "a", agent_type: "Explore" },
      SubagentStop: { stop_hook_active: false, agent_id: "a", agent_type: "Explore", agent_transcript_path: "/x" },
      SessionStart: { source: "startup" },
      SessionEnd: { reason: "other" },
      PreCompact: { trigger: "auto", custom_instructions: "" },
      PostCompact: { trigger: "auto", compact_summary: "s" },
      StopFailure: { error: "rate_limit" },
      InstructionsLoaded: { file_path: "/p/CLAUDE.md", memory_type: "Project", load_reason: "session_start" },
      Notification: { message: "m", notification_type: "idle_prompt" },
      PostToolBatch: { tool_calls: [{ tool_name: "Bash", tool_input: { command: "ls" }, tool_use_id: "t", tool_response: "a.txt" }] },
      MessageDisplay: { turn_id: "t", message_id: "m", index: 0, final: true, delta: "hi" },
    };
    for (const [ev, spec] of Object.entries(EVENT_SPECS)) {
      const p = buildPayload(ev as never, common, fields[ev]);
      const r = spec.input().safeParse(p);
      expect(r.success, ev).toBe(true);
      expect(spec.input().safeParse({ ...p, hook_event_name: "Nope" }).success).toBe(false);
    }
  });
  test("output schemas reject a hookEventName for another event", () => {
    expect(EVENT_SPECS.PreToolUse.output().safeParse({ hookSpecificOutput: { hookEventName: "Stop" } }).success).toBe(false);
    expect(EVENT_SPECS.PreToolUse.output().safeParse({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "maybe" } }).success).toBe(false);
    expect(EVENT_SPECS.Stop.output().safeParse({ decision: "block", reason: "r" }).success).toBe(true);
  });
  test("default timeouts (contracts §1.2, §9)", () => {
    expect(EVENT_SPECS.PreToolUse.defaultTimeoutSec).toBe(600);
    expect(EVENT_SPECS.UserPromptSubmit.defaultTimeoutSec).toBe(30);
    expect(EVENT_SPECS.SessionEnd.defaultTimeoutSec).toBe(1.5);
  });
});

test("HookPayload / HookResult types follow the schemas", () => {
  const p: import("../../../src/hook/events/index.ts").HookPayload<"Stop"> = { session_id: "s", transcript_path: "/t", cwd: "/", hook_event_name: "Stop", stop_hook_active: true };
  const r: import("../../../src/hook/events/index.ts").HookResult<"PreToolUse"> = { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny" } };
  expect(EVENT_SPECS.Stop.input().safeParse(p).success).toBe(true);
  expect(EVENT_SPECS.PreToolUse.output().safeParse(r).success).toBe(true);
});
