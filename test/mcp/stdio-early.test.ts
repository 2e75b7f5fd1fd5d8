// Issue 13 point 8 (bench): stdio servers are spawned before the MCP SDK loads, so the transport is started early
// and again by the SDK's connect. It must spawn once, and keep what the server said before anyone listened.
import { expect, test } from "bun:test";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { asJsonRpc, createStdioTransport } from "../../src/mcp/stdio-transport.ts";
import { GUARD_ENV } from "../../src/util/subprocess.ts";
import { tempDir } from "../helpers/tmp.ts";
import { waitFor } from "../helpers/wait-for.ts";

const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };

test("started early, then by connect: one process; messages read before a reader was set are delivered in order", async () => {
  const lines = ['{"jsonrpc":"2.0","method":"notifications/message","params":{"n":1}}', "a banner", '{"jsonrpc":"2.0","method":"notifications/message","params":{"n":2}}'];
  const t = createStdioTransport({ command: "bash", args: ["-c", `printf '%s\\n' ${lines.map((l) => `'${l}'`).join(" ")}; sleep 30`], env, cwd: tempDir() });
  await t.start();
  const pid = t.pid();
  await waitFor(() => t.garbage() === "a banner", "the banner line to be read");
  const got: JSONRPCMessage[] = [];
  t.onmessage = (m) => got.push(m);
  await t.start();
  expect(t.pid()).toBe(pid);
  // The third line may still be in the transport's read loop when the reader is set: wait for it, then check order.
  await waitFor(() => got.length >= 2, "both messages to be delivered");
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

// Issue 21: the server starts through Bun's spawn, not Node's ChildProcess, whose first use costs a process ~9 ms of CPU
// (an MCP server is spawned on the way to the first request). Bun.spawn is the runtime's boundary, watched here.
test("the server is started by Bun.spawn: in its own process group, with the env given and the watchdog's token", async () => {
  const calls: Array<[string[], { detached?: boolean; env?: Record<string, string>; cwd?: string }]> = [];
  const real = Bun.spawn;
  (Bun as { spawn: unknown }).spawn = (...a: Parameters<typeof Bun.spawn>) => {
    calls.push(a as never);
    return (real as (...x: unknown[]) => unknown)(...a);
  };
  const cwd = tempDir();
  let t;
  try {
    t = createStdioTransport({ command: "sh", args: ["-c", "echo '{\"jsonrpc\":\"2.0\",\"method\":\"hi\"}'; ps -o pgid= -p $$ >&2; sleep 30"], env: { ...env, MINE: "1" }, cwd });
    await t.start();
  } finally {
    (Bun as { spawn: unknown }).spawn = real;
  }
  const server = calls.filter(([argv]) => argv[0] === "sh");
  expect(server).toHaveLength(1);
  const [argv, opts] = server[0]!;
  expect(argv.slice(1, 2)).toEqual(["-c"]);
  expect(opts.detached).toBe(true);
  expect(opts.cwd).toBe(cwd);
  expect(opts.env?.MINE).toBe("1");
  expect(opts.env?.[GUARD_ENV]).toBeString();
  await waitFor(() => t.stderrTail().trim() !== "", "the server's pgid on stderr");
  expect(t.stderrTail().trim()).toBe(String(t.pid()));
  await t.close();
  expect(t.exit()).toBeDefined();
});
