// A path-based serverUrl deny in managed policy holds in the compiled binary for every spelling of the denied address
// (contracts §2.2; RFC 3986 §6.2.2; src/mcp/url-canon.ts): escapes of unreserved characters, %2F, double encoding,
// dot segments, the default port, the scheme's and host's case, userinfo, IPv4 written as one number or as an
// IPv4-mapped IPv6 address. None of them is contacted or listed in system/init; a URL that cannot be parsed is refused
// too (fail closed), and an address the policy does not name is still contacted (the test can fail).
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { isolatedEnv, runYoke, TRUST_WORKSPACE, yokeBin } from "../helpers/binary.ts";
import { managedEnv } from "../helpers/managed.ts";
import { project, runWith, say } from "./hooks-helpers.ts";

setDefaultTimeout(120_000);
beforeAll(() => void yokeBin());

// Stands in for the remote server: it records the paths that reach it and answers nothing useful.
const paths: string[] = [];
const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (req) => (paths.push(new URL(req.url).pathname), new Response("no", { status: 404 })) });
afterAll(() => server.stop(true));

test("no spelling of a denied path is contacted, and the run names each blocked server", async () => {
  const port = server.port;
  const spellings: Record<string, string> = {
    escaped: `http://127.0.0.1:${port}/%61dmin/mcp`,
    slash: `http://127.0.0.1:${port}/%2Fadmin/mcp`,
    double: `http://127.0.0.1:${port}/%2561dmin/mcp`,
    dots: `http://127.0.0.1:${port}/x/%2e%2e/admin/mcp`,
    cased: `HTTP://User@127.0.0.1:${port}/admin/mcp`,
    number: `http://2130706433:${port}/admin/mcp`,
    mapped: `http://[::ffff:127.0.0.1]:${port}/admin/mcp`,
    unparsable: `http://127.0.0.1:${port}0000000/admin/mcp`,
  };
  const cwd = project();
  const cfg = join(cwd, "servers.json");
  const mcpServers = Object.fromEntries([...Object.entries(spellings), ["public", `http://127.0.0.1:${port}/public/mcp`]].map(([n, url]) => [n, { type: "http", url }]));
  writeFileSync(cfg, JSON.stringify({ mcpServers }));
  const r = await runWith(cwd, [say("ok")], ["--mcp-config", cfg, "--output-format", "stream-json", "--verbose"], {
    env: { ...managedEnv({ deniedMcpServers: [{ serverUrl: `http://127.0.0.1:${port}/admin/*` }] }), MCP_TIMEOUT: "60000" },
  });
  expect(r.code).toBe(0);
  const init = r.lines!.find((l) => l.subtype === "init");
  expect(init.mcp_servers.map((s: { name: string }) => s.name)).toEqual(["public"]);
  for (const name of Object.keys(spellings)) expect(r.stderr).toContain(`server "${name}"`);
  expect(r.stderr).toContain("not a valid URL");
  expect(paths.some((p) => p.startsWith("/public"))).toBe(true);
  expect(paths.filter((p) => !p.startsWith("/public"))).toEqual([]);
});

test("yoke mcp add refuses another spelling of a denied path as a run would", async () => {
  const cwd = project();
  const env = isolatedEnv({ ...TRUST_WORKSPACE, ...managedEnv({ deniedMcpServers: [{ serverUrl: "https://h.example/admin/*" }] }) });
  for (const url of ["https://h.example/%61dmin/mcp", "https://H.EXAMPLE:443/x/../admin/mcp", "https://h.example/%2561dmin/mcp"]) {
    const r = await runYoke(["mcp", "add", "--transport", "http", "remote", url], { cwd, env });
    expect({ url, code: r.code }).toEqual({ url, code: 1 });
    expect(r.stderr).toContain('Cannot add MCP server "remote": server is explicitly blocked by enterprise policy');
  }
  const ok = await runYoke(["mcp", "add", "--transport", "http", "remote", "https://h.example/public/mcp"], { cwd, env });
  expect(ok.code).toBe(0);
});
