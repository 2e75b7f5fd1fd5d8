// The real Agent SDK 0.3.332 against the compiled binary (issue 15 point 4): in-process MCP servers
// (createSdkMcpServer) served over the control channel (contracts §4.6 mcp_message), and `mcpServers` entries the
// SDK passes as --mcp-config, both listed in system/init as Claude Code lists them.
import { afterEach, beforeAll, beforeEach, expect, setDefaultTimeout, test } from "bun:test";
import { createSdkMcpServer, tool } from "@anthropic-ai/claude-agent-sdk";
import { z } from "zod";
import { startFakeAnthropic, toolResultsOf, type FakeAnthropic } from "../helpers/fake-anthropic.ts";
import { yokeBin } from "../helpers/binary.ts";
import { promptQueue, sdkOptions, sdkQuery, sdkRun } from "../helpers/agent-sdk.ts";
import { everything, toolNames } from "./mcp-helpers.ts";

// Real MCP servers (node packages) start in ~1 s alone and several seconds on a loaded 2-core machine.
setDefaultTimeout(30_000);

let fake: FakeAnthropic;
beforeAll(() => void yokeBin());
beforeEach(async () => {
  fake = await startFakeAnthropic();
});
afterEach(() => fake.stop());

const calc = () => {
  const calls: Array<{ a: number; b: number }> = [];
  const server = createSdkMcpServer({
    name: "calc",
    version: "1.0.0",
    tools: [
      tool("add", "Adds two numbers", { a: z.number(), b: z.number() }, async (args) => {
        calls.push(args);
        return { content: [{ type: "text", text: String(args.a + args.b) }] };
      }),
      tool("explode", "Always fails", {}, async () => {
        throw new Error("calculator on fire");
      }),
    ],
  });
  return { server, calls };
};

test("an in-process SDK MCP server: its tools reach the model, calls run in the host, system/init lists it as source sdk", async () => {
  const c = calc();
  fake.push({ content: [{ type: "tool_use", name: "mcp__calc__add", input: { a: 2, b: 3 } }] }, { content: [{ type: "text", text: "it is 5" }] });
  const r = await sdkRun(fake, "add", { mcpServers: { calc: c.server }, allowedTools: ["mcp__calc__add"] });
  expect(r.error).toBeNull();
  expect(c.calls).toEqual([{ a: 2, b: 3 }]);
  expect(toolNames(fake.requests[0]!)).toContain("mcp__calc__add");
  expect(toolResultsOf(fake.requests[1]!)[0]).toMatchObject({ text: "5", is_error: false });
  const init = r.of("system").find((m: any) => m.subtype === "init") as any;
  expect(init.mcp_servers).toContainEqual({ name: "calc", status: "connected", source: "sdk" });
  expect(init.tools).toContain("mcp__calc__add");
  expect(r.result).toMatchObject({ result: "it is 5" });
});

test("getContextUsage counts the SDK server's tools under mcp_tools; mcpServerStatus lists it", async () => {
  const c = calc();
  fake.push({ content: [{ type: "text", text: "hi" }] });
  const input = promptQueue();
  const q = sdkQuery({ prompt: input.iterable, options: sdkOptions(fake, { mcpServers: { calc: c.server } }) });
  input.push("hi");
  // Read up to the result without ending the iteration (a `break` would close the query).
  const it = q[Symbol.asyncIterator]();
  for (let n = await it.next(); !n.done && n.value.type !== "result"; n = await it.next());
  const usage = await q.getContextUsage();
  expect(usage.mcpTools.map((t) => [t.name, t.serverName])).toEqual([["mcp__calc__add", "calc"], ["mcp__calc__explode", "calc"]]);
  expect(usage.categories.find((k) => k.id === "mcp_tools")!.tokens).toBeGreaterThan(0);
  const status = await q.mcpServerStatus();
  expect(status).toContainEqual(expect.objectContaining({ name: "calc", status: "connected", scope: "sdk" }));
  input.end();
  while (!(await it.next()).done);
});

test("a failing SDK tool is an error result the model sees; the run goes on", async () => {
  const c = calc();
  fake.push({ content: [{ type: "tool_use", name: "mcp__calc__explode", input: {} }] }, { content: [{ type: "text", text: "it broke" }] });
  const r = await sdkRun(fake, "explode", { mcpServers: { calc: c.server }, allowedTools: ["mcp__calc__explode"] });
  expect(r.error).toBeNull();
  const res = toolResultsOf(fake.requests[1]!)[0]!;
  expect(res.is_error).toBe(true);
  expect(res.text).toContain("calculator on fire");
});

test("SDK and stdio servers side by side: mcpServers with a command goes through --mcp-config", async () => {
  const c = calc();
  fake.push({ content: [{ type: "tool_use", name: "mcp__everything__echo", input: { message: "ECHO-ME" } }] }, { content: [{ type: "text", text: "done" }] });
  const r = await sdkRun(fake, "echo", {
    mcpServers: { calc: c.server, everything: everything() },
    allowedTools: ["mcp__everything__echo"],
  });
  expect(r.error).toBeNull();
  const init = r.of("system").find((m: any) => m.subtype === "init") as any;
  expect(init.mcp_servers).toContainEqual({ name: "calc", status: "connected", source: "sdk" });
  expect(init.mcp_servers).toContainEqual(expect.objectContaining({ name: "everything", status: "connected" }));
  expect(toolResultsOf(fake.requests[1]!)[0]!.text).toContain("ECHO-ME");
});
