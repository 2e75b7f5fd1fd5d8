// Issue 13 point 6: `yoke mcp list|get|add|add-json|remove` through the compiled binary.
import { beforeAll, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { isolatedEnv, runYoke, yokeBin } from "../helpers/binary.ts";
import { tempDir } from "../helpers/tmp.ts";
import { tiny } from "./mcp-helpers.ts";

// Real MCP servers (node packages) start in ~1 s alone and several seconds on a loaded 2-core machine.

beforeAll(() => {
  yokeBin();
});

test("add (local, user, project), list with status and tool count, get, remove; files written where Claude Code's scopes live", async () => {
  const cwd = tempDir("yoke-mcpcmd-");
  // No server here hangs (port 9 refuses at once): the limit only has to be out of reach of a slow start.
  const env = isolatedEnv({ MCP_TIMEOUT: "30000" });
  const yoke = (...a: string[]) => runYoke(["mcp", ...a], { cwd, env });
  const [cmd, ...args] = [tiny("ok").command, ...tiny("ok").args];
  let r = await yoke("add", "-e", "K=v", "t", "--", cmd!, ...args);
  expect(r.code).toBe(0);
  expect(r.stdout).toContain("Added stdio MCP server t in local scope");
  const mine = JSON.parse(readFileSync(join(env.YOKE_CONFIG_DIR!, "mcp.json"), "utf8"));
  expect(mine.projects[cwd].mcpServers.t).toEqual({ command: cmd, args, env: { K: "v" } });
  r = await yoke("add", "-s", "user", "-t", "http", "-H", "Authorization: Bearer x", "web", "http://127.0.0.1:9/mcp");
  expect(r.code).toBe(0);
  r = await yoke("add-json", "-s", "project", "proj", JSON.stringify(tiny("exit")));
  expect(r.code).toBe(0);
  expect(JSON.parse(readFileSync(join(cwd, ".mcp.json"), "utf8")).mcpServers.proj).toEqual(tiny("exit"));

  r = await yoke("list");
  expect(r.code).toBe(0);
  expect(r.stdout).toContain(`t: ${[cmd, ...args].join(" ")} (stdio, local) - ✓ connected, 3 tools`);
  expect(r.stdout).toContain("web: http://127.0.0.1:9/mcp (http, user) - ✗ failed, 0 tools");
  expect(r.stdout).toContain("proj:");
  expect(r.stdout).toContain("disabled");
  r = await yoke("list", "--json");
  const rows = JSON.parse(r.stdout);
  expect(rows.find((x: any) => x.name === "t")).toMatchObject({ scope: "local", status: "connected", tools: 3, transport: "stdio" });
  expect(rows.find((x: any) => x.name === "web").error).toBeDefined();

  r = await yoke("get", "t", "--json");
  expect(JSON.parse(r.stdout)).toMatchObject({ name: "t", toolNames: ["add", "crash", "grow"], config: { command: cmd } });
  r = await yoke("get", "nope");
  expect(r.code).toBe(1);
  expect(r.stderr).toContain("no MCP server named 'nope'");

  r = await yoke("remove", "t");
  expect(r.stdout).toContain("Removed MCP server t from local scope");
  r = await yoke("remove", "t");
  expect(r.code).toBe(1);
  r = await yoke("remove", "-s", "project", "proj");
  expect(r.code).toBe(0);
  expect(JSON.parse(readFileSync(join(cwd, ".mcp.json"), "utf8")).mcpServers).toEqual({});
  // Eleven runs of the binary: 50 s of a 60 s limit with both cores busy.
}, 180_000);

test("bad input is named: scope, transport, env pair, JSON field; nothing written", async () => {
  const cwd = tempDir("yoke-mcpcmd-");
  const env = isolatedEnv();
  const yoke = (...a: string[]) => runYoke(["mcp", ...a], { cwd, env });
  const cases: Array<[string[], string]> = [
    [["add", "-s", "global", "x", "--", "node"], "--scope must be local, user or project (got 'global')"],
    [["add", "-t", "ws", "x", "ws://h"], "--transport must be stdio, http or sse (got 'ws')"],
    [["add", "-e", "NOEQUALS", "x", "--", "node"], "--env needs KEY=VALUE (got 'NOEQUALS')"],
    [["add", "x"], "add needs the server command"],
    [["add-json", "x", '{"type":"http"}'], `the JSON for 'x': field "url"`],
    [["add-json", "x", "{nope"], "the JSON for 'x' does not parse"],
    [["frobnicate"], "unknown subcommand 'frobnicate'"],
  ];
  for (const [argv, msg] of cases) {
    const r = await yoke(...argv);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(msg);
  }
  expect(existsSync(join(env.YOKE_CONFIG_DIR!, "mcp.json"))).toBe(false);
  expect(existsSync(join(cwd, ".mcp.json"))).toBe(false);
});
