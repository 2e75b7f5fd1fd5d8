// allowedMcpServers / deniedMcpServers (contracts §2.2; Claude Code's "Control MCP server access" docs and its
// settings schema, observed in 2.1.332): which servers a policy lets run. Pure functions, real settings shapes.
import { describe, expect, test } from "bun:test";
import type { ScopedServer } from "../../src/mcp/config.ts";
import { applyMcpPolicy, mcpPolicyBlock, readMcpPolicy, urlMatches } from "../../src/mcp/policy.ts";

type Level = "user" | "project" | "local" | "flag" | "managed";
const settings = (...layers: Array<[Level, Record<string, unknown>]>) => ({
  sources: layers.map(([level, s], i) => ({ level, path: `/${level}/${i}/settings.json`, ruleRoot: "/", settings: s as never })),
});
const stdio = (name: string, command: string, args: string[] = [], scope: ScopedServer["scope"] = "user"): ScopedServer => ({
  name,
  scope,
  source: `/src/${name}`,
  config: { command, args },
});
const http = (name: string, url: string): ScopedServer => ({ name, scope: "user", source: `/src/${name}`, config: { type: "http", url } });
const block = (s: ScopedServer, ...layers: Array<[Level, Record<string, unknown>]>) => mcpPolicyBlock(s, readMcpPolicy(settings(...layers)), {});

describe("deniedMcpServers", () => {
  test("by name, by exact command, by URL pattern; anything else runs", () => {
    const deny: [Level, Record<string, unknown>] = [
      "managed",
      { deniedMcpServers: [{ serverName: "evil" }, { serverCommand: ["npx", "-y", "bad-pkg"] }, { serverUrl: "https://*.untrusted.com/*" }] },
    ];
    expect(block(stdio("evil", "node", ["x.js"]), deny)).toContain("deniedMcpServers");
    expect(block(stdio("ok", "npx", ["-y", "bad-pkg"]), deny)).toContain("deniedMcpServers");
    expect(block(stdio("ok", "npx", ["bad-pkg"]), deny)).toBeNull(); // exact: order and every argument
    expect(block(stdio("ok", "npx", ["-y", "bad-pkg", "--flag"]), deny)).toBeNull();
    expect(block(http("ok", "https://api.untrusted.com/mcp"), deny)).toContain("deniedMcpServers");
    expect(block(http("ok", "https://api.untrusted.com/mcp?x=1"), deny)).toContain("deniedMcpServers");
    expect(block(http("ok", "https://API.UNTRUSTED.COM/mcp"), deny)).toContain("deniedMcpServers");
    expect(block(http("ok", "https://trusted.com/mcp"), deny)).toBeNull();
  });

  test("merged from every level, a project's too (denying more is always safe); it wins over an allowlist", () => {
    const s = stdio("x", "node", ["x.js"]);
    expect(block(s, ["project", { deniedMcpServers: [{ serverName: "x" }] }])).toContain("deniedMcpServers");
    expect(block(s, ["managed", { allowedMcpServers: [{ serverName: "x" }] }], ["user", { deniedMcpServers: [{ serverName: "x" }] }])).toContain("deniedMcpServers");
  });

  test("a plugin's server is denied by its own name or its full name, and by its command as it runs (${CLAUDE_PLUGIN_ROOT} expanded)", () => {
    const p: ScopedServer = { ...stdio("plugin:kit:db", "node", ["${CLAUDE_PLUGIN_ROOT}/db.js"], "plugin"), pluginRoot: "/plugins/kit" };
    expect(block(p, ["managed", { deniedMcpServers: [{ serverName: "db" }] }])).toContain("deniedMcpServers");
    expect(block(p, ["managed", { deniedMcpServers: [{ serverName: "plugin:kit:db" }] }])).toContain("deniedMcpServers");
    expect(block(p, ["managed", { deniedMcpServers: [{ serverCommand: ["node", "/plugins/kit/db.js"] }] }])).toContain("deniedMcpServers");
    expect(block(p, ["managed", { deniedMcpServers: [{ serverCommand: ["node", "${CLAUDE_PLUGIN_ROOT}/db.js"] }] }])).toContain("deniedMcpServers");
  });
});

describe("allowedMcpServers", () => {
  test("undefined allows everything; empty allows nothing", () => {
    expect(block(stdio("a", "node"))).toBeNull();
    expect(block(stdio("a", "node"), ["managed", { allowedMcpServers: [] }])).toContain("allowedMcpServers");
  });

  test("names count only where the list pins nothing stricter for that transport", () => {
    const names: [Level, Record<string, unknown>] = ["managed", { allowedMcpServers: [{ serverName: "github" }] }];
    expect(block(stdio("github", "anything"), names)).toBeNull();
    expect(block(http("github", "https://evil.example/mcp"), names)).toBeNull();
    const pinned: [Level, Record<string, unknown>] = [
      "managed",
      { allowedMcpServers: [{ serverName: "github" }, { serverCommand: ["node", "gh.js"] }, { serverUrl: "https://mcp.company.com/*" }] },
    ];
    // A stdio server named github but running something else: the list has commands, so the name does not count.
    expect(block(stdio("github", "node", ["other.js"]), pinned)).toContain("allowedMcpServers");
    expect(block(stdio("whatever", "node", ["gh.js"]), pinned)).toBeNull();
    expect(block(http("github", "https://evil.example/mcp"), pinned)).toContain("allowedMcpServers");
    expect(block(http("x", "https://mcp.company.com/v1"), pinned)).toBeNull();
  });

  test("allowManagedMcpServersOnly: only managed lists count; without it, user settings broaden the list", () => {
    const s = stdio("mine", "node");
    expect(block(s, ["managed", { allowedMcpServers: [{ serverName: "corp" }] }], ["user", { allowedMcpServers: [{ serverName: "mine" }] }])).toBeNull();
    expect(
      block(s, ["managed", { allowedMcpServers: [{ serverName: "corp" }], allowManagedMcpServersOnly: true }], ["user", { allowedMcpServers: [{ serverName: "mine" }] }]),
    ).toContain("allowedMcpServers");
  });

  test("a checkout cannot widen it: a project's or local allowlist is not read, and says so", () => {
    const layers: Array<[Level, Record<string, unknown>]> = [
      ["managed", { allowedMcpServers: [{ serverName: "corp" }] }],
      ["project", { allowedMcpServers: [{ serverName: "repo-server" }] }],
      ["local", { allowedMcpServers: [{ serverName: "repo-server" }] }],
    ];
    expect(block(stdio("repo-server", "node"), ...layers)).toContain("allowedMcpServers");
    const p = readMcpPolicy(settings(...layers));
    expect(p.problems).toEqual([
      '/project/1/settings.json: field "allowedMcpServers" is read only from user, --settings and managed settings; ignored here',
      '/local/2/settings.json: field "allowedMcpServers" is read only from user, --settings and managed settings; ignored here',
    ]);
  });
});

describe("bad input: each problem named with its file and field", () => {
  test("an allowlist that is not an array allows nothing until fixed; a bad entry is left out; a bad denylist is named", () => {
    const p = readMcpPolicy(
      settings(
        ["managed", { allowedMcpServers: { serverName: "x" } }],
        ["user", { deniedMcpServers: [{ serverName: "a", serverUrl: "https://x/*" }, { serverCommand: [] }, "b", { serverName: "ok" }] }],
      ),
    );
    expect(p.allowed).toEqual([]);
    expect(p.denied).toEqual([{ serverName: "ok" }]);
    expect(p.problems).toEqual([
      '/managed/0/settings.json: field "allowedMcpServers" must be an array; no MCP server is allowed until it is fixed',
      '/user/1/settings.json: field "deniedMcpServers[0]" must have exactly one of "serverName", "serverCommand" or "serverUrl"; the entry is left out',
      '/user/1/settings.json: field "deniedMcpServers[1]" serverCommand must be a non-empty array of strings; the entry is left out',
      '/user/1/settings.json: field "deniedMcpServers[2]" must be an object with serverName, serverCommand or serverUrl; the entry is left out',
    ]);
    expect(mcpPolicyBlock(stdio("x", "node"), p, {})).toContain("allowedMcpServers");
  });

  test("applyMcpPolicy: the blocked ones with a reason naming the server, its file and the policy's file", () => {
    const r = applyMcpPolicy([stdio("a", "node"), stdio("b", "node")], readMcpPolicy(settings(["managed", { deniedMcpServers: [{ serverName: "b" }] }])), {});
    expect(r.allowed.map((s) => s.name)).toEqual(["a"]);
    expect(r.blocked.map((b) => b.reason)).toEqual(['server "b" (/src/b) is blocked by deniedMcpServers (/managed/0/settings.json)']);
  });
});

describe("serverUrl matching (the docs' pattern table)", () => {
  const cases: Array<[pattern: string, url: string, match: boolean]> = [
    ["https://mcp.example.com/*", "https://mcp.example.com/api", true],
    ["https://mcp.example.com", "https://mcp.example.com/deep/path", true],
    ["https://mcp.example.com/", "https://mcp.example.com/api", true],
    ["https://*.example.com/*", "https://api.internal.example.com/mcp", true],
    ["https://*.example.com/*", "https://example.com.evil.test/mcp", false],
    ["http://localhost:*/*", "http://localhost:8080/mcp", true],
    ["http://localhost:*/*", "http://127.0.0.1:8080/mcp", false],
    ["*://mcp.example.com/*", "http://mcp.example.com/x", true],
    ["https://Mcp.Example.com/*", "https://mcp.example.com/api", true],
    ["https://mcp.example.com/*", "https://MCP.example.com./api", true],
    ["https://h.example.com/API/*", "https://h.example.com/api/x", false],
    ["https://h.example.com/api", "https://h.example.com/api/", true],
    ["https://h.example.com/api", "https://h.example.com/api?token=1", true],
    ["https://h.example.com/api", "https://h.example.com/api/more", false],
  ];
  for (const [pattern, url, match] of cases)
    test(`${pattern} ${match ? "matches" : "does not match"} ${url}`, () => {
      expect(urlMatches(pattern, url)).toBe(match);
    });
});

describe("how entries expand, and whose entries count for the organization's servers", () => {
  const org = (scope: "enterprise" | "managed"): ScopedServer => ({ name: "corp", scope, source: "/etc/claude-code/x", config: { type: "http", url: "https://corp.example.com/mcp" } });

  test("an allowlist command entry with ${HOME} matches the server written either way; one whose variable moves the host is left out, said", () => {
    const p = readMcpPolicy(settings(["managed", { allowedMcpServers: [{ serverCommand: ["${HOME}/bin/server"] }, { serverUrl: "https://${ORG_HOST}/*" }] }]), { HOME: "/home/u", ORG_HOST: "evil.test" });
    expect(mcpPolicyBlock(stdio("a", "/home/u/bin/server"), p, { HOME: "/home/u" })).toBeNull();
    expect(mcpPolicyBlock(stdio("b", "${HOME}/bin/server"), p, { HOME: "/home/u" })).toBeNull();
    expect(mcpPolicyBlock(stdio("c", "/other/bin/server"), p, { HOME: "/home/u" })).toContain("allowedMcpServers");
    expect(mcpPolicyBlock(http("d", "https://evil.test/mcp"), p, {})).toContain("allowedMcpServers");
    expect(p.problems).toEqual(['/managed/0/settings.json: field "allowedMcpServers" entry "https://${ORG_HOST}/*" expands to "https://evil.test/*", another scheme, host or scope; the entry is left out']);
  });

  test("a denylist entry's variable unset at start fills from user settings' env; set at start, the start-up value wins", () => {
    const layers: Array<[Level, Record<string, unknown>]> = [["user", { env: { BAD_HOST: "bad.test" } }], ["managed", { deniedMcpServers: [{ serverUrl: "https://${BAD_HOST}/*" }] }]];
    expect(mcpPolicyBlock(http("x", "https://bad.test/mcp"), readMcpPolicy(settings(...layers), {}), {})).toContain("deniedMcpServers");
    expect(mcpPolicyBlock(http("x", "https://bad.test/mcp"), readMcpPolicy(settings(...layers), { BAD_HOST: "other.test" }), {})).toBeNull();
  });

  test("a checkout's own deniedMcpServers blocks a user's server but not one the organization provides; a user's blocks both", () => {
    for (const scope of ["enterprise", "managed"] as const) {
      expect(block(org(scope), ["project", { deniedMcpServers: [{ serverName: "corp" }] }])).toBeNull();
      expect(block(org(scope), ["local", { deniedMcpServers: [{ serverUrl: "https://corp.example.com/*" }] }])).toBeNull();
      expect(block(org(scope), ["user", { deniedMcpServers: [{ serverName: "corp" }] }])).toContain("deniedMcpServers");
    }
    expect(block({ ...org("managed"), scope: "user" }, ["project", { deniedMcpServers: [{ serverName: "corp" }] }])).toContain("deniedMcpServers");
  });

  test("the organization's provided servers skip the allowlist, even an empty one; a managed-mcp.json entry with ${VAR} does not", () => {
    expect(block(org("managed"), ["managed", { allowedMcpServers: [] }])).toBeNull();
    expect(block(org("enterprise"), ["managed", { allowedMcpServers: [] }])).toBeNull();
    expect(block({ ...org("enterprise"), config: { type: "http", url: "https://${H}/mcp" } }, ["managed", { allowedMcpServers: [] }])).toContain("allowedMcpServers");
  });
});
