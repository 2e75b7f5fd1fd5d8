// End-to-end: the compiled binary runs Agent(Explore) → Read against the fake API (issue 8).
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fakeApiEnv, toolResultsOf, type LoggedRequest } from "../helpers/fake-anthropic.ts";
import { isolatedEnv, runYoke, TRUST_WORKSPACE } from "../helpers/binary.ts";
import { tempDir, writeTree } from "../helpers/tmp.ts";
import { useFakeAnthropic } from "../helpers/e2e.ts";

const fake = useFakeAnthropic();

const systemOf = (req: LoggedRequest): string => {
  const s = req.body?.system;
  return Array.isArray(s) ? s.map((b: any) => b.text).join("\n") : String(s ?? "");
};
const isExplore = (req: LoggedRequest) => systemOf(req).includes('subagent of type "Explore"');

test("main agent → Agent(Explore) → Read → answer; the parent's next request carries the subagent's report (contracts §7.2, §5.1)", async () => {
  const cwd = tempDir();
  writeTree(cwd, { "README.md": "Project codename: BLUEBIRD\n", "CLAUDE.md": "Rule: cite file paths in every report.\n" });
  const route = (req: LoggedRequest) => {
    const msgs = req.body.messages as any[];
    if (isExplore(req)) {
      if (msgs.length === 1) return { content: [{ type: "tool_use" as const, name: "Read", input: { file_path: join(cwd, "README.md") } }] };
      const read = toolResultsOf(req)[0]?.text ?? "";
      return { content: [{ type: "text" as const, text: `Explore report: ${read.includes("BLUEBIRD") ? "codename is BLUEBIRD" : "not found"}` }] };
    }
    if (msgs.length === 1)
      return { content: [{ type: "tool_use" as const, name: "Agent", input: { description: "Find codename", prompt: "Read README.md and tell me the codename.", subagent_type: "Explore" } }] };
    return { content: [{ type: "text" as const, text: "The codename is BLUEBIRD." }] };
  };
  fake.push(route, route, route, route);
  const before = fake.requests.length;
  const env = isolatedEnv({ ...fakeApiEnv(fake), YOKE_RETRY_BASE_MS: "5" });
  const r = await runYoke(["-p", "what is the codename?", "--output-format", "json"], { cwd, env });
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  expect(JSON.parse(r.stdout)).toMatchObject({ subtype: "success", is_error: false, result: "The codename is BLUEBIRD." });

  const reqs = fake.requests.slice(before);
  expect(reqs).toHaveLength(4);
  const [p1, s1, s2, p2] = reqs;
  expect(isExplore(p1!)).toBe(false);
  expect((p1!.body.tools as any[]).map((t) => t.name)).toContain("Agent");
  expect(isExplore(s1!) && isExplore(s2!)).toBe(true);
  const subTools = (s1!.body.tools as any[]).map((t) => t.name);
  expect(subTools).toContain("Read");
  for (const t of ["Agent", "Write", "Edit", "Bash", "TodoWrite", "AskUserQuestion"]) expect(subTools).not.toContain(t);
  // A fresh conversation: only the delegated prompt (the provider may add cache_control to it).
  expect(s1!.body.messages).toHaveLength(1);
  expect(JSON.stringify(s1!.body.messages[0])).toContain("Read README.md and tell me the codename.");
  // Instruction files reach subagents too (user-demand §4).
  expect(JSON.stringify(s1!.body.messages[0])).toContain("Rule: cite file paths in every report.");
  const tr = toolResultsOf(p2!);
  expect(tr).toHaveLength(1);
  expect(tr[0]).toMatchObject({ is_error: false, text: "Explore report: codename is BLUEBIRD" });

  // Sidechain transcript and agent store under YOKE_CONFIG_DIR (contracts §5.1, seed 002).
  const projects = join(env.YOKE_CONFIG_DIR!, "projects");
  const [proj] = readdirSync(projects);
  const sessionFile = readdirSync(join(projects, proj!)).find((f) => f.endsWith(".jsonl"))!;
  const sessionDir = join(projects, proj!, sessionFile.replace(/\.jsonl$/, ""));
  const [side] = readdirSync(join(sessionDir, "subagents")).filter((f) => f.endsWith(".jsonl"));
  const lines = readFileSync(join(sessionDir, "subagents", side!), "utf8").trim().split("\n").map((l) => JSON.parse(l));
  expect(lines.every((l) => l.isSidechain === true && side === `agent-${l.agentId}.jsonl`)).toBe(true);
  expect(readdirSync(join(sessionDir, "agents")).sort()).toEqual([side!.replace(/^agent-|\.jsonl$/g, "") + ".json", side!.replace(/^agent-|\.jsonl$/g, "") + ".md"].sort());
  const main = readFileSync(join(projects, proj!, sessionFile), "utf8").trim().split("\n").map((l) => JSON.parse(l));
  const toolLine = main.find((l) => l.type === "user" && l.toolUseResult?.agentType === "Explore");
  expect(toolLine.toolUseResult).toMatchObject({ status: "completed", totalToolUseCount: 1 });
});

test("a project agent file picks model and tools; a broken one is skipped with a warning naming the file (contracts §6.4)", async () => {
  const cwd = tempDir();
  writeTree(cwd, {
    ".claude/agents/counter.md": "---\nname: counter\ndescription: Counts things\ntools: Read\nmodel: haiku\n---\nYou are COUNTER-BOT. Count precisely.\n",
    ".claude/agents/broken.md": "---\ndescription: has no name\n---\nbody\n",
  });
  const isCounter = (req: LoggedRequest) => systemOf(req).includes("You are COUNTER-BOT.");
  const route = (req: LoggedRequest) => {
    if (isCounter(req)) return { content: [{ type: "text" as const, text: "3 things" }] };
    if ((req.body.messages as any[]).length === 1)
      return { content: [{ type: "tool_use" as const, name: "Task", input: { description: "Count", prompt: "count the things", subagent_type: "counter" } }] };
    return { content: [{ type: "text" as const, text: "done" }] };
  };
  fake.push(route, route, route);
  const before = fake.requests.length;
  const env = isolatedEnv({ ...fakeApiEnv(fake), YOKE_RETRY_BASE_MS: "5" });
  const r = await runYoke(["-p", "count", "--output-format", "json"], { cwd, env });
  expect(r.code).toBe(0);
  expect(r.stderr).toContain(join(cwd, ".claude/agents/broken.md"));
  expect(r.stderr).toContain('field "name" is required');
  const reqs = fake.requests.slice(before);
  const sub = reqs.find(isCounter)!;
  expect(sub.body.model).toBe("claude-haiku-5-5");
  expect((sub.body.tools as any[]).map((t) => t.name)).toEqual(["Read"]);
  expect(String((reqs[0]!.body.tools as any[]).find((t) => t.name === "Agent").description)).toContain("- counter: Counts things (Tools: Read)");
  expect(toolResultsOf(reqs.at(-1)!)[0]).toMatchObject({ is_error: false, text: "3 things" });
});

test("stream-json shows subagent frames with parent_tool_use_id; init lists the agent types (contracts §4.4)", async () => {
  const cwd = tempDir();
  writeTree(cwd, { "a.txt": "alpha\n" });
  const route = (req: LoggedRequest) => {
    const msgs = req.body.messages as any[];
    if (isExplore(req)) {
      if (msgs.length === 1) return { content: [{ type: "tool_use" as const, name: "Read", input: { file_path: join(cwd, "a.txt") } }] };
      return { content: [{ type: "text" as const, text: "it says alpha" }] };
    }
    if (msgs.length === 1) return { content: [{ type: "tool_use" as const, id: "toolu_spawn1", name: "Task", input: { description: "Read a", prompt: "Read a.txt", subagent_type: "Explore" } }] };
    return { content: [{ type: "text" as const, text: "alpha" }] };
  };
  fake.push(route, route, route, route);
  const r = await runYoke(["-p", "go", "--output-format", "stream-json", "--verbose"], { cwd, env: isolatedEnv({ ...fakeApiEnv(fake) }) });
  expect(r.code).toBe(0);
  const lines = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
  expect(lines[0].tools).toContain("Task"); // legacy name in init (contracts §4.4)
  expect(lines[0].agents).toEqual(expect.arrayContaining(["general-purpose", "Explore"]));
  const sub = lines.filter((l) => l.parent_tool_use_id === "toolu_spawn1");
  expect(sub.length).toBeGreaterThanOrEqual(3);
  expect(sub.every((l) => l.subagent_type === "Explore" && typeof l.agent_id === "string")).toBe(true);
  const parentResultIdx = lines.findIndex((l) => l.type === "user" && l.parent_tool_use_id === null && JSON.stringify(l.message).includes("toolu_spawn1"));
  const lastSubIdx = lines.lastIndexOf(sub.at(-1));
  expect(lastSubIdx).toBeLessThan(parentResultIdx);
});

test("subagents obey the parent's hooks and deny rules (issue 8, done means)", async () => {
  const cwd = tempDir();
  // One file per hook run: the two Reads run in parallel, and appends to one log would interleave.
  const hookDir = join(cwd, "pre");
  writeTree(cwd, {
    "secret.txt": "TOP-SECRET\n",
    "open.txt": "fine\n",
    "pre/": "",
    "hook.sh": { content: `#!/bin/sh\ncat > "$(mktemp ${hookDir}/run.XXXXXX)"\n`, mode: 0o755 },
    ".claude/settings.json": JSON.stringify({
      permissions: { deny: ["Read(secret.txt)"] },
      hooks: { PreToolUse: [{ matcher: "Read", hooks: [{ type: "command", command: join(cwd, "hook.sh") }] }] },
    }),
  });
  const route = (req: LoggedRequest) => {
    const msgs = req.body.messages as any[];
    if (isExplore(req)) {
      if (msgs.length === 1)
        return {
          content: [
            { type: "tool_use" as const, name: "Read", input: { file_path: join(cwd, "secret.txt") } },
            { type: "tool_use" as const, name: "Read", input: { file_path: join(cwd, "open.txt") } },
          ],
        };
      const tr = toolResultsOf(req);
      return { content: [{ type: "text" as const, text: `secret:${tr[0]!.is_error ? "denied" : tr[0]!.text} open:${tr[1]!.text.includes("fine") ? "read" : "?"}` }] };
    }
    if (msgs.length === 1) return { content: [{ type: "tool_use" as const, name: "Agent", input: { description: "peek", prompt: "read both files", subagent_type: "Explore" } }] };
    return { content: [{ type: "text" as const, text: "done" }] };
  };
  fake.push(route, route, route, route);
  const before = fake.requests.length;
  const r = await runYoke(["-p", "go", "--output-format", "json"], { cwd, env: isolatedEnv({ ...TRUST_WORKSPACE, ...fakeApiEnv(fake) }) });
  expect(r.code).toBe(0);
  const parentAfter = fake.requests.slice(before).filter((q) => !isExplore(q)).at(-1)!;
  expect(toolResultsOf(parentAfter)[0]!.text).toBe("secret:denied open:read");
  expect(JSON.stringify(fake.requests.slice(before).map((q) => q.body.messages))).not.toContain("TOP-SECRET");
  const payloads = readdirSync(hookDir).map((f) => JSON.parse(readFileSync(join(hookDir, f), "utf8")));
  expect(payloads.length).toBe(2);
  expect(payloads.every((p) => p.agent_type === "Explore" && typeof p.agent_id === "string" && p.hook_event_name === "PreToolUse")).toBe(true);
});

test("--agents defines subagent types for one run; a bad entry is named and skipped; bad JSON is an error (contracts §4.1)", async () => {
  const cwd = tempDir();
  writeTree(cwd, { "x.txt": "xray\n" });
  const agents = JSON.stringify({
    "file-peeker": { description: "Peeks at files", prompt: "You are FILE-PEEKER. Read what you are told.", tools: ["Read"], model: "haiku" },
    broken: { description: "no prompt" },
  });
  const route = (req: LoggedRequest) => {
    const msgs = req.body.messages as any[];
    if (systemOf(req).includes("You are FILE-PEEKER")) {
      if (msgs.length === 1) return { content: [{ type: "tool_use" as const, name: "Read", input: { file_path: join(cwd, "x.txt") } }] };
      return { content: [{ type: "text" as const, text: `peeked: ${toolResultsOf(req)[0]!.text.includes("xray") ? "xray" : "?"}` }] };
    }
    if (msgs.length === 1) return { content: [{ type: "tool_use" as const, name: "Agent", input: { description: "peek", prompt: "read x.txt", subagent_type: "file-peeker" } }] };
    return { content: [{ type: "text" as const, text: "done" }] };
  };
  fake.push(route, route, route, route);
  const before = fake.requests.length;
  const r = await runYoke(["-p", "go", "--output-format", "stream-json", "--verbose", "--agents", agents], { cwd, env: isolatedEnv({ ...fakeApiEnv(fake) }) });
  expect(r.code).toBe(0);
  expect(r.stderr).toContain('--agents: agent "broken": field "prompt"');
  const init = JSON.parse(r.stdout.split("\n")[0]!);
  expect(init.agents).toContain("file-peeker");
  expect(init.agents).not.toContain("broken");
  const sub = fake.requests.slice(before).filter((q) => systemOf(q).includes("You are FILE-PEEKER"));
  expect(sub.length).toBe(2);
  expect(sub[0]!.body.model).toBe("claude-haiku-5-5");
  expect(sub[0]!.body.tools.map((t: any) => t.name)).toEqual(["Read"]);
  const last = fake.requests.slice(before).filter((q) => !systemOf(q).includes("You are FILE-PEEKER")).at(-1)!;
  expect(toolResultsOf(last)[0]!.text).toBe("peeked: xray");
  const bad = await runYoke(["-p", "go", "--agents", "{not json"], { cwd, env: isolatedEnv({ ...fakeApiEnv(fake) }) });
  expect(bad.code).toBe(1);
  expect(bad.stderr).toContain("--agents:1:");
});

test("with --json-schema only the main conversation must answer through StructuredOutput; subagents end as usual", async () => {
  const cwd = tempDir();
  const route = (req: LoggedRequest) => {
    const msgs = req.body.messages as any[];
    if (isExplore(req)) return { content: [{ type: "text" as const, text: "found 3 files" }] };
    if (msgs.length === 1) return { content: [{ type: "tool_use" as const, name: "Agent", input: { description: "count", prompt: "count files", subagent_type: "Explore" } }] };
    if (msgs.length === 3) return { content: [{ type: "tool_use" as const, name: "StructuredOutput", input: { files: 3 } }] };
    return { content: [{ type: "text" as const, text: "done" }] };
  };
  fake.push(route, route, route, route);
  const before = fake.requests.length;
  const schema = JSON.stringify({ type: "object", properties: { files: { type: "number" } }, required: ["files"] });
  const r = await runYoke(["-p", "how many files?", "--output-format", "json", "--json-schema", schema], { cwd, env: isolatedEnv({ ...fakeApiEnv(fake) }) });
  expect(r.code).toBe(0);
  expect(JSON.parse(r.stdout)).toMatchObject({ structured_output: { files: 3 } });
  const explore = fake.requests.slice(before).filter(isExplore);
  expect(explore).toHaveLength(1);
  expect(explore[0]!.body.tools.map((t: any) => t.name)).not.toContain("StructuredOutput");
});
