// runSubagent: runTurn with a fresh conversation, the parent's hooks/permissions/usage (issue 8, contracts §1.4).
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { z } from "zod";
import { runSubagent } from "../../src/loop/subagent.ts";
import { createPermissionEvaluator } from "../../src/permission/index.ts";
import { modeOnlyEvaluator } from "../helpers/mode-only-permissions.ts";
import { createTranscript } from "../../src/session/transcript.ts";
import type { MetaEntry, SessionEntry } from "../../src/session/types.ts";
import { readTool, writeTool } from "../../src/tool/builtin/file-tools.ts";
import { defineTool } from "../../src/tool/define-tool.ts";
import { createToolRegistry } from "../../src/tool/registry.ts";
import { parentDeps, tableBus } from "../helpers/loop-deps.ts";
import { tempDir, writeTree } from "../helpers/tmp.ts";

function sidechain(path = "/side/agent-a1.jsonl") {
  const lines: Array<SessionEntry | MetaEntry> = [];
  let n = 0;
  const transcript = createTranscript(
    { sessionId: "s1", path, append: (e) => void lines.push(e) },
    { cwd: () => "/tmp", version: "t", entrypoint: "test", uuid: () => `sub${++n}`, now: () => new Date(0), isSidechain: true, agentId: "a1" },
  );
  return { transcript, lines };
}

const agentTool = defineTool({ name: "Agent", aliases: ["Task"], description: "x", input: z.object({}).loose(), readOnly: true, execute: () => ({ content: "" }) });

describe("runSubagent", () => {
  test("own system, model and fresh conversation; usage folds into the parent's tracker; Agent never offered", async () => {
    const dir = tempDir();
    writeTree(dir, { "a.txt": "alpha\n" });
    const { deps, provider } = parentDeps({
      cwd: dir,
      script: [
        { content: [{ type: "tool_use", name: "Read", input: { file_path: join(dir, "a.txt") } }] },
        { content: [{ type: "text", text: "found alpha" }] },
      ],
    });
    const { transcript, lines } = sidechain();
    const run = await runSubagent(deps, {
      agentType: "Explore",
      agentId: "a1",
      prompt: "look",
      system: [{ type: "text", text: "SUB SYSTEM" }],
      tools: createToolRegistry([readTool, agentTool]),
      model: "claude-haiku-5-5",
      transcript,
      signal: new AbortController().signal,
    });
    expect(run.text).toBe("found alpha");
    expect(run.result.subtype).toBe("success");
    expect(run.toolUseCount).toBe(1);
    expect(provider.requests[0]!.model).toBe("claude-haiku-5-5");
    expect(provider.requests[0]!.system).toEqual([{ type: "text", text: "SUB SYSTEM" }]);
    expect(provider.requests[0]!.messages).toEqual([{ role: "user", content: "look" }]);
    expect(provider.requests[0]!.tools.map((t) => t.name)).toEqual(["Read"]);
    expect(JSON.stringify(provider.requests[1]!.messages)).toContain("alpha");
    expect(Object.keys(deps.usage.modelUsage())).toEqual(["claude-haiku-5-5"]);
    expect(run.result.usage.output_tokens).toBeGreaterThan(0);
    // Sidechain lines (contracts §5.2): isSidechain and agentId on every line.
    expect(lines.length).toBe(4);
    for (const l of lines as any[]) expect(l).toMatchObject({ isSidechain: true, agentId: "a1" });
  });

  test("hooks inside: agent_id/agent_type before hook_event_name; no UserPromptSubmit; Stop becomes SubagentStop (contracts §1.4)", async () => {
    const dir = tempDir();
    writeTree(dir, { "a.txt": "alpha\n" });
    let stops = 0;
    const { bus, fired } = tableBus({
      PreToolUse: () => ({}),
      UserPromptSubmit: () => ({ blocked: true, blockReason: "would block" }),
      Stop: () => ({}),
      SubagentStop: () => (++stops === 1 ? { blocked: true, blockReason: "check the tests too" } : {}),
    });
    const { deps, provider } = parentDeps({
      cwd: dir,
      over: { hooks: bus },
      script: [
        { content: [{ type: "tool_use", name: "Read", input: { file_path: join(dir, "a.txt") } }] },
        { content: [{ type: "text", text: "first answer" }] },
        { content: [{ type: "text", text: "second answer" }] },
      ],
    });
    const { transcript } = sidechain("/side/agent-a1.jsonl");
    const run = await runSubagent(deps, {
      agentType: "Verify",
      agentId: "a1",
      prompt: "go",
      system: [{ type: "text", text: "S" }],
      tools: createToolRegistry([readTool]),
      model: "m",
      transcript,
      signal: new AbortController().signal,
    });
    expect(run.text).toBe("second answer");
    expect(fired.map((f) => f.event)).toEqual(["PreToolUse", "SubagentStop", "SubagentStop"]);
    const pre = fired[0]!.payload;
    expect(Object.keys(pre)).toEqual([
      "session_id", "transcript_path", "cwd", "permission_mode", "agent_id", "agent_type", "hook_event_name", "tool_name", "tool_input", "tool_use_id",
    ]);
    expect(pre).toMatchObject({ agent_id: "a1", agent_type: "Verify", hook_event_name: "PreToolUse", transcript_path: "/parent.jsonl" });
    const [s1, s2] = [fired[1]!, fired[2]!];
    expect(s1.matchValue).toBe("Verify");
    expect(s1.payload).toMatchObject({
      hook_event_name: "SubagentStop",
      stop_hook_active: false,
      agent_id: "a1",
      agent_type: "Verify",
      agent_transcript_path: "/side/agent-a1.jsonl",
      last_assistant_message: "first answer",
    });
    expect(s2.payload.stop_hook_active).toBe(true);
    expect(JSON.stringify(provider.requests[2]!.messages.at(-1))).toContain("check the tests too");
  });

  test("the parent's permission rules apply inside (a deny rule); an override replaces them (contracts §3.2)", async () => {
    const dir = tempDir();
    const target = join(dir, "new.txt");
    const script = () => [
      { content: [{ type: "tool_use" as const, name: "Write", input: { file_path: target, content: "x" } }] },
      { content: [{ type: "text" as const, text: "done" }] },
    ];
    const permissions = { deny: ["Write(*.txt)"] };
    const rules = createPermissionEvaluator({
      settings: { merged: { permissions }, sources: [{ level: "project", path: join(dir, ".claude/settings.json"), ruleRoot: dir, settings: { permissions } }] },
      mode: "bypassPermissions",
      cwd: dir,
      env: { HOME: tempDir() },
    });
    const opts = (t: ReturnType<typeof sidechain>) => ({
      agentType: "general-purpose",
      agentId: "a1",
      prompt: "write",
      system: [{ type: "text" as const, text: "S" }],
      tools: createToolRegistry([writeTool]),
      model: "m",
      transcript: t.transcript,
      signal: new AbortController().signal,
    });
    const denied = parentDeps({ cwd: dir, script: script(), over: { permissions: rules } });
    const r1 = await runSubagent(denied.deps, opts(sidechain()));
    expect(r1.result.permissionDenials).toHaveLength(1);
    expect(JSON.stringify(denied.provider.requests[1]!.messages.at(-1))).toContain("denied");
    expect(await Bun.file(target).exists()).toBe(false);

    const allowed = parentDeps({ cwd: dir, script: script(), over: { permissions: rules } });
    const r2 = await runSubagent(allowed.deps, { ...opts(sidechain()), permissions: modeOnlyEvaluator("bypassPermissions") });
    expect(r2.result.permissionDenials).toHaveLength(0);
    expect(await Bun.file(target).text()).toBe("x");
  });

  test("maxTurns caps the subagent's iterations; SubagentStop still fires once", async () => {
    const dir = tempDir();
    writeTree(dir, { "a.txt": "a\n" });
    const loop = { content: [{ type: "tool_use" as const, name: "Read", input: { file_path: join(dir, "a.txt") } }] };
    const { bus, fired } = tableBus({ SubagentStop: () => ({ blocked: true, blockReason: "ignored: the run is over" }) });
    const { deps, provider } = parentDeps({ cwd: dir, script: [loop, loop, loop, loop], over: { hooks: bus } });
    const run = await runSubagent(deps, {
      agentType: "x",
      agentId: "a1",
      prompt: "p",
      system: [],
      tools: createToolRegistry([readTool]),
      model: "m",
      maxTurns: 2,
      transcript: sidechain().transcript,
      signal: new AbortController().signal,
    });
    expect(run.result.terminalReason).toBe("max_turns");
    expect(provider.requests).toHaveLength(2);
    // SubagentStop still fires once, so it pairs with SubagentStart.
    expect(fired.map((f) => f.event)).toEqual(["SubagentStop"]);
  });

  test("a fork starts from the given history; onEvent sees every event; stream deltas are not kept", async () => {
    const { deps, provider } = parentDeps({ script: [{ content: [{ type: "text", text: "summary" }] }] });
    const seen: string[] = [];
    const run = await runSubagent(deps, {
      agentType: "memory",
      agentId: "a1",
      prompt: "summarise",
      system: [{ type: "text", text: "S" }],
      tools: createToolRegistry([]),
      model: "m",
      history: [
        { role: "user", content: "earlier question" },
        { role: "assistant", content: [{ type: "text", text: "earlier answer" }] },
      ],
      transcript: sidechain().transcript,
      signal: new AbortController().signal,
      onEvent: (ev) => {
        seen.push(ev.type);
        throw new Error("a throwing display must not end the run");
      },
    });
    expect(run.text).toBe("summary");
    expect(provider.requests[0]!.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(run.messages).toHaveLength(4);
    expect(seen).toContain("stream_event");
    expect(run.events.some((e) => e.type === "stream_event")).toBe(false);
    expect(run.events.map((e) => e.type)).toEqual(["user", "assistant"]);
  });
});
