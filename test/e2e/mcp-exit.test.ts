/**
 * The end of a run with stdio MCP servers: yoke closes each server's stdin, sends its group SIGTERM and waits for it
 * to exit (SIGKILL after 2 s), reading its stderr until then. Claude Code 2.1.332, observed (strace of a `-p` run with
 * a stdio server): it signals the server after the answer and waits for its exit before its own.
 *
 * Why a test: for two trains (issue 21) yoke exited without waiting and left the servers to its watchdog. A server
 * that logs while it shuts down then wrote into a pipe with no reader: sh, Go and Rust servers die of SIGPIPE (or
 * EPIPE) in the middle of their cleanup (red team, 2026-12-02). The fixture is such a server; without the wait it
 * never writes `finished`.
 */
import { beforeAll, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { isolatedEnv, repoRoot, runYoke, TRUST_WORKSPACE, yokeBin } from "../helpers/binary.ts";
import { tempDir } from "../helpers/tmp.ts";
import { alive } from "../helpers/process-alive.ts";
import { runWith, say } from "./hooks-helpers.ts";

beforeAll(() => {
  yokeBin();
});

const server = (d: string) => JSON.stringify({ mcpServers: { cleanup: { command: "/bin/sh", args: [join(repoRoot(), "test", "fixtures", "mcp", "cleanup-server.sh"), d] } } });
const ifPosix = process.platform === "win32" ? test.skip : test;

for (const format of ["text", "stream-json"] as const) {
  ifPosix(`-p (${format}): a server that logs while it shuts down has finished its cleanup when yoke exits`, async () => {
    const cwd = tempDir();
    const d = tempDir();
    const r = await runWith(cwd, [say("all done")], ["--mcp-config", server(d), "--output-format", format, ...(format === "stream-json" ? ["--verbose"] : [])]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("all done");
    if (format === "stream-json") expect(r.lines!.find((l) => l.type === "system" && l.subtype === "init").mcp_servers).toEqual([{ name: "cleanup", status: "connected" }]);
    // yoke has exited: the server's cleanup, log line included, is already done, and the server is gone.
    expect(existsSync(join(d, "finished"))).toBe(true);
    expect(alive(Number(readFileSync(join(d, "pid"), "utf8").trim()))).toBe(false);
  }, 60_000);
}

ifPosix("`yoke mcp list` (a command that ends the process) waits for its server's cleanup the same way", async () => {
  const cwd = tempDir();
  const d = tempDir();
  const r = await runYoke(["mcp", "list", "--json", "--mcp-config", server(d)], { cwd, env: isolatedEnv({ ...TRUST_WORKSPACE }) });
  expect(r.code).toBe(0);
  expect(JSON.parse(r.stdout)).toEqual(expect.arrayContaining([expect.objectContaining({ name: "cleanup", status: "connected" })]));
  expect(existsSync(join(d, "finished"))).toBe(true);
  expect(alive(Number(readFileSync(join(d, "pid"), "utf8").trim()))).toBe(false);
}, 60_000);
