// The SDK's output-schema check of MCP tool results still holds now that its Ajv validator is made only when a server
// lists a tool with an output schema (src/mcp/manager.ts, issue 21).
import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import { createMcpManager } from "../../src/mcp/manager.ts";
import { createStdioTransport } from "../../src/mcp/stdio-transport.ts";
import { repoRoot } from "../helpers/binary.ts";
import { tempDir } from "../helpers/tmp.ts";

const manager = createMcpManager({ connectTimeoutMs: 30_000, toolTimeoutMs: 30_000, version: "0.0.0" });
afterAll(() => manager.close());
const server = (mode: string) => () =>
  createStdioTransport({ command: process.execPath, args: [join(repoRoot(), "test/fixtures/mcp/tiny-server.mjs"), mode], env: { PATH: process.env.PATH ?? "/usr/bin:/bin" }, cwd: tempDir() });

test("a tool's structured result is checked against its output schema: a match passes, a mismatch is an error naming it", async () => {
  const state = await manager.addServer("typed", server("typed"));
  expect(state.status).toBe("connected");
  const signal = new AbortController().signal;
  expect((await manager.callTool("typed", "measure", { good: true }, signal)).structuredContent).toEqual({ n: 1 });
  await expect(manager.callTool("typed", "measure", { good: false }, signal)).rejects.toThrow("Structured content does not match the tool's output schema");
  // A tool without an output schema is not checked.
  expect((await manager.callTool("typed", "add", { a: 1, b: 2 }, signal)).content).toEqual([{ type: "text", text: "3" }]);
});
