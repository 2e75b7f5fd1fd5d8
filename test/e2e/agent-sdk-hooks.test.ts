// The real Agent SDK 0.3.332 against the compiled binary (issue 15 points 2 and 3): hooks registered in the host
// reach yoke as hook_callback requests (contracts §4.6), canUseTool answers with updatedInput, updatedPermissions
// and interrupt, compared with what Claude Code 2.1.332 does with the same programs.
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { HookCallback } from "@anthropic-ai/claude-agent-sdk";
import { toolResultsOf } from "../helpers/fake-anthropic.ts";
import { TRUST_WORKSPACE } from "../helpers/binary.ts";
import { sdkRun } from "../helpers/agent-sdk.ts";
import { tempDir } from "../helpers/tmp.ts";
import { useFakeAnthropic } from "../helpers/e2e.ts";

const fake = useFakeAnthropic({ perTest: true });

const bash = (command: string) => ({ content: [{ type: "tool_use" as const, name: "Bash", input: { command } }] });
const say = (text: string) => ({ content: [{ type: "text" as const, text }] });
const sent = (i: number) => JSON.stringify(fake.requests[i]!.body.messages);

test("a host PreToolUse deny blocks the tool; its reason reaches the model; the payload is Claude Code's", async () => {
  const cwd = tempDir();
  const seen: any[] = [];
  const deny: HookCallback = async (input, toolUseId) => {
    seen.push({ input, toolUseId });
    return { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "HOST-SAYS-NO" } };
  };
  fake.push(bash("touch made-by-bash"), say("blocked, ok"));
  const r = await sdkRun(fake, "make a file", { cwd, hooks: { PreToolUse: [{ matcher: "Bash", hooks: [deny] }] }, allowedTools: ["Bash"] });
  expect(r.error).toBeNull();
  expect(existsSync(join(cwd, "made-by-bash"))).toBe(false);
  expect(toolResultsOf(fake.requests[1]!)[0]!.text).toContain("HOST-SAYS-NO");
  expect(seen).toHaveLength(1);
  // contracts §1.4 common fields + PreToolUse fields; tool_use_id also travels beside the input.
  expect(seen[0].input).toMatchObject({ hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "touch made-by-bash" }, cwd, permission_mode: "default" });
  expect(typeof seen[0].input.session_id).toBe("string");
  expect(typeof seen[0].input.transcript_path).toBe("string");
  expect(seen[0].toolUseId).toBe(seen[0].input.tool_use_id);
  expect(r.result).toMatchObject({ subtype: "success", result: "blocked, ok" });
});

test("matchers filter; UserPromptSubmit and PostToolUse additionalContext reach the model; Stop fires", async () => {
  const calls: string[] = [];
  const note = (name: string, ctx?: string): HookCallback => async (input) => {
    calls.push(`${name}:${(input as any).tool_name ?? ""}`);
    return ctx ? { hookSpecificOutput: { hookEventName: input.hook_event_name, additionalContext: ctx } as any } : {};
  };
  fake.push(bash("echo hi"), say("done"));
  const r = await sdkRun(fake, "go", {
    allowedTools: ["Bash"],
    hooks: {
      UserPromptSubmit: [{ hooks: [note("submit", "CTX-FROM-SUBMIT")] }],
      PreToolUse: [{ matcher: "Write|Edit", hooks: [note("pre-write")] }, { matcher: "Bash", hooks: [note("pre-bash")] }],
      PostToolUse: [{ hooks: [note("post", "CTX-FROM-POST")] }],
      Stop: [{ hooks: [note("stop")] }],
    },
  });
  expect(r.error).toBeNull();
  expect(calls).toEqual(["submit:", "pre-bash:Bash", "post:Bash", "stop:"]);
  expect(sent(0)).toContain("CTX-FROM-SUBMIT");
  expect(sent(1)).toContain("CTX-FROM-POST");
});

test("host hooks merge with settings command hooks: a command hook's deny wins over a host allow", async () => {
  const cwd = tempDir();
  mkdirSync(join(cwd, ".claude"), { recursive: true });
  writeFileSync(
    join(cwd, ".claude", "settings.json"),
    JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"CMD-DENY"}}'` }] }] } }),
  );
  const allow: HookCallback = async () => ({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow" } });
  fake.push(bash("touch x"), say("ok"));
  // The project is the host's own: trusted, so its command hooks run (README "Workspace trust").
  const r = await sdkRun(fake, "go", { cwd, hooks: { PreToolUse: [{ hooks: [allow] }] }, extraEnv: TRUST_WORKSPACE });
  expect(r.error).toBeNull();
  expect(existsSync(join(cwd, "x"))).toBe(false);
  expect(toolResultsOf(fake.requests[1]!)[0]!.text).toContain("CMD-DENY");
});

test("a host hook that never answers times out with a clear message; the run goes on (no opinion)", async () => {
  const cwd = tempDir();
  const never: HookCallback = () => new Promise(() => {});
  fake.push(bash("touch after-timeout"), say("finished"));
  const r = await sdkRun(fake, "go", { cwd, allowedTools: ["Bash"], hooks: { PreToolUse: [{ hooks: [never], timeout: 1 }] } });
  expect(r.error).toBeNull();
  expect(r.result).toMatchObject({ subtype: "success", result: "finished" });
  expect(existsSync(join(cwd, "after-timeout"))).toBe(true);
  expect(r.stderr).toContain("the Agent SDK host's PreToolUse hook");
  expect(r.stderr).toContain("did not answer the hook_callback request within 1000 ms");
});

test("a host hook that throws is reported and does not block; onFailure: block blocks", async () => {
  const cwd = tempDir();
  const boom: HookCallback = async () => {
    throw new Error("host bug");
  };
  fake.push(bash("touch one"), bash("touch two"), say("done"));
  const r = await sdkRun(fake, "go", { cwd, allowedTools: ["Bash"], hooks: { PreToolUse: [{ matcher: "Bash", hooks: [boom] }] } });
  expect(r.error).toBeNull();
  expect(existsSync(join(cwd, "one"))).toBe(true);
  expect(r.stderr).toContain("host bug");

  const cwd2 = tempDir();
  fake.push(bash("touch three"), say("done"));
  const r2 = await sdkRun(fake, "go", { cwd: cwd2, allowedTools: ["Bash"], hooks: { PreToolUse: [{ matcher: "Bash", hooks: [boom], onFailure: "block" } as any] } });
  expect(r2.error).toBeNull();
  expect(existsSync(join(cwd2, "three"))).toBe(false);
});

test("a host hook answer that is not hook output is named on stderr and counts as no opinion", async () => {
  const cwd = tempDir();
  const garbage: HookCallback = async () => ({ decision: "maybe-later" }) as any;
  fake.push(bash("touch despite-garbage"), say("done"));
  const r = await sdkRun(fake, "go", { cwd, allowedTools: ["Bash"], hooks: { PreToolUse: [{ hooks: [garbage] }] } });
  expect(r.error).toBeNull();
  expect(existsSync(join(cwd, "despite-garbage"))).toBe(true);
  expect(r.stderr).toContain("PreToolUse hook (hook_0) failed: output does not match the PreToolUse hook output schema");
  expect(r.stderr).toContain('field "decision"');
});

test("canUseTool answering neither allow nor deny is a denial naming that", async () => {
  const cwd = tempDir();
  fake.push(bash("touch never"), say("done"));
  const r = await sdkRun(fake, "go", { cwd, canUseTool: async () => ({ behavior: "perhaps" }) as any });
  expect(existsSync(join(cwd, "never"))).toBe(false);
  expect(toolResultsOf(fake.requests[1]!)[0]!.text).toContain('the host answered without "behavior": "allow" or "deny"');
  expect(r.result).toMatchObject({ subtype: "success" });
});

test("canUseTool: updatedInput rewrites the call; the SDK gets Claude Code's suggestions and the tool use id", async () => {
  const cwd = tempDir();
  const asked: any[] = [];
  fake.push(bash("touch original"), say("done"));
  const r = await sdkRun(fake, "go", {
    cwd,
    canUseTool: async (name, input, o) => {
      asked.push({ name, input, suggestions: o.suggestions, toolUseID: o.toolUseID });
      return { behavior: "allow", updatedInput: { ...input, command: "touch rewritten" } };
    },
  });
  expect(r.error).toBeNull();
  expect(existsSync(join(cwd, "rewritten"))).toBe(true);
  expect(existsSync(join(cwd, "original"))).toBe(false);
  expect(asked[0]).toMatchObject({ name: "Bash", input: { command: "touch original" } });
  expect(asked[0].suggestions[0]).toMatchObject({ type: "addRules", behavior: "allow", rules: [{ toolName: "Bash", ruleContent: "touch original:*" }] }); // yoke's suggestRule
  expect(typeof asked[0].toolUseID).toBe("string");
});

test("canUseTool: updatedPermissions adds a session rule, so the next matching call is not asked", async () => {
  const cwd = tempDir();
  let asks = 0;
  fake.push(bash("touch a1"), bash("touch a2"), say("done"));
  const r = await sdkRun(fake, "go", {
    cwd,
    canUseTool: async (_n, input) => {
      asks++;
      return { behavior: "allow", updatedInput: input, updatedPermissions: [{ type: "addRules", rules: [{ toolName: "Bash", ruleContent: "touch:*" }], behavior: "allow", destination: "session" }] };
    },
  });
  expect(r.error).toBeNull();
  expect(asks).toBe(1);
  expect(existsSync(join(cwd, "a1")) && existsSync(join(cwd, "a2"))).toBe(true);
  // destination session: nothing written to the project's settings
  expect(existsSync(join(cwd, ".claude", "settings.local.json"))).toBe(false);
});

test("canUseTool: updatedPermissions to localSettings is saved in .claude/settings.local.json", async () => {
  const cwd = tempDir();
  fake.push(bash("touch b1"), say("done"));
  const r = await sdkRun(fake, "go", {
    cwd,
    canUseTool: async (_n, input, o) => ({ behavior: "allow", updatedInput: input, updatedPermissions: o.suggestions }),
  });
  expect(r.error).toBeNull();
  expect(JSON.parse(readFileSync(join(cwd, ".claude", "settings.local.json"), "utf8")).permissions.allow).toEqual(["Bash(touch b1:*)"]);
});

test("canUseTool deny with interrupt: true stops the turn at once: no further model request, an error result", async () => {
  const cwd = tempDir();
  fake.push({ content: [{ type: "tool_use", name: "Write", input: { file_path: join(cwd, "a.txt"), content: "x" } }] }, say("should not be asked"));
  const r = await sdkRun(fake, "w", { cwd, canUseTool: async () => ({ behavior: "deny", message: "stop now", interrupt: true }) });
  expect(fake.requests).toHaveLength(1);
  expect(existsSync(join(cwd, "a.txt"))).toBe(false);
  expect(r.result).toMatchObject({ is_error: true, subtype: "error_during_execution" });
  // As with Claude Code 2.1.332, the SDK reports the failed result.
  expect(r.error).toContain("returned an error result");
});
