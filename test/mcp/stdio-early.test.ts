// Issue 13 point 8 (bench): stdio servers are spawned before the MCP SDK loads, so the transport is started early
// and again by the SDK's connect. It must spawn once, and keep what the server said before anyone listened.
import { expect, test } from "bun:test";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { asJsonRpc, createStdioTransport } from "../../src/mcp/stdio-transport.ts";
import { tempDir } from "../helpers/tmp.ts";
import { waitFor } from "../helpers/wait-for.ts";

const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };

test("started early, then by connect: one process; messages read before a reader was set are delivered in order", async () => {
  const lines = ['{"jsonrpc":"2.0","method":"notifications/message","params":{"n":1}}', "a banner", '{"jsonrpc":"2.0","method":"notifications/message","params":{"n":2}}'];
  const t = createStdioTransport({ command: "bash", args: ["-c", `printf '%s\\n' ${lines.map((l) => `'${l}'`).join(" ")}; sleep 30`], env, cwd: tempDir() });
  await t.start();
  const pid = t.pid();
  await waitFor(() => t.garbage() === "a banner", "the banner line to be read", 20_000);
  const got: JSONRPCMessage[] = [];
  t.onmessage = (m) => got.push(m);
  await t.start();
  expect(t.pid()).toBe(pid);
  // The third line may still be in the transport's read loop when the reader is set: wait for it, then check order.
  await waitFor(() => got.length >= 2, "both messages to be delivered", 20_000);
  expect(got.map((m) => (m as unknown as { params: { n: number } }).params.n)).toEqual([1, 2]);
  await t.close();
});

test("a server that cannot start: the early start is quiet, the second start rejects with the reason", async () => {
  const t = createStdioTransport({ command: "/nonexistent/server", args: [], env, cwd: tempDir() });
  const early = t.start();
  early.catch(() => {});
  await expect(t.start()).rejects.toThrow("could not start /nonexistent/server: command not found");
});

test("JSON-RPC by shape: requests, notifications and responses pass; other JSON is not a message", () => {
  expect(asJsonRpc({ jsonrpc: "2.0", id: 1, method: "ping" })).toBeDefined();
  expect(asJsonRpc({ jsonrpc: "2.0", method: "notifications/initialized" })).toBeDefined();
  expect(asJsonRpc({ jsonrpc: "2.0", id: "a", result: {} })).toBeDefined();
  expect(asJsonRpc({ jsonrpc: "2.0", id: 2, error: { code: 1, message: "x" } })).toBeDefined();
  for (const bad of [null, [], "x", 3, { jsonrpc: "1.0", method: "x" }, { jsonrpc: "2.0" }, { jsonrpc: "2.0", id: 1 }, { jsonrpc: "2.0", id: {}, result: 1 }, { jsonrpc: "2.0", method: 5 }])
    expect(asJsonRpc(bad)).toBeUndefined();
});
