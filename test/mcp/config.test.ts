// Issue 13 point 1: MCP config parsing, variable expansion, approval and names, as pure functions.
import { describe, expect, test } from "bun:test";
import { expandServer, expandVars, mcpToolName, mergeScopes, parseServerConfig, projectServerApproval, serversFrom } from "../../src/mcp/config.ts";

describe("parseServerConfig (contracts §6.6)", () => {
  test("stdio without a type, http and sse with url; a url alone means http", () => {
    expect(parseServerConfig({ command: "node", args: ["s.js"] })).toMatchObject({ command: "node", args: ["s.js"] });
    expect(parseServerConfig({ type: "http", url: "http://127.0.0.1:1/mcp", headers: { A: "b" } })).toMatchObject({ type: "http" });
    expect(parseServerConfig({ type: "sse", url: "http://127.0.0.1:1/sse" })).toMatchObject({ type: "sse" });
    expect(parseServerConfig({ url: "http://127.0.0.1:1/mcp" })).toMatchObject({ type: "http" });
    expect(parseServerConfig({ type: "streamable-http", url: "http://x/" })).toMatchObject({ type: "http" });
  });
  test("bad entries name the field", () => {
    expect(parseServerConfig({ type: "http" })).toContain('field "url"');
    expect(parseServerConfig({ command: 3 })).toContain('field "command"');
    expect(parseServerConfig({ command: "x", args: "a b" })).toContain('field "args"');
    expect(parseServerConfig({ type: "ws", url: "x" })).toContain('field "type"');
    expect(parseServerConfig([])).toBe("must be an object");
    expect(parseServerConfig({ command: "x", env: { A: 1 } })).toContain('field "env.A"');
  });
  test("serversFrom keeps a broken entry as a problem naming file and server", () => {
    const s = serversFrom({ mcpServers: { ok: { command: "a" }, bad: { type: "sse" } } }, "project", "/p/.mcp.json");
    expect(s.map((x) => [x.name, x.problem])).toEqual([
      ["ok", undefined],
      ["bad", '/p/.mcp.json: mcpServers.bad: field "url": Invalid input: expected string, received undefined'],
    ]);
    expect(serversFrom({ mcpServers: [] }, "user", "f")[0]!.problem).toContain('"mcpServers" must be an object');
    expect(serversFrom({}, "user", "f")).toEqual([]);
  });
});

describe("${VAR} expansion", () => {
  test("set, default, empty default, missing, and nested text", () => {
    const missing = new Set<string>();
    const env = { A: "1", EMPTY: "" };
    expect(expandVars("x${A}y", env, missing)).toBe("x1y");
    expect(expandVars("${B:-two}", env, missing)).toBe("two");
    expect(expandVars("${B:-}", env, missing)).toBe("");
    expect(expandVars("${EMPTY:-d}", env, missing)).toBe("d");
    expect(expandVars("$A and ${C}", env, missing)).toBe("$A and ${C}");
    expect([...missing]).toEqual(["C"]);
  });
  test("command, args, env, url and headers are expanded; missing names collected", () => {
    const env = { TOKEN: "t0k", HOSTX: "h" };
    expect(expandServer({ command: "${BIN:-node}", args: ["--k=${TOKEN}"], env: { K: "${TOKEN}" } }, env).config).toEqual({
      command: "node",
      args: ["--k=t0k"],
      env: { K: "t0k" },
      cwd: undefined,
    });
    const r = expandServer({ type: "http", url: "http://${HOSTX}/${P}", headers: { Authorization: "Bearer ${TOKEN}", X: "${Q}" } }, env);
    expect(r.config).toMatchObject({ url: "http://h/${P}", headers: { Authorization: "Bearer t0k" } });
    expect(r.missing.sort()).toEqual(["P", "Q"]);
  });
});

test("project approval: disabled wins, then enable-all or the enabled list", () => {
  expect(projectServerApproval("a", [])).toBe("unapproved");
  expect(projectServerApproval("a", [{ enabledMcpjsonServers: ["a"] }])).toBe("approved");
  expect(projectServerApproval("a", [{ enableAllProjectMcpServers: true }])).toBe("approved");
  expect(projectServerApproval("a", [{ enableAllProjectMcpServers: true }, { disabledMcpjsonServers: ["a"] }])).toBe("rejected");
  expect(projectServerApproval("a", [{ enableAllProjectMcpServers: false, enabledMcpjsonServers: ["b"] }])).toBe("unapproved");
});

test("names: characters outside A-Za-z0-9_- become _ (server and tool)", () => {
  expect(mcpToolName("github", "create_issue")).toBe("mcp__github__create_issue");
  expect(mcpToolName("my server.v2", "do.it")).toBe("mcp__my_server_v2__do_it");
  expect(mcpToolName("plugin:p:s", "t")).toBe("mcp__plugin_p_s__t");
});

test("mergeScopes: a later scope's server of the same name wins", () => {
  const m = mergeScopes([
    [{ name: "a", scope: "user", source: "u", config: { command: "u" } }],
    [{ name: "a", scope: "local", source: "l", config: { command: "l" } }, { name: "b", scope: "local", source: "l", config: { command: "b" } }],
  ]);
  expect(m.map((s) => `${s.name}:${s.scope}`)).toEqual(["a:local", "b:local"]);
});
