// Issue 21 point 4: the stdio transport runs its server through Bun's pipes (spawnPiped), not Node's ChildProcess
// streams (a one-turn run's peak RSS and CPU). What its users saw must not change: a server that dies is named by its
// exit, one that stops reading fails the send in bounded time, and messages arrive whole however the pipe cuts them.
import { expect, test } from "bun:test";
import { createStdioTransport } from "../../src/mcp/stdio-transport.ts";
import { alive } from "../helpers/process-alive.ts";
import { tempDir } from "../helpers/tmp.ts";
import { waitFor } from "../helpers/wait-for.ts";

const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
const transport = (script: string) => createStdioTransport({ command: "bash", args: ["-c", script], env, cwd: tempDir() });
const msg = { jsonrpc: "2.0" as const, id: 1, method: "initialize", params: {} };

test("a server that exits at once: the send fails, and by then its exit code is known", async () => {
  const t = transport("exit 7");
  await t.start();
  const pid = t.pid()!;
  await waitFor(() => !alive(pid), "the server to exit");
  // Its exit may or may not have been read yet: either way the failure comes after it is known.
  await expect(t.send(msg)).rejects.toThrow();
  expect(t.exit()).toEqual({ code: 7, signal: null });
});

test("a server that closes its stdin but lives on: the send fails within ~1 s, close() stops it", async () => {
  const t = transport("exec 0<&-; echo ready >&2; exec sleep 300");
  await t.start();
  await waitFor(() => t.stderrTail().includes("ready"), "the server to close its stdin");
  const pid = t.pid()!;
  // The first write may still fit the pipe; a broken pipe shows on a later one.
  let failed: unknown;
  for (let i = 0; i < 50 && !failed; i++) failed = await t.send(msg).then(() => undefined, (e) => e ?? new Error("rejected"));
  expect(failed).toBeInstanceOf(Error);
  await t.close();
  await waitFor(() => !alive(pid), "the server to be stopped");
});

test("messages cut anywhere by the pipe arrive whole: a line in pieces, CRLF, a multi-byte character split, before onmessage is set", async () => {
  // printf writes each piece on its own; the sleeps make the reader see them apart.
  const line = JSON.stringify({ jsonrpc: "2.0", method: "note", params: { text: "héllo 😀" } });
  const bytes = [...Buffer.from(line)].map((b) => `\\x${b.toString(16).padStart(2, "0")}`);
  const cut = Buffer.from(line).indexOf(0xf0) + 2; // inside the emoji's four bytes
  const t = transport(`printf '${bytes.slice(0, cut).join("")}'; sleep 0.2; printf '${bytes.slice(cut).join("")}\\r\\n'; sleep 0.1; printf '${bytes.join("")}\\n'; printf 'banner line\\n'; sleep 300`);
  await t.start();
  // The banner comes last: once it is seen, both messages were read, before anyone listens.
  await waitFor(() => t.garbage() === "banner line", "the server's output");
  const got: unknown[] = [];
  t.onmessage = (m) => got.push(m);
  await t.start(); // the SDK's connect: hands over what was read meanwhile
  await waitFor(() => got.length === 2, "both messages");
  expect(got).toEqual([JSON.parse(line), JSON.parse(line)]);
  expect(t.garbage()).toBe("banner line");
  await t.close();
});

test("a command that does not exist: start rejects naming it, as before", async () => {
  const t = createStdioTransport({ command: "/nonexistent/server", args: [], env, cwd: tempDir() });
  await expect(t.start()).rejects.toThrow("could not start /nonexistent/server: command not found");
});
