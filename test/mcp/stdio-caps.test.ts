// Issue 20 point 5: an MCP stdio server cannot grow yoke's memory or disk without bound. A server that streams
// stdout forever without a newline is cut off at the message cap, said as an error, and stopped; its stderr log
// stops growing at MAX_LOG_CHARS with a line saying so.
import { expect, test } from "bun:test";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { createStdioTransport, MAX_LOG_CHARS } from "../../src/mcp/stdio-transport.ts";
import { tempDir } from "../helpers/tmp.ts";
import { waitFor } from "../helpers/wait-for.ts";

test("stdout without newlines forever: cut at the cap, the error says so, the server is stopped", async () => {
  const t = createStdioTransport({ command: "bash", args: ["-c", "yes x | tr -d '\\n'"], env: { PATH: process.env.PATH ?? "/usr/bin:/bin" }, cwd: tempDir(), maxMessageChars: 1_000_000 });
  const errors: string[] = [];
  let closed = false;
  t.onerror = (e) => errors.push(e.message);
  t.onclose = () => (closed = true);
  await t.start();
  await waitFor(() => closed, "the server to be stopped");
  expect(errors[0]).toBe("the server sent a message longer than 1000000 characters without a newline; it was dropped and the server stopped");
});

test("stderr forever: the log stops at MAX_LOG_CHARS with a line saying so", async () => {
  const log = join(tempDir(), "logs", "srv.log");
  const t = createStdioTransport({ command: "bash", args: ["-c", `head -c ${MAX_LOG_CHARS + 4_000_000} /dev/zero | tr '\\0' e >&2; sleep 300`], env: { PATH: process.env.PATH ?? "/usr/bin:/bin" }, cwd: tempDir(), logFile: log });
  await t.start();
  await waitFor(() => existsSync(log) && readFileSync(log, "utf8").endsWith("characters)]\n"), "the log's last line");
  await t.close();
  expect(statSync(log).size).toBeLessThan(MAX_LOG_CHARS + 200_000);
});
