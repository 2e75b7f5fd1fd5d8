// Issue 11 point 8: the tool runner, one row per branch of validate → PreToolUse → permission →
// PermissionRequest → ask → execute → PostToolUse (DESIGN rule 3: every failure is an instruction to the model).
import { describe, expect, test } from "bun:test";
import { z } from "zod";
import type { HookEventName, HookOutcome } from "../../src/hook/types.ts";
import { runToolCall, type AskPermission, type ToolRunnerDeps } from "../../src/loop/tool-runner.ts";
import { createPermissionEvaluator } from "../../src/permission/index.ts";
import { defineTool } from "../../src/tool/define-tool.ts";
import { createFileState } from "../../src/tool/file-state.ts";
import { createToolRegistry } from "../../src/tool/registry.ts";
import { newSessionState } from "../../src/tool/types.ts";
import { tableBus } from "../helpers/loop-deps.ts";

type Answers = Partial<Record<HookEventName, (p: any) => Partial<HookOutcome>>>;

type Row = {
  name: string;
  call?: { name: string; input: Record<string, unknown> };
  hooks?: Answers;
  /** Permission rules (default: allow Echo and Boom); the mode is `default`. */
  rules?: { allow?: string[]; deny?: string[]; ask?: string[] };
  ask?: AskPermission;
  denyInsteadOfPrompting?: boolean;
  aborted?: boolean;
  want: {
    isError: boolean;
    /** The tool_result text contains this. */
    text: string;
    /** The input the tool ran with (null: it did not run). */
    ran: Record<string, unknown> | null;
    denial?: boolean;
    stop?: boolean;
    context?: string[];
    /** Hook events fired, in order. */
    fired?: HookEventName[];
  };
};

const ALLOW: NonNullable<Row["rules"]> = { allow: ["Echo", "Boom"] };
const echo = (text: string) => ({ name: "Echo", input: { text } });

const ROWS: Row[] = [
  { name: "unknown tool", call: { name: "Nope", input: {} }, want: { isError: true, text: "No such tool available: Nope. Use one of: Echo, Boom", ran: null } },
  {
    name: "input that was not valid JSON",
    call: { name: "Echo", input: { __invalid_json__: '{"text": "unterminated' } },
    want: { isError: true, text: "the input for Echo was not valid JSON", ran: null },
  },
  { name: "input against the schema", call: { name: "Echo", input: { text: 5 } }, want: { isError: true, text: "text", ran: null } },
  {
    name: "PreToolUse deny",
    hooks: { PreToolUse: () => ({ permissionDecision: "deny", permissionDecisionReason: "not today" }) },
    want: { isError: true, text: "PreToolUse:Echo hook error: not today", ran: null, denial: true, fired: ["PreToolUse"] },
  },
  {
    name: "PreToolUse block (exit 2)",
    hooks: { PreToolUse: () => ({ blocked: true, blockReason: "[guard]: no" }) },
    want: { isError: true, text: "PreToolUse:Echo hook error: [guard]: no", ran: null, denial: true },
  },
  {
    name: "PreToolUse allow lets through a call no rule allows",
    rules: {},
    hooks: { PreToolUse: () => ({ permissionDecision: "allow" }) },
    want: { isError: false, text: "echo: hi", ran: { text: "hi" }, fired: ["PreToolUse"] },
  },
  {
    name: "PreToolUse allow cannot override a deny rule",
    rules: { deny: ["Echo"] },
    hooks: { PreToolUse: () => ({ permissionDecision: "allow" }) },
    want: { isError: true, text: "Permission to use Echo was denied", ran: null, denial: true },
  },
  {
    name: "PreToolUse ask, headless: denied, and the model is told not to retry",
    hooks: { PreToolUse: () => ({ permissionDecision: "ask" }) },
    want: { isError: true, text: "Permission to use Echo was denied", ran: null, denial: true },
  },
  {
    name: "PreToolUse rewrites the input",
    hooks: { PreToolUse: () => ({ updatedInput: { text: "rewritten" } }) },
    want: { isError: false, text: "echo: rewritten", ran: { text: "rewritten" } },
  },
  {
    name: "PreToolUse rewrites the input into something invalid",
    hooks: { PreToolUse: () => ({ updatedInput: { text: "" } }) },
    want: { isError: true, text: "A PreToolUse hook rewrote the input of Echo into something invalid", ran: null },
  },
  {
    name: "PreToolUse context and continue:false",
    hooks: { PreToolUse: () => ({ additionalContext: ["be brief"], stop: true, stopReason: "enough" }) },
    want: { isError: false, text: "echo: hi", ran: { text: "hi" }, stop: true, context: ["PreToolUse:Echo hook additional context: be brief"] },
  },
  { name: "permission deny rule", rules: { deny: ["Echo(text:hi)"], allow: ["Echo"] }, want: { isError: true, text: "denied by rule Echo(text:hi)", ran: null, denial: true } },
  { name: "permission ask, headless", rules: {}, want: { isError: true, text: "Permission to use Echo was denied", ran: null, denial: true } },
  {
    name: "permission ask, a person allows (and may edit the input)",
    rules: {},
    ask: async () => ({ allow: true, input: { text: "edited" } }),
    want: { isError: false, text: "echo: edited", ran: { text: "edited" } },
  },
  {
    name: "permission ask, a person refuses with feedback",
    rules: {},
    ask: async () => ({ allow: false, feedback: "use Read" }),
    want: { isError: true, text: "The user denied this Echo call and said: use Read", ran: null, denial: true },
  },
  {
    name: "permission ask with denyInsteadOfPrompting: nobody is asked",
    rules: {},
    ask: async () => ({ allow: true }),
    denyInsteadOfPrompting: true,
    want: { isError: true, text: "Permission to use Echo was denied", ran: null, denial: true },
  },
  {
    name: "PermissionRequest hook denies an ask",
    rules: {},
    hooks: { PermissionRequest: () => ({ permissionDecision: "deny", permissionDecisionReason: "policy" }) },
    want: { isError: true, text: "A PermissionRequest hook denied it: policy", ran: null, denial: true, fired: ["PermissionRequest"] },
  },
  {
    name: "PermissionRequest hook allows an ask, with a rewritten input",
    rules: {},
    hooks: { PermissionRequest: () => ({ permissionDecision: "allow", updatedInput: { text: "from hook" } }) },
    want: { isError: false, text: "echo: from hook", ran: { text: "from hook" } },
  },
  {
    // Issue 16 point 7: the rewritten input is decided again, so deny rules hold for what would really run.
    name: "PermissionRequest hook rewrites an ask into a denied input",
    rules: { deny: ["Echo(text:forbidden*)"] },
    hooks: { PermissionRequest: () => ({ permissionDecision: "allow", updatedInput: { text: "forbidden thing" } }) },
    want: { isError: true, text: "the rewritten call is not allowed: Permission to use Echo has been denied by rule Echo(text:forbidden*)", ran: null, denial: true },
  },
  {
    name: "an approver that rewrites the call into a denied input is denied",
    rules: { deny: ["Echo(text:forbidden*)"] },
    ask: async () => ({ allow: true, input: { text: "forbidden too" } }),
    want: { isError: true, text: "The approved call was rewritten into one that is denied", ran: null, denial: true },
  },
  {
    name: "PermissionRequest hook allows into an invalid input",
    rules: {},
    hooks: { PermissionRequest: () => ({ permissionDecision: "allow", updatedInput: { nope: 1 } }) },
    want: { isError: true, text: "A PermissionRequest hook rewrote the input of Echo into something invalid", ran: null },
  },
  {
    name: "PermissionRequest does not fire when a rule already decided",
    hooks: { PermissionRequest: () => ({ permissionDecision: "deny" }) },
    want: { isError: false, text: "echo: hi", ran: { text: "hi" }, fired: [] },
  },
  {
    name: "the tool throws: an error result, PostToolUseFailure fires",
    call: { name: "Boom", input: {} },
    hooks: { PostToolUse: () => ({}), PostToolUseFailure: () => ({ additionalContext: ["check the logs"] }) },
    want: { isError: true, text: "kaboom", ran: null, fired: ["PostToolUseFailure"], context: ["PostToolUseFailure:Boom hook additional context: check the logs"] },
  },
  {
    name: "aborted before it runs: interrupted, nothing ran",
    aborted: true,
    want: { isError: true, text: "Echo was interrupted by the user", ran: null },
  },
  {
    name: "PostToolUse block reason and continue:false reach the model",
    hooks: { PostToolUse: () => ({ blocked: true, blockReason: "lint failed", stop: true }) },
    want: { isError: false, text: "echo: hi", ran: { text: "hi" }, stop: true, context: ["PostToolUse:Echo hook blocking error: lint failed"], fired: ["PostToolUse"] },
  },
];

function depsFor(row: Row) {
  const ran: Array<Record<string, unknown>> = [];
  const echoTool = defineTool({
    name: "Echo",
    description: "echo",
    input: z.object({ text: z.string().min(1) }),
    readOnly: false,
    execute: ({ text }) => {
      ran.push({ text });
      return { content: `echo: ${text}` };
    },
  });
  const boomTool = defineTool({
    name: "Boom",
    description: "throws",
    input: z.object({}),
    readOnly: false,
    execute: () => {
      throw new Error("kaboom");
    },
  });
  const { bus, fired } = tableBus(row.hooks ?? {});
  const cwd = "/tmp";
  const r = row.rules ?? ALLOW;
  const session = newSessionState(cwd);
  const deps: ToolRunnerDeps = {
    tools: createToolRegistry([echoTool, boomTool]),
    hooks: bus,
    permissions: (() => {
      const settings = { permissions: { allow: r.allow ?? [], deny: r.deny ?? [], ask: r.ask ?? [] } };
      return createPermissionEvaluator({ settings: { merged: settings, sources: [{ level: "local", path: "rules.json", ruleRoot: cwd, settings }] }, mode: "default", cwd });
    })(),
    hookPayload: (event, fields) => ({ hook_event_name: event, ...fields }),
    context: (toolUseId, signal) => ({ cwd, projectDir: cwd, workingDirectories: [cwd], sessionId: "s", signal, env: {}, fileState: createFileState(), session, toolUseId }),
    askPermission: row.ask,
    denyInsteadOfPrompting: row.denyInsteadOfPrompting,
    clock: () => 0,
  };
  return { deps, ran, fired };
}

describe("runToolCall, branch by branch", () => {
  test.each(ROWS.map((r) => [r.name, r] as const))("%s", async (_name, row) => {
    const { deps, ran, fired } = depsFor(row);
    const ctrl = new AbortController();
    if (row.aborted) ctrl.abort();
    const call = row.call ?? echo("hi");
    const out = await runToolCall(deps, { type: "tool_use", id: "toolu_1", name: call.name, input: call.input }, ctrl.signal);
    expect(out.block.tool_use_id).toBe("toolu_1");
    expect(out.block.is_error).toBe(row.want.isError);
    expect(String(out.block.content)).toContain(row.want.text);
    expect(ran).toEqual(row.want.ran ? [row.want.ran] : []);
    expect(!!out.denial).toBe(!!row.want.denial);
    if (out.denial) expect(out.denial.denial).toMatchObject({ tool_name: call.name, tool_use_id: "toolu_1" });
    expect(!!out.stop).toBe(!!row.want.stop);
    if (row.want.context) expect(out.context).toEqual(row.want.context);
    if (row.want.fired) expect(fired.map((f) => f.event)).toEqual(row.want.fired);
  });

  test("every row names a different branch, and the table covers each way a call can end", () => {
    expect(new Set(ROWS.map((r) => r.name)).size).toBe(ROWS.length);
    const ends = new Set(ROWS.map((r) => (r.want.ran ? "ran" : r.want.denial ? "denied" : "error")));
    expect([...ends].sort()).toEqual(["denied", "error", "ran"]);
  });
});
