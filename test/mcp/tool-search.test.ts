// Issue 13 points 3 and 4: result conversion and the deferral rules, as pure functions.
import { describe, expect, test } from "bun:test";
import { convertResult } from "../../src/mcp/tool-adapter.ts";
import { createToolSearchTool, searchDeferred, shouldDefer, specTokens } from "../../src/mcp/tool-search.ts";
import { createToolRegistry } from "../../src/tool/registry.ts";
import { makeCtx, tempDir } from "../tool/ctx.ts";
import { jsonTool } from "../../src/tool/json-tool.ts";

const tool = (name: string, description: string) =>
  ({ ...jsonTool({ name, description, inputSchema: { type: "object", properties: {} }, execute: () => "" }), deferred: true });

describe("shouldDefer (ENABLE_TOOL_SEARCH)", () => {
  test("auto defers past 10% of the window, auto:N past N%, true/false always/never, unknown values act as auto", () => {
    expect(shouldDefer(undefined, 19_999, 200_000)).toBe(false);
    expect(shouldDefer(undefined, 20_001, 200_000)).toBe(true);
    expect(shouldDefer("auto", 20_001, 200_000)).toBe(true);
    expect(shouldDefer("auto:5", 10_001, 200_000)).toBe(true);
    expect(shouldDefer("auto:50", 20_001, 200_000)).toBe(false);
    expect(shouldDefer("true", 1, 200_000)).toBe(true);
    expect(shouldDefer("true", 0, 200_000)).toBe(false);
    expect(shouldDefer("FALSE", 1e9, 200_000)).toBe(false);
    expect(shouldDefer("0", 1e9, 200_000)).toBe(false);
    expect(shouldDefer("sometimes", 20_001, 200_000)).toBe(true);
  });
  test("specTokens grows with the schemas", () => {
    expect(specTokens([tool("a", "x".repeat(400))])).toBeGreaterThan(100);
    expect(specTokens([])).toBe(0);
  });
});

describe("searchDeferred", () => {
  const tools = [
    tool("mcp__github__create_issue", "Create an issue in a repository"),
    tool("mcp__github__list_pull_requests", "List pull requests"),
    tool("mcp__slack__send_message", "Send a message to a channel"),
    tool("mcp__jira__create_ticket", "Create a ticket (an issue) in a project"),
  ];
  test("name words weigh more than description words; +word must match; max caps the count", () => {
    expect(searchDeferred(tools, "issue", 5).map((t) => t.name)).toEqual(["mcp__github__create_issue", "mcp__jira__create_ticket"]);
    expect(searchDeferred(tools, "create +jira", 5).map((t) => t.name)).toEqual(["mcp__jira__create_ticket"]);
    expect(searchDeferred(tools, "create", 1)).toHaveLength(1);
    expect(searchDeferred(tools, "weather", 5)).toEqual([]);
  });
});

describe("convertResult (MCP content → tool_result)", () => {
  test("text, image, audio, resource link, embedded text/blob resources, structuredContent, isError", () => {
    const r = convertResult(
      {
        content: [
          { type: "text", text: "hello" },
          { type: "image", data: "AAAA", mimeType: "image/png" },
          { type: "audio", data: "AAAA", mimeType: "audio/wav" },
          { type: "resource_link", uri: "file:///x", name: "x" },
          { type: "resource", resource: { uri: "file:///t", text: "inner" } },
          { type: "resource", resource: { uri: "file:///b", blob: "AAAA", mimeType: "application/pdf" } },
        ],
        isError: true,
      },
      10_000,
    );
    expect(r.isError).toBe(true);
    const blocks = r.content as Array<{ type: string; text?: string }>;
    expect(blocks.map((b) => b.type)).toEqual(["text", "image", "text", "text", "text", "text"]);
    expect(blocks[2]!.text).toContain("Audio content (audio/wav)");
    expect(blocks[3]!.text).toBe("[Resource link: x (file:///x)]");
    expect(blocks[4]!.text).toBe("[Resource file:///t]\ninner");
    expect(blocks[5]!.text).toContain("Binary resource file:///b (application/pdf)");
    expect(convertResult({ content: [], structuredContent: { a: 1 } }, 100).content).toBe('{"a":1}');
    expect(convertResult({ content: [] }, 100).content).toBe("(the tool returned no content)");
  });
  test("text past the budget is cut, head and tail kept, with a note naming MAX_MCP_OUTPUT_TOKENS", () => {
    const text = `HEAD${"x".repeat(10_000)}TAIL`;
    const r = convertResult({ content: [{ type: "text", text }] }, 1_000);
    expect(typeof r.content).toBe("string");
    const c = r.content as string;
    expect(c.length).toBeLessThan(1_400);
    expect(c.startsWith("HEAD")).toBe(true);
    expect(c).toContain("TAIL");
    expect(c).toContain("MAX_MCP_OUTPUT_TOKENS");
  });
});

describe("ToolSearch and servers still connecting (observed in 2.1.332)", () => {
  const setup = () => {
    const reg = createToolRegistry([tool("mcp__fast__add_rows", "Adds rows")]);
    let settle!: () => void;
    const settled = new Promise<void>((r) => (settle = r));
    let waited = 0;
    let pending = ["slow"];
    const search = createToolSearchTool(() => reg, {
      pending: () => pending,
      settled: () => {
        waited++;
        return settled;
      },
    });
    // The slow server connects: its tools are registered (here in full, as when the set is small), then it settles.
    const connect = () => {
      reg.register({ ...tool("mcp__slow__sum", "Sums numbers"), deferred: false });
      pending = [];
      settle();
    };
    return { reg, search, connect, waited: () => waited };
  };

  test("a search that finds something answers at once; one that finds nothing waits, then finds the late server's tools", async () => {
    const s = setup();
    const ctx = makeCtx(tempDir());
    const quick = await s.search.run({ query: "rows" }, ctx);
    expect(quick.content).toContain("mcp__fast__add_rows");
    expect(s.waited()).toBe(0);
    const slow = s.search.run({ query: "select:mcp__slow__sum" }, ctx);
    await Bun.sleep(0);
    expect(s.waited()).toBe(1);
    s.connect();
    const r = await slow;
    expect(r.isError).toBeFalsy();
    expect(r.content).toContain("Loaded 1 tool");
    expect(r.content).toContain("mcp__slow__sum");
  });

  test("an interrupt ends the wait; with nothing pending a miss does not wait", async () => {
    const s = setup();
    const ctx = makeCtx(tempDir());
    const waiting = s.search.run({ query: "zzz" }, ctx);
    await Bun.sleep(0);
    ctx.abort.abort();
    expect((await waiting).content).toMatch(/interrupted|No deferred tool matches/);
    const none = createToolSearchTool(() => createToolRegistry([]), { pending: () => [], settled: () => new Promise(() => {}) });
    expect((await none.run({ query: "select:mcp__x__y" }, makeCtx(tempDir()))).isError).toBe(true);
  });
});
