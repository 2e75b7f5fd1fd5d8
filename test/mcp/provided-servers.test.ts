// managedMcpServers (Claude Code 2.1.259+; its "Control MCP server access" docs, "What an entry can contain" and "Where
// managedMcpServers applies"; the 2.1.332 binary's entry checks): which entries of the managed settings files load.
// Pure function, real settings shapes.
import { describe, expect, test } from "bun:test";
import { hostOnly, readProvidedServers } from "../../src/mcp/provided-servers.ts";

type Level = "user" | "project" | "local" | "flag" | "managed";
const settings = (...layers: Array<[Level, string, Record<string, unknown>]>) => ({
  sources: layers.map(([level, path, s]) => ({ level, path, ruleRoot: "/", settings: s as never })),
});
const MAIN = "/etc/claude-code/managed-settings.json";
const DROPIN = "/etc/claude-code/managed-settings.d/20-team.json";

describe("readProvidedServers", () => {
  test("a later managed file's entry of a name replaces the earlier one whole; names from both are kept", () => {
    const r = readProvidedServers(
      settings(
        ["managed", MAIN, { managedMcpServers: { a: { type: "http", url: "https://a.example.com/mcp", headers: { K: "1" } }, b: { type: "sse", url: "https://b.example.com/sse" } } }],
        ["managed", DROPIN, { managedMcpServers: { a: { type: "http", url: "https://a2.example.com/mcp" } } }],
      ),
    );
    expect(r.problems).toEqual([]);
    expect(r.servers.map((s) => [s.name, s.scope, s.source, (s.config as { url: string }).url, (s.config as { headers?: unknown }).headers])).toEqual([
      ["a", "managed", DROPIN, "https://a2.example.com/mcp", undefined],
      ["b", "managed", MAIN, "https://b.example.com/sse", undefined],
    ]);
  });

  test('"streamable-http" is read as http', () => {
    const r = readProvidedServers(settings(["managed", MAIN, { managedMcpServers: { s: { type: "streamable-http", url: "https://s.example.com/mcp" } } }]));
    expect(r.servers[0]!.config.type).toBe("http");
  });

  const bad: Array<[string, unknown, string]> = [
    ["no type", { url: "https://x.example.com/mcp" }, 'managed settings can only deliver "http" or "sse" servers'],
    ["a stdio server", { command: "node", args: ["x.js"] }, '"command" is not allowed in managed settings'],
    ["env beside a URL", { type: "http", url: "https://x.example.com/mcp", env: { A: "1" } }, '"env" is not allowed in managed settings'],
    ["plain http, even to localhost", { type: "http", url: "http://localhost:3000/mcp" }, "must use a valid https:// url"],
    ["a ${VAR} in a header", { type: "http", url: "https://x.example.com/mcp", headers: { Authorization: "Bearer ${TOKEN}" } }, "headers.Authorization: ${VAR} references are not expanded"],
    ["a control character in a header name", { type: "http", url: "https://x.example.com/mcp", headers: { "X-\u001b[31m": "v" } }, "contains control or invisible format characters"],
    ["a right-to-left override in the URL", { type: "http", url: "https://x.example.com/\u202emcp" }, "contains control or invisible format characters"],
  ];
  for (const [label, entry, why] of bad)
    test(`dropped with a notice naming the file and entry: ${label}; the good entry still loads`, () => {
      const r = readProvidedServers(settings(["managed", MAIN, { managedMcpServers: { bad: entry, good: { type: "http", url: "https://g.example.com/mcp" } } }]));
      expect(r.servers.map((s) => s.name)).toEqual(["good"]);
      expect(r.problems).toHaveLength(1);
      expect(r.problems[0]).toStartWith(`${MAIN}: managedMcpServers.bad: Managed MCP server was ignored: `);
      expect(r.problems[0]).toContain(why);
    });

  test("a name outside letters, digits, - and _ is dropped, quoted in the notice", () => {
    const r = readProvidedServers(settings(["managed", MAIN, { managedMcpServers: { "a.b": { type: "http", url: "https://g.example.com/mcp" } } }]));
    expect(r.servers).toEqual([]);
    expect(r.problems).toEqual([`${MAIN}: managedMcpServers."a.b": Managed MCP server was ignored: its name may hold only letters, digits, '-' and '_'`]);
  });

  test("outside managed settings the key is ignored, said; Claude Desktop's array form is refused whole, said", () => {
    const r = readProvidedServers(
      settings(
        ["user", "/home/u/.claude/settings.json", { managedMcpServers: { x: { type: "http", url: "https://x.example.com/mcp" } } }],
        ["project", "/p/.claude/settings.json", { managedMcpServers: { y: { type: "http", url: "https://y.example.com/mcp" } } }],
        ["managed", MAIN, { managedMcpServers: [{ name: "z", transport: "http", url: "https://z.example.com/mcp" }] }],
      ),
    );
    expect(r.servers).toEqual([]);
    expect(r.problems).toEqual([
      '/home/u/.claude/settings.json: field "managedMcpServers" is read only from managed settings; ignored here',
      '/p/.claude/settings.json: field "managedMcpServers" is read only from managed settings; ignored here',
      `${MAIN}: field "managedMcpServers" must be an object keyed by server name (the .mcp.json mcpServers shape; Claude Desktop's array form is not accepted here). No managed MCP servers are installed from it until it is fixed.`,
    ]);
  });
});

test("hostOnly: the scheme and host (port kept), the rest elided", () => {
  expect(hostOnly("https://mcp.example.com/v1/mcp?key=1")).toBe("https://mcp.example.com/…");
  expect(hostOnly("https://mcp.example.com:8443")).toBe("https://mcp.example.com:8443/…");
});
