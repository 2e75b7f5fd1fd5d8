// What a session's MCP servers are (src/mcp/session-servers.ts), the one decision a run and every `yoke mcp`
// subcommand share: plugins' servers against the organization's (Claude Code's "Control MCP server access" docs,
// "How provided servers load"; its 2.1.332 settings schema on deniedMcpServers). Pure function, real settings shapes.
import { describe, expect, test } from "bun:test";
import type { ScopedServer } from "../../src/mcp/config.ts";
import { readMcpPolicy } from "../../src/mcp/policy.ts";
import { pluginServersFor } from "../../src/mcp/session-servers.ts";

type Level = "user" | "project" | "local" | "flag" | "managed";
const settings = (...layers: Array<[Level, Record<string, unknown>]>) => ({
  sources: layers.map(([level, s], i) => ({ level, path: `/${level}/${i}/settings.json`, ruleRoot: "/", settings: s as never })),
});
const plugin = (plug: string, name: string, url: string): ScopedServer => ({ name: `plugin:${plug}:${name}`, scope: "plugin", source: `/plugins/${plug}/.mcp.json`, config: { type: "http", url } });
const provided: ScopedServer = { name: "search", scope: "managed", source: "/etc/claude-code/managed-settings.json", config: { type: "http", url: "https://search.example.com/mcp" } };

describe("pluginServersFor", () => {
  test("a plugin's server at a provided server's URL gives way to it; another URL stays", () => {
    const session = { servers: [provided], policy: readMcpPolicy(settings(), {}), orgPlugins: new Set<string>() };
    const r = pluginServersFor([plugin("kit", "same", "https://search.example.com/mcp/"), plugin("kit", "other", "https://other.example.com/mcp")], session, { strict: false, bare: false, env: {}, cwd: "/proj" });
    expect(r.allowed.map((s) => s.name)).toEqual(["plugin:kit:other"]);
  });

  test("a checkout's own deniedMcpServers reaches a plugin the user enabled but not one managed settings enable; a user's reaches both", () => {
    const servers = [plugin("corpkit", "db", "https://db.example.com/mcp"), plugin("mykit", "db", "https://db.example.com/mcp")];
    const byProject = { servers: [], policy: readMcpPolicy(settings(["project", { deniedMcpServers: [{ serverName: "db" }] }]), {}), orgPlugins: new Set(["corpkit"]) };
    expect(pluginServersFor(servers, byProject, { strict: false, bare: false, env: {}, cwd: "/proj" }).allowed.map((s) => s.name)).toEqual(["plugin:corpkit:db"]);
    const byUser = { ...byProject, policy: readMcpPolicy(settings(["user", { deniedMcpServers: [{ serverName: "db" }] }]), {}) };
    expect(pluginServersFor(servers, byUser, { strict: false, bare: false, env: {}, cwd: "/proj" }).allowed).toEqual([]);
  });

  test("none under managed-mcp.json, --strict-mcp-config or --bare", () => {
    const session = { servers: [], policy: readMcpPolicy(settings(), {}), orgPlugins: new Set<string>() };
    const one = [plugin("kit", "a", "https://a.example.com/mcp")];
    expect(pluginServersFor(one, { ...session, exclusive: "/etc/claude-code/managed-mcp.json" }, { strict: false, bare: false, env: {}, cwd: "/proj" }).allowed).toEqual([]);
    expect(pluginServersFor(one, session, { strict: true, bare: false, env: {}, cwd: "/proj" }).allowed).toEqual([]);
    expect(pluginServersFor(one, session, { strict: false, bare: true, env: {}, cwd: "/proj" }).allowed).toEqual([]);
    expect(pluginServersFor(one, session, { strict: false, bare: false, env: {}, cwd: "/proj" }).allowed).toHaveLength(1);
  });
});
