// The Agent tool inside a real parent turn (contracts §7.2, §1.4, §5.1; seed 002 agent store).
import { toolNames } from "../../src/tool/declarations.ts";
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { builtinAgents } from "../../src/agent/builtin.ts";
import type { AgentDefinition } from "../../src/agent/types.ts";
import type { HookOutcome } from "../../src/hook/types.ts";
import { createPermissionEvaluator } from "../../src/permission/index.ts";
import { runTurn } from "../../src/loop/run-turn.ts";
import type { ModelRequest } from "../../src/provider/types.ts";
import { createAgentTool } from "../../src/tool/builtin/agent.ts";
import { readTool, writeTool } from "../../src/tool/builtin/file-tools.ts";
import { defineTool } from "../../src/tool/define-tool.ts";
import type { Tool } from "../../src/tool/types.ts";
import { drain, parentDeps, systemText, tableBus } from "../helpers/loop-deps.ts";
import type { ScriptedOutcome } from "../helpers/scripted-provider.ts";
import { tempDir, writeTree } from "../helpers/tmp.ts";
import { barrier, waitFor } from "../helpers/wait-for.ts";

const isSub = (req: ModelRequest, type?: string) => systemText(req).includes(`subagent of type "${type ?? ""}`);
const bashTool = defineTool({ name: "Bash", description: "b", input: z.object({ command: z.string() }), readOnly: () => false, execute: () => ({ content: "ran" }) });

/** A parent turn with Read/Write/Bash and the Agent tool; `route` answers every model request. */
function setup(opts: {
  route: (req: ModelRequest, n: number) => ScriptedOutcome | Promise<ScriptedOutcome>;
  hooks?: Parameters<typeof tableBus>[0];
  agents?: AgentDefinition[];
  persist?: boolean;
  env?: Record<string, string>;
}) {
  const frames: Array<{ type: string; toolUseId: string; agentId: string; agentType: string }> = [];
  const cwd = tempDir();
  const sessionDir = join(tempDir(), "projects", "-x", "s1");
  const { bus, fired } = tableBus(opts.hooks ?? {});
  let n = 0;
  const route = (req: ModelRequest) => opts.route(req, n++);
  const p = parentDeps({ cwd, script: Array.from({ length: 40 }, () => route), over: { hooks: bus } });
  const warnings: string[] = [];
  const tool: Tool = createAgentTool({
    parent: () => p.deps,
    agents: opts.agents ?? builtinAgents(),
    mainModel: () => "claude-sonnet-5-5",
    env: opts.env ?? {},
    sessionDir: opts.persist === false ? null : sessionDir,
    sessionId: "s1",
    version: "t",
    warn: (m) => void warnings.push(m),
    onEvent: (ev, from) => void frames.push({ type: ev.type, ...from }),
  });
  for (const t of [readTool, writeTool, bashTool, tool]) p.deps.tools.register(t);
  return { ...p, cwd, sessionDir, fired, warnings, tool, frames };
}

/** An evaluator with these rules in the project's .claude/settings.json, default mode. */
const projectRules = (cwd: string, permissions: { deny?: string[] }) =>
  createPermissionEvaluator({
    settings: { merged: { permissions }, sources: [{ level: "project", path: join(cwd, ".claude/settings.json"), ruleRoot: cwd, settings: { permissions } }] },
    mode: "default",
    cwd,
    env: { HOME: tempDir() },
  });

const agentCall = (input: Record<string, unknown>, id?: string) => ({ type: "tool_use" as const, name: "Agent", input, ...(id ? { id } : {}) });
const text = (t: string): ScriptedOutcome => ({ content: [{ type: "text", text: t }] });

describe("Agent tool", () => {
  test("Explore reads a file; its answer is the parent's tool_result; tool_response shape; sidechain and store files", async () => {
    let postPayload: any;
    const s = setup({
      hooks: { PostToolUse: (p) => ((postPayload = p), {}) },
      route: (req) => {
        if (isSub(req, "Explore")) {
          if (req.messages.length === 1) return { content: [{ type: "tool_use", name: "Read", input: { file_path: join(s.cwd, "notes.txt") } }] };
          return text("The notes say: remember the milk.");
        }
        if (req.messages.length === 1) return { content: [agentCall({ description: "Find notes", prompt: "What do the notes say?", subagent_type: "Explore" }, "toolu_A")] };
        return text("Milk.");
      },
    });
    writeTree(s.cwd, { "notes.txt": "remember the milk\n" });
    const { result } = await drain(runTurn(s.deps, { messages: [] }, "what's in the notes?", new AbortController().signal));
    expect(result.result).toBe("Milk.");

    const sub = s.provider.requests.filter((r) => isSub(r, "Explore"));
    expect(sub).toHaveLength(2);
    expect(sub[0]!.tools.map((t) => t.name)).toEqual(["Read"]);
    expect(sub[0]!.messages).toEqual([{ role: "user", content: "What do the notes say?" }]);
    expect(systemText(sub[0]!)).toContain("code explorer");
    const parentReqs = s.provider.requests.filter((r) => !isSub(r));
    expect(parentReqs[0]!.tools.map((t) => t.name)).toContain("Agent");
    const tr = (parentReqs[1]!.messages.at(-1)!.content as any[])[0];
    expect(tr).toMatchObject({ type: "tool_result", tool_use_id: "toolu_A", is_error: false });
    expect(tr.content).toEqual([{ type: "text", text: "The notes say: remember the milk." }]);

    // PostToolUse tool_response (contracts §7.2).
    const resp = postPayload.tool_response;
    expect(postPayload.tool_name).toBe("Agent");
    expect(Object.keys(resp).sort()).toEqual(
      ["agentId", "agentType", "content", "prompt", "resolvedModel", "status", "totalDurationMs", "totalTokens", "totalToolUseCount", "usage"].sort(),
    );
    expect(resp).toMatchObject({ status: "completed", prompt: "What do the notes say?", agentType: "Explore", resolvedModel: "claude-sonnet-5-5", totalToolUseCount: 1 });
    expect(resp.agentId).toMatch(/^a[0-9a-f]{16}$/);
    expect(resp.totalTokens).toBe(resp.usage.input_tokens + resp.usage.output_tokens + resp.usage.cache_creation_input_tokens + resp.usage.cache_read_input_tokens);
    expect(resp.totalTokens).toBeGreaterThan(0);

    // Sidechain transcript + meta (contracts §5.1).
    const id = resp.agentId;
    const side = readFileSync(join(s.sessionDir, "subagents", `agent-${id}.jsonl`), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(side.map((l) => l.type)).toEqual(["user", "assistant", "user", "assistant"]);
    for (const l of side) expect(l).toMatchObject({ isSidechain: true, agentId: id, sessionId: "s1" });
    expect(side[0].parentUuid).toBeNull();
    const meta = JSON.parse(readFileSync(join(s.sessionDir, "subagents", `agent-${id}.meta.json`), "utf8"));
    expect(meta).toMatchObject({ agentType: "Explore", description: "Find notes", toolUseId: "toolu_A", spawnDepth: 1, model: "claude-sonnet-5-5", finished: true, status: "completed" });

    // Agent store (seed 002): {id}.json + {id}.md.
    const manifest = JSON.parse(readFileSync(join(s.sessionDir, "agents", `${id}.json`), "utf8"));
    expect(manifest).toMatchObject({ agentId: id, subagentType: "Explore", status: "completed", description: "Find notes", totalToolUseCount: 1, error: null });
    expect(manifest.transcriptFile).toBe(join(s.sessionDir, "subagents", `agent-${id}.jsonl`));
    const md = readFileSync(join(s.sessionDir, "agents", `${id}.md`), "utf8");
    expect(md).toContain("What do the notes say?");
    expect(md).toContain("The notes say: remember the milk.");
    // Live subagent frames for stream-json, tagged with the spawning tool_use id (contracts §4.4).
    const kinds = s.frames.filter((f) => f.type === "assistant" || f.type === "user");
    expect(kinds.map((f) => f.type)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(kinds.every((f) => f.toolUseId === "toolu_A" && f.agentId === id && f.agentType === "Explore")).toBe(true);
    // The parent's own transcript is untouched by sidechain lines.
    expect((s.lines as any[]).every((l) => l.isSidechain === false)).toBe(true);
  });

  test("two Agent calls in one message run concurrently", async () => {
    // Each subagent's model call waits at a barrier for the other: one after the other, the first would wait alone.
    const both = barrier(2, 2000);
    const s = setup({
      route: async (req) => {
        for (const t of ["Explore", "Review"])
          if (isSub(req, t)) {
            await both.arrive(t);
            return { content: [{ type: "text", text: `${t} done` }] };
          }
        if (req.messages.length === 1)
          return {
            content: [
              agentCall({ description: "a", prompt: "explore it", subagent_type: "Explore" }),
              agentCall({ description: "b", prompt: "review it", subagent_type: "Review" }),
            ],
          };
        return text("both done");
      },
    });
    const { result } = await drain(runTurn(s.deps, { messages: [] }, "go", new AbortController().signal));
    expect(result.result).toBe("both done");
    expect(both.arrived.sort()).toEqual(["Explore", "Review"]);
    const results = (s.provider.requests.at(-1)!.messages.at(-1)!.content as any[]).map((b) => b.content[0].text);
    expect(results).toEqual(["Explore done", "Review done"]);
  });

  test("abort reaches the subagent: the run ends quickly, the result says interrupted, the store says so; Start/Stop stay paired", async () => {
    const ctrl = new AbortController();
    const s = setup({
      hooks: { SubagentStart: () => ({}), SubagentStop: () => ({}) },
      route: (req) => {
        if (isSub(req)) return { fault: "hang" };
        return { content: [agentCall({ description: "slow", prompt: "take forever", subagent_type: "Verify" })] };
      },
    });
    const convo = { messages: [] as any[] };
    const run = drain(runTurn(s.deps, convo, "go", ctrl.signal));
    // Abort once the subagent's request is in flight (it hangs until aborted, so the run can only end through the abort).
    await waitFor(() => s.provider.requests.some((r) => isSub(r)), "the subagent's model request");
    ctrl.abort();
    const { result } = await run;
    expect(result.terminalReason).toBe("aborted_tools");
    const tr = (convo.messages.at(-1)!.content as any[])[0];
    expect(tr.is_error).toBe(true);
    expect(String(tr.content)).toContain("interrupted");
    const [json] = readdirSync(join(s.sessionDir, "agents")).filter((f) => f.endsWith(".json"));
    expect(JSON.parse(readFileSync(join(s.sessionDir, "agents", json!), "utf8")).status).toBe("interrupted");
    expect(s.fired.map((f) => f.event)).toEqual(["SubagentStart", "SubagentStop"]);
    expect(s.fired[1]!.payload).toMatchObject({ stop_hook_active: false, agent_type: "Verify" });
  });

  test("SubagentStart and SubagentStop fire with matcher = agent type; Start context reaches the subagent; Stop block continues it", async () => {
    let stopCount = 0;
    const hooks: Record<string, (p: any) => Partial<HookOutcome>> = {
      SubagentStart: () => ({ additionalContext: ["use the staging db"] }),
      SubagentStop: () => (++stopCount === 1 ? { blocked: true, blockReason: "also list the files" } : {}),
      Stop: () => ({}),
    };
    const s = setup({
      hooks,
      route: (req) => {
        if (isSub(req, "Review")) return text(req.messages.length === 1 ? "review v1" : "review v2");
        if (req.messages.length === 1) return { content: [agentCall({ description: "rev", prompt: "review", subagent_type: "Review" })] };
        return text("ok");
      },
    });
    await drain(runTurn(s.deps, { messages: [] }, "go", new AbortController().signal));
    expect(s.fired.map((f) => f.event)).toEqual(["SubagentStart", "SubagentStop", "SubagentStop", "Stop"]);
    const [start, stop1, stop2] = s.fired;
    expect(start!.matchValue).toBe("Review");
    expect(start!.payload).toMatchObject({ hook_event_name: "SubagentStart", agent_type: "Review" });
    expect(start!.payload.agent_id).toMatch(/^a[0-9a-f]{16}$/);
    expect(stop1!.matchValue).toBe("Review");
    expect(stop1!.payload).toMatchObject({
      agent_id: start!.payload.agent_id,
      agent_type: "Review",
      stop_hook_active: false,
      last_assistant_message: "review v1",
      agent_transcript_path: join(s.sessionDir, "subagents", `agent-${start!.payload.agent_id}.jsonl`),
    });
    expect(stop2!.payload.stop_hook_active).toBe(true);
    const sub = s.provider.requests.filter((r) => isSub(r, "Review"));
    expect(JSON.stringify(sub[0]!.messages[0])).toContain("use the staging db");
    expect(JSON.stringify(sub[1]!.messages.at(-1))).toContain("also list the files");
    const tr = (s.provider.requests.at(-1)!.messages.at(-1)!.content as any[])[0];
    expect(tr.content[0].text).toBe("review v2");
  });

  test("unknown type, model errors and custom agents", async () => {
    const custom: AgentDefinition = { name: "db-expert", description: "Knows the schema", systemPrompt: "You know databases.", tools: ["Read", "Nope"], model: "haiku", maxTurns: 3, source: "project", file: "/p/.claude/agents/db.md" };
    const s = setup({
      agents: [...builtinAgents(), custom],
      route: (req) => {
        if (systemText(req).includes("You know databases.")) return text(`model ${req.model}`);
        if (isSub(req, "general-purpose")) return { fault: 400, message: "bad request thing" };
        if (req.messages.length === 1)
          return {
            content: [
              agentCall({ description: "x", prompt: "p", subagent_type: "Nonexistent" }),
              agentCall({ description: "x", prompt: "p" }),
              agentCall({ description: "x", prompt: "p", subagent_type: "db-expert" }),
            ],
          };
        return text("end");
      },
    });
    await drain(runTurn(s.deps, { messages: [] }, "go", new AbortController().signal));
    const trs = s.provider.requests.at(-1)!.messages.at(-1)!.content as any[];
    expect(trs[0]).toMatchObject({ is_error: true });
    expect(trs[0].content).toContain("Agent type 'Nonexistent' not found. Use one of: general-purpose, Explore, Plan, Verify, Review, db-expert");
    expect(trs[1].is_error).toBe(true);
    expect(trs[1].content).toContain("bad request thing");
    expect(trs[2].is_error).toBe(false);
    expect(trs[2].content[0].text).toBe("model claude-haiku-5-5");
    const dbReq = s.provider.requests.find((r) => systemText(r).includes("You know databases."))!;
    expect(dbReq.tools.map((t) => t.name)).toEqual(["Read"]);
    expect(s.warnings.join("\n")).toContain("/p/.claude/agents/db.md: unknown tool name(s) Nope");
  });

  test("CLAUDE_CODE_SUBAGENT_MODEL picks the model; --no-session-persistence writes nothing", async () => {
    const s = setup({
      persist: false,
      env: { CLAUDE_CODE_SUBAGENT_MODEL: "opus" },
      route: (req) => (isSub(req) ? text(req.model) : req.messages.length === 1 ? { content: [agentCall({ description: "x", prompt: "p", subagent_type: "Explore" })] } : text("end")),
    });
    await drain(runTurn(s.deps, { messages: [] }, "go", new AbortController().signal));
    const tr = (s.provider.requests.at(-1)!.messages.at(-1)!.content as any[])[0];
    expect(tr.content[0].text).toBe("claude-opus-5-5");
    expect(existsSync(s.sessionDir)).toBe(false);
  });

  test("the description lists every agent type with its tools", () => {
    const s = setup({ route: () => text("x") });
    expect(toolNames(s.tool.name)).toEqual(["Agent", "Task"]);
    for (const a of builtinAgents()) expect(s.tool.description).toContain(`- ${a.name}: `);
    expect(s.tool.description).toContain("(Tools: read-only tools and Bash)");
  });

  test("an Agent(<type>) deny rule stops that type, an omitted type counts as general-purpose (contracts §3.1)", async () => {
    const s = setup({
      route: (req) =>
        isSub(req)
          ? text("sub ran")
          : req.messages.length === 1
            ? { content: [agentCall({ description: "x", prompt: "p", subagent_type: "Explore" }), agentCall({ description: "y", prompt: "p" }), agentCall({ description: "z", prompt: "p", subagent_type: "Review" })] }
            : text("end"),
    });
    s.deps.permissions = projectRules(s.cwd, { deny: ["Agent(Explore)", "Task(general-purpose)"] });
    const { result } = await drain(runTurn(s.deps, { messages: [] }, "go", new AbortController().signal));
    expect(result.permissionDenials.map((d) => d.tool_input.subagent_type)).toEqual(["Explore", "general-purpose"]);
    const trs = s.provider.requests.at(-1)!.messages.at(-1)!.content as any[];
    expect(trs.map((t) => t.is_error)).toEqual([true, true, false]);
    expect(s.provider.requests.filter((r) => isSub(r))).toHaveLength(1);
  });

  test("Agent(<type>) deny holds for any spelling of the type the tool would run (contracts §3.1)", async () => {
    // The tool finds agent types case-insensitively, so `explore` starts Explore: the deny must see that too.
    const s = setup({
      route: (req) =>
        isSub(req) ? text("sub ran") : req.messages.length === 1 ? { content: [agentCall({ description: "x", prompt: "p", subagent_type: "explore" })] } : text("end"),
    });
    s.deps.permissions = projectRules(s.cwd, { deny: ["Agent(Explore)"] });
    const { result } = await drain(runTurn(s.deps, { messages: [] }, "go", new AbortController().signal));
    expect(result.permissionDenials).toHaveLength(1);
    expect(s.provider.requests.filter((r) => isSub(r))).toHaveLength(0);
  });
});
