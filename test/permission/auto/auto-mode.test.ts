// Auto mode in the tool runner (issue 19 points 2-4): the classifier after the hooks, its block as an is_error
// result and a denial, the circuit breaker (3 in a row, 20 per session), fail closed, and the denial log.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { z } from "zod";
import type { HookEventName, HookOutcome } from "../../../src/hook/types.ts";
import { runToolCall, type AskPermission, type ToolRunnerDeps } from "../../../src/loop/tool-runner.ts";
import { BLOCKS_IN_A_ROW, BLOCKS_PER_SESSION, createAutoMode } from "../../../src/permission/auto/auto-mode.ts";
import type { ClassifierVerdict, ClassifyRequest } from "../../../src/permission/auto/classifier.ts";
import { readDenials, recordDenial } from "../../../src/permission/auto/denial-log.ts";
import { createPermissionEvaluator } from "../../../src/permission/index.ts";
import { defineTool } from "../../../src/tool/define-tool.ts";
import { createFileState } from "../../../src/tool/file-state.ts";
import { createToolRegistry } from "../../../src/tool/registry.ts";
import { newSessionState } from "../../../src/tool/types.ts";
import { tableBus } from "../../helpers/loop-deps.ts";
import { tempDir } from "../../helpers/tmp.ts";

const dir = tempDir("yoke-auto-mode-");


type Script = ClassifierVerdict[];

function setup(o: { verdicts: Script; hooks?: Partial<Record<HookEventName, (p: any) => Partial<HookOutcome>>>; ask?: AskPermission; rules?: { allow?: string[]; deny?: string[] }; log?: string }) {
  const ran: string[] = [];
  const seen: ClassifyRequest[] = [];
  const net = defineTool({
    name: "Net",
    description: "does something no rule allows",
    input: z.object({ what: z.string() }),
    readOnly: false,
    execute: (i) => {
      ran.push(i.what);
      return { content: `did ${i.what}` };
    },
  });
  const queue = [...o.verdicts];
  const auto = createAutoMode({
    classify: async (req) => {
      seen.push(req);
      return queue.shift() ?? { ok: false, problem: "script exhausted" };
    },
    rules: () => ({ allow: o.rules?.allow ?? [], ask: [], deny: o.rules?.deny ?? [] }),
    sessionId: "s1",
    record: o.log ? (d) => recordDenial(o.log!, d) : undefined,
  });
  const { bus, fired } = tableBus(o.hooks ?? {});
  const cwd = dir;
  const session = newSessionState(cwd);
  const settings = { permissions: { allow: o.rules?.allow ?? [], deny: o.rules?.deny ?? [] } };
  const deps: ToolRunnerDeps = {
    tools: createToolRegistry([net]),
    hooks: bus,
    permissions: createPermissionEvaluator({ settings: { merged: settings, sources: [{ level: "local", path: "rules.json", ruleRoot: cwd, settings }] }, mode: "auto", cwd }),
    hookPayload: (event, fields) => ({ hook_event_name: event, ...fields }),
    context: (toolUseId, signal) => ({ cwd, projectDir: cwd, workingDirectories: [cwd], sessionId: "s1", signal, env: {}, fileState: createFileState(), session, toolUseId }),
    askPermission: o.ask,
    clock: () => 0,
    autoMode: auto,
  };
  let n = 0;
  const call = (what: string) => runToolCall(deps, { type: "tool_use", id: `toolu_${++n}`, name: "Net", input: { what } }, new AbortController().signal, [{ role: "user", content: "please deploy" }]);
  return { deps, auto, ran, seen, fired, call };
}

const allow = (reason = "fine"): ClassifierVerdict => ({ ok: true, decision: "allow", reason });
const block = (reason = "too risky"): ClassifierVerdict => ({ ok: true, decision: "block", reason });

describe("the classifier decides what nothing else did", () => {
  test("allowed: the tool runs; blocked: an is_error result with the reason and a denial", async () => {
    const s = setup({ verdicts: [allow(), block("sends the repo to a stranger")] });
    const a = await s.call("build");
    expect(a.block.is_error).toBe(false);
    const b = await s.call("upload");
    expect(b.block.is_error).toBe(true);
    expect(String(b.block.content)).toContain("Auto mode blocked this action: sends the repo to a stranger");
    expect(b.denial?.denial).toMatchObject({ tool_name: "Net", tool_input: { what: "upload" } });
    expect(s.ran).toEqual(["build"]);
    expect(s.seen[0]!.history).toEqual([{ role: "user", content: "please deploy" }]);
    expect(s.seen[0]!.action).toMatchObject({ toolName: "Net", input: { what: "build" } });
  });
  test("a rule decides first: the classifier is not asked", async () => {
    const s = setup({ verdicts: [], rules: { allow: ["Net"] } });
    expect((await s.call("x")).block.is_error).toBe(false);
    const d = setup({ verdicts: [], rules: { deny: ["Net"] } });
    expect((await d.call("x")).block.is_error).toBe(true);
    expect(s.seen).toHaveLength(0);
    expect(d.seen).toHaveLength(0);
  });
  test("PreToolUse and PermissionRequest hooks decide before the classifier", async () => {
    const pre = setup({ verdicts: [], hooks: { PreToolUse: () => ({ permissionDecision: "deny", permissionDecisionReason: "guard" }) } });
    expect(String((await pre.call("x")).block.content)).toContain("guard");
    const preAllow = setup({ verdicts: [], hooks: { PreToolUse: () => ({ permissionDecision: "allow" }) } });
    expect((await preAllow.call("x")).block.is_error).toBe(false);
    const pr = setup({ verdicts: [], hooks: { PermissionRequest: () => ({ permissionDecision: "allow" }) } });
    expect((await pr.call("x")).block.is_error).toBe(false);
    const prDeny = setup({ verdicts: [], hooks: { PermissionRequest: () => ({ permissionDecision: "deny", permissionDecisionReason: "policy" }) } });
    expect(String((await prDeny.call("x")).block.content)).toContain("policy");
    for (const s of [pre, preAllow, pr, prDeny]) expect(s.seen).toHaveLength(0);
    // A PermissionRequest hook that says nothing leaves it to the classifier.
    const silent = setup({ verdicts: [block()], hooks: { PermissionRequest: () => ({}) } });
    expect((await silent.call("x")).block.is_error).toBe(true);
    expect(silent.fired.map((f) => f.event)).toEqual(["PermissionRequest"]);
    expect(silent.seen).toHaveLength(1);
  });
  test("PermissionDenied hooks hear classifier denials only; retry: true lets the model retry", async () => {
    const s = setup({
      verdicts: [block("risky"), allow()],
      hooks: { PermissionDenied: (p) => ({ retry: p.tool_input.what === "again" }) },
    });
    const r = await s.call("again");
    expect(String(r.block.content)).toContain("Auto mode blocked this action: risky");
    expect(String(r.block.content)).toContain("A PermissionDenied hook says you may retry this action.");
    expect(String(r.block.content)).not.toContain("Do not retry");
    expect(s.fired.map((f) => f.event)).toEqual(["PermissionDenied"]);
    expect(s.fired[0]!.payload).toMatchObject({ tool_name: "Net", tool_input: { what: "again" }, tool_use_id: "toolu_1", reason: expect.stringContaining("risky") });
    await s.call("fine");
    const byRule = setup({ verdicts: [], rules: { deny: ["Net"] }, hooks: { PermissionDenied: () => ({}) } });
    await byRule.call("x");
    expect(byRule.fired).toHaveLength(0);
    expect(s.fired).toHaveLength(1);
  });
  test("a classifier failure blocks and says so (fail closed)", async () => {
    const s = setup({ verdicts: [{ ok: false, problem: "no answer within 60000 ms" }] });
    const r = await s.call("x");
    expect(r.block.is_error).toBe(true);
    expect(String(r.block.content)).toContain("the classifier failed: no answer within 60000 ms");
    expect(String(r.block.content)).toContain("fails closed");
    expect(s.ran).toEqual([]);
  });
  test("outside auto mode the classifier is never asked", async () => {
    const s = setup({ verdicts: [allow()] });
    (s.deps.permissions as ReturnType<typeof createPermissionEvaluator>).setMode("default");
    expect((await s.call("x")).block.is_error).toBe(true);
    expect(s.seen).toHaveLength(0);
  });
});

describe("the circuit breaker (seed 000: 3 in a row or 20 in total)", () => {
  test(`${BLOCKS_IN_A_ROW} blocks in a row pause auto mode; headless, later actions are denied saying so`, async () => {
    const s = setup({ verdicts: [block(), block(), block(), allow()] });
    for (let i = 0; i < BLOCKS_IN_A_ROW; i++) expect((await s.call(`b${i}`)).block.is_error).toBe(true);
    expect(s.auto.paused).toBe(true);
    const after = await s.call("later");
    expect(after.block.is_error).toBe(true);
    expect(String(after.block.content)).toContain("Auto mode paused after 3 blocked actions in a row");
    expect(after.denial).toBeDefined();
    expect(s.seen).toHaveLength(BLOCKS_IN_A_ROW);
    expect(s.ran).toEqual([]);
  });
  test("an allow breaks the streak", async () => {
    const s = setup({ verdicts: [block(), block(), allow(), block(), block(), allow()] });
    for (const w of ["a", "b", "c", "d", "e", "f"]) await s.call(w);
    expect(s.auto.paused).toBe(false);
    expect(s.ran).toEqual(["c", "f"]);
  });
  test(`${BLOCKS_PER_SESSION} blocks in the session pause it even with allows between`, async () => {
    const verdicts: Script = [];
    for (let i = 0; i < BLOCKS_PER_SESSION; i++) verdicts.push(block(), allow());
    const s = setup({ verdicts });
    for (let i = 0; i < BLOCKS_PER_SESSION * 2 - 1; i++) await s.call(`x${i}`);
    expect(s.auto.paused).toBe(true);
    expect(String((await s.call("late")).block.content)).toContain(`Auto mode paused after ${BLOCKS_PER_SESSION} blocked actions in this session`);
  });
  test("interactive: once paused, a person is asked; their approval resumes auto mode", async () => {
    const asked: string[] = [];
    const s = setup({ verdicts: [block(), block(), block(), allow()], ask: async (r) => (asked.push(r.reason), { allow: true }) });
    for (let i = 0; i < 3; i++) await s.call(`b${i}`);
    const r = await s.call("asked");
    expect(r.block.is_error).toBe(false);
    expect(asked[0]).toContain("Auto mode paused");
    expect(s.auto.paused).toBe(false);
    expect((await s.call("classified again")).block.is_error).toBe(false);
    expect(s.seen).toHaveLength(4);
  });
  test("classifier failures count as blocks", async () => {
    const s = setup({ verdicts: [{ ok: false, problem: "down" }, { ok: false, problem: "down" }, { ok: false, problem: "down" }] });
    for (let i = 0; i < 3; i++) await s.call(`x${i}`);
    expect(s.auto.stats()).toMatchObject({ failures: 3, blocked: 3, paused: true });
  });
});

describe("denials are kept for `yoke permissions recent`", () => {
  test("blocks, failures and paused denials, newest first", async () => {
    const log = join(dir, "denials.jsonl");
    const s = setup({ verdicts: [block("one"), { ok: false, problem: "two" }, block("three")], log });
    for (const w of ["a", "b", "c", "d"]) await s.call(w);
    const got = readDenials(log);
    expect(got.map((d) => [d.input.what, d.kind])).toEqual([
      ["d", "paused"],
      ["c", "classifier"],
      ["b", "failure"],
      ["a", "classifier"],
    ]);
    expect(got[3]).toMatchObject({ sessionId: "s1", toolName: "Net", reason: expect.stringContaining("one") });
  });
  test("an unwritable log warns and the run goes on", async () => {
    const warned: string[] = [];
    const a = createAutoMode({ classify: async () => block(), rules: () => ({ allow: [], ask: [], deny: [] }), sessionId: "s", record: (d) => recordDenial("/proc/forbidden/x.jsonl", d), warn: (m) => warned.push(m) });
    expect((await a.review({ toolName: "T", input: {}, toolUseId: "t", cwd: "/", history: [] })).behavior).toBe("deny");
    expect(warned[0]).toContain("/proc/forbidden/x.jsonl");
  });
});

describe("a first read outside the working directories (seed 000 step 2)", () => {
  const review = (a: ReturnType<typeof createAutoMode>, input: Record<string, unknown>, readOnly = true) =>
    a.review({ toolName: "Read", input, toolUseId: "t", cwd: "/w", history: [], readOnly });
  test("is classified once; later reads in that folder are approved without the classifier", async () => {
    const asked: string[] = [];
    const a = createAutoMode({ classify: async (r) => (asked.push(String(r.action.input.file_path ?? r.action.input.path)), allow()), rules: () => ({ allow: [], ask: [], deny: [] }), sessionId: "s" });
    expect((await review(a, { file_path: "/srv/docs/a.md" })).behavior).toBe("allow");
    expect((await review(a, { file_path: "/srv/docs/b.md" })).behavior).toBe("allow");
    expect((await review(a, { path: "/srv/docs/sub" })).behavior).toBe("allow");
    expect(asked).toEqual(["/srv/docs/a.md"]);
    // Another folder, a folder above, a write: classified again.
    await review(a, { file_path: "/srv/other/x" });
    await review(a, { file_path: "/srv/x" });
    await review(a, { file_path: "/srv/docs/c.md" }, false);
    expect(asked).toEqual(["/srv/docs/a.md", "/srv/other/x", "/srv/x", "/srv/docs/c.md"]);
  });
  test("a blocked first read opens nothing", async () => {
    const asked: string[] = [];
    const a = createAutoMode({ classify: async (r) => (asked.push(String(r.action.input.file_path)), block()), rules: () => ({ allow: [], ask: [], deny: [] }), sessionId: "s" });
    await review(a, { file_path: "/srv/docs/a.md" });
    await review(a, { file_path: "/srv/docs/b.md" });
    expect(asked).toHaveLength(2);
  });
});
