/**
 * Issue 21, the end of a run: yoke sends its stdio MCP servers SIGTERM (their whole process group) and exits without
 * waiting for them to die; the watchdog (src/util/subprocess.ts) then gives a server EXIT_GRACE_MS to finish and
 * SIGKILLs what is left. Waiting held every exit ~5-8 ms (a node server's teardown).
 *
 * Claude Code 2.1.332, observed (strace of a `-p` run with a stdio server): it sends the server's pid SIGINT after the
 * answer and waits for its exit before its own. yoke matches the outcome (the server is told to go, and nothing of it
 * outlives the grace) but not the wait; a server's stderr after yoke left is not logged (its pipe has no reader).
 *
 * Ordering by markers the servers write and /proc, never sleeps or elapsed time.
 */
import { beforeAll, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot, yokeBin } from "../helpers/binary.ts";
import { tempDir } from "../helpers/tmp.ts";
import { waitFor } from "../helpers/wait-for.ts";
import { alive, groupMembers } from "../helpers/process-alive.ts";
import { runWith, say } from "./hooks-helpers.ts";

beforeAll(() => {
  yokeBin();
});

const fixture = (name: string) => join(repoRoot(), "test", "fixtures", "mcp", name);
const mcpConfig = (servers: Record<string, { command: string; args: string[] }>) => JSON.stringify({ mcpServers: servers });
const ifLinux = process.platform === "linux" ? test : test.skip;

for (const format of ["text", "json", "stream-json"] as const) {
  ifLinux(`-p (${format}): the MCP server gets SIGTERM, yoke exits before it is gone, and it still has its time to finish`, async () => {
    const cwd = tempDir();
    const d = tempDir();
    const args = ["--mcp-config", mcpConfig({ term: { command: "node", args: [fixture("term-server.mjs"), d] } }), "--output-format", format, ...(format === "stream-json" ? ["--verbose"] : [])];
    const r = await runWith(cwd, [say("all done")], args);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("all done");
    if (format === "stream-json") expect(r.lines!.find((l) => l.type === "system" && l.subtype === "init").mcp_servers).toEqual([{ name: "term", status: "connected" }]);
    const [serverPid, yokePid] = readFileSync(join(d, "pid"), "utf8").trim().split(" ").map(Number);
    // The server writes `finished` only once yoke is gone: a yoke that waited for it (and killed it after 2 s) never
    // lets it, and a watchdog that SIGKILLed it at once at yoke's exit would cut it short.
    await waitFor(() => existsSync(join(d, "got-term")), "the server to be sent SIGTERM");
    await waitFor(() => existsSync(join(d, "finished")), "the server to finish after yoke's exit");
    await waitFor(() => !alive(serverPid!), `the server ${serverPid} to be gone`);
    expect(alive(yokePid!)).toBe(false);
  }, 60_000);
}

ifLinux("an MCP server that ignores SIGTERM and the end of its stdin, with a child in its group: the watchdog SIGKILLs the group after yoke's exit", async () => {
  const cwd = tempDir();
  const d = tempDir();
  const r = await runWith(cwd, [say("all done")], ["--mcp-config", mcpConfig({ stubborn: { command: "node", args: [fixture("term-server.mjs"), d, "stubborn"] } })]);
  expect(r.code).toBe(0);
  expect(r.stdout).toBe("all done\n");
  const [serverPid, , child] = readFileSync(join(d, "pid"), "utf8").trim().split(" ").map(Number);
  await waitFor(() => existsSync(join(d, "got-term")), "the server to be sent SIGTERM");
  // Only a SIGKILL ends either of them: the watchdog's, EXIT_GRACE_MS after yoke's exit (a condition, not the time).
  await waitFor(() => groupMembers(serverPid!).length === 0, `the server's group ${serverPid} to be gone (left: ${groupMembers(serverPid!)})`);
  expect(alive(child!)).toBe(false);
}, 60_000);

ifLinux("a run that ends in an error (exit 1) ends its MCP server the same way: the exit code is unchanged and the server is gone", async () => {
  const cwd = tempDir();
  const d = tempDir();
  // --max-turns 1 with a tool call: the run ends with error_max_turns (contracts: exit 1).
  const r = await runWith(cwd, [{ content: [{ type: "tool_use", name: "Read", input: { file_path: join(cwd, "nothing") } }] }], [
    "--mcp-config",
    mcpConfig({ term: { command: "node", args: [fixture("term-server.mjs"), d] } }),
    "--max-turns",
    "1",
    "--output-format",
    "json",
  ]);
  expect(r.code).toBe(1);
  expect(r.json.subtype).toBe("error_max_turns");
  const [serverPid] = readFileSync(join(d, "pid"), "utf8").trim().split(" ").map(Number);
  await waitFor(() => existsSync(join(d, "finished")), "the server to finish after yoke's exit");
  await waitFor(() => !alive(serverPid!), `the server ${serverPid} to be gone`);
}, 60_000);
