// Issue 21 point 2: how long the first request waits for MCP servers, and what the model is told about the ones it
// did not wait for (observed in 2.1.332; the end-to-end proof is test/e2e/mcp-first-wait.test.ts).
import { describe, expect, test } from "bun:test";
import { connectNotes } from "../../src/mcp/connect-notes.ts";
import { blocksFirstRequest, DEFAULT_FIRST_WAIT_MS, firstWaitMs, waitBounded } from "../../src/mcp/first-wait.ts";
import type { McpServerState } from "../../src/mcp/manager.ts";
import { jsonTool } from "../../src/tool/json-tool.ts";

describe("firstWaitMs", () => {
  test("2 s by default; YOKE_MCP_WAIT_MS sets it (0 allowed); MCP_CONNECTION_NONBLOCKING=false/0 waits for every server", () => {
    expect(firstWaitMs({})).toBe(DEFAULT_FIRST_WAIT_MS);
    expect(DEFAULT_FIRST_WAIT_MS).toBe(2000);
    expect(firstWaitMs({ YOKE_MCP_WAIT_MS: "500" })).toBe(500);
    expect(firstWaitMs({ YOKE_MCP_WAIT_MS: "0" })).toBe(0);
    for (const bad of ["", " ", "-1", "soon", "NaN"]) expect(firstWaitMs({ YOKE_MCP_WAIT_MS: bad })).toBe(DEFAULT_FIRST_WAIT_MS);
    for (const off of ["false", "FALSE", "0", "no", "off"]) expect(firstWaitMs({ MCP_CONNECTION_NONBLOCKING: off, YOKE_MCP_WAIT_MS: "5" })).toBe(Number.POSITIVE_INFINITY);
    for (const on of ["true", "1", ""]) expect(firstWaitMs({ MCP_CONNECTION_NONBLOCKING: on })).toBe(DEFAULT_FIRST_WAIT_MS);
  });

  test("alwaysLoad: true and --mcp-config (scope dynamic) servers block the first request; others do not", () => {
    expect(blocksFirstRequest({ scope: "project", config: { command: "x", alwaysLoad: true } as never })).toBe(true);
    expect(blocksFirstRequest({ scope: "dynamic", config: { command: "x" } })).toBe(true);
    for (const scope of ["project", "user", "local", "plugin", "managed", "enterprise"] as const) expect(blocksFirstRequest({ scope, config: { command: "x" } })).toBe(false);
    expect(blocksFirstRequest({ scope: "user", config: { command: "x", alwaysLoad: "yes" } as never })).toBe(false);
  });
});

describe("waitBounded", () => {
  test("resolves when the server settles first (a failure too), or at once when the bound has passed; never rejects", async () => {
    await waitBounded(Promise.resolve(), performance.now(), 60_000);
    await waitBounded(Promise.reject(new Error("x")), performance.now(), 60_000);
    let settled = false;
    await waitBounded(new Promise(() => {}), performance.now() - 10, 5).then(() => (settled = true));
    expect(settled).toBe(true);
    // No bound: only the server's answer ends the wait.
    let answer!: () => void;
    const p = waitBounded(new Promise<void>((r) => (answer = r)), performance.now(), Number.POSITIVE_INFINITY);
    let done = false;
    void p.then(() => (done = true));
    await Bun.sleep(0);
    expect(done).toBe(false);
    answer();
    await p;
  });
});

const state = (name: string, status: McpServerState["status"], tools: string[] = [], error?: string): McpServerState => ({
  name,
  scope: "project",
  source: ".mcp.json",
  status,
  error,
  tools: tools.map((t) => ({ name: t, inputSchema: { type: "object" } })),
  hasResources: false,
  hasPrompts: false,
  prompts: [],
});
const tool = (name: string, deferred = false) => ({ ...jsonTool({ name, description: name, inputSchema: { type: "object", properties: {} }, execute: () => "" }), deferred });

describe("connectNotes", () => {
  test("a server still connecting is announced once; when it connects its registered tools are named once; a failure is said", () => {
    let servers = [state("a.b", "pending"), state("fast", "connected", ["x"]), state("bad", "pending")];
    let tools = [tool("mcp__fast__x")];
    const notes = connectNotes(() => servers, () => tools);
    const first = notes();
    expect(first).toHaveLength(1);
    expect(first[0]).toStartWith("<system-reminder>\n");
    expect(first[0]).toContain("still connecting");
    expect(first[0]).toContain("\na.b\nbad\n");
    expect(first[0]).not.toContain("fast");
    expect(notes()).toEqual([]);
    // a.b connects: its hidden tool ("secret", not registered) is not named; bad fails.
    servers = [state("a.b", "connected", ["sum", "secret"]), state("fast", "connected", ["x"]), state("bad", "failed", [], "the process exited with code 7")];
    tools = [tool("mcp__fast__x"), tool("mcp__a_b__sum")];
    const later = notes();
    expect(later).toHaveLength(1);
    expect(later[0]).toContain('MCP server "a.b" has connected. Its tools are available now:\nmcp__a_b__sum');
    expect(later[0]).not.toContain("secret");
    expect(later[0]).toContain('MCP server "bad" did not connect (failed: the process exited with code 7)');
    expect(notes()).toEqual([]);
  });

  test("deferred tools are said to need ToolSearch; a server with no tools says so; nothing pending, nothing said", () => {
    let servers = [state("big", "pending"), state("empty", "pending")];
    const notes = connectNotes(() => servers, () => [tool("mcp__big__one", true)]);
    expect(notes()).toHaveLength(1);
    servers = [state("big", "connected", ["one"]), state("empty", "connected")];
    const [text] = notes();
    expect(text).toContain("as deferred tools (load them with ToolSearch");
    expect(text).toContain('MCP server "empty" has connected; it offers no tools.');
    expect(connectNotes(() => [state("x", "connected", ["t"])], () => [])()).toEqual([]);
  });
});
