import { describe, expect, test } from "bun:test";
import { agentServerEntries } from "../../src/mcp/agent-servers.ts";

const of = (mcpServers: unknown) => agentServerEntries({ name: "a", file: "/p/.claude/agents/a.md", mcpServers });

describe("agentServerEntries: an agent's mcpServers frontmatter (contracts §6.4)", () => {
  test("a list of names and {name: config} objects, in order", () => {
    const r = of(["github", { pw: { type: "stdio", command: "npx", args: ["-y", "x"] } }, { web: { type: "http", url: "https://h/mcp" } }]);
    expect(r.problems).toEqual([]);
    expect(r.entries.map((e) => (e.kind === "ref" ? `ref:${e.name}` : `inline:${e.server.name}:${e.server.config.type ?? "stdio"}`))).toEqual([
      "ref:github",
      "inline:pw:stdio",
      "inline:web:http",
    ]);
  });
  test("a map as in .mcp.json; a command without type is stdio", () => {
    const r = of({ calc: { command: "node", args: ["s.mjs"] } });
    expect(r.entries).toHaveLength(1);
    expect(r.entries[0]).toMatchObject({ kind: "inline", server: { name: "calc", scope: "dynamic", source: "/p/.claude/agents/a.md" } });
  });
  test("bad entries carry problems naming file and field (kept as written, for policy to judge first); the good ones stay", () => {
    const r = of([42, { bad: { type: "ftp" } }, { nocmd: {} }, { sdk: { type: "sdk" } }, "ok"]);
    expect(r.entries.map((e) => e.kind)).toEqual(["inline", "inline", "inline", "ref"]);
    expect(r.problems).toEqual(['/p/.claude/agents/a.md: field "mcpServers[0]" must be a server name or {name: {command|url ...}} (got 42)']);
    expect(r.entries.flatMap((e) => (e.kind === "inline" ? [e.server.problem] : []))).toEqual([
      '/p/.claude/agents/a.md: field "mcpServers.bad": field "type": must be one of stdio, http, sse (got "ftp")',
      expect.stringContaining('/p/.claude/agents/a.md: field "mcpServers.nocmd": field "command"'),
      '/p/.claude/agents/a.md: field "mcpServers.sdk": an SDK server cannot be defined in an agent file',
    ]);
    expect(r.entries[0]).toMatchObject({ server: { name: "bad", written: { type: "ftp" } } });
  });
  test("a lone name string counts as one reference", () => {
    expect(of("github").entries).toEqual([{ kind: "ref", name: "github" }]);
  });
});

describe("startAgentServers: policy decides first", () => {
  test("a broken inline entry that policy blocks is said to be blocked; one it does not block, broken", async () => {
    const { startAgentServers } = await import("../../src/mcp/agent-servers.ts");
    const { mcpPolicyBlock, readMcpPolicy } = await import("../../src/mcp/policy.ts");
    const policy = readMcpPolicy({ sources: [{ level: "managed", path: "/managed/settings.json", ruleRoot: "/", settings: { deniedMcpServers: [{ serverName: "evil" }, { serverCommand: ["evilcmd", "-x"] }] } as never }] }, {});
    const warned: string[] = [];
    const agent = { name: "a", file: "/p/.claude/agents/a.md", mcpServers: [{ evil: { type: "ftp" } }, { cmd: { command: "evilcmd", args: ["-x"], env: "nope" } }, { broken: { command: 42 } }] };
    const r = await startAgentServers(agent as never, {
      cwd: "/",
      env: {},
      version: "0",
      mayStartInline: () => true,
      sessionTools: () => ({ list: () => [] }) as never,
      policyBlock: (s) => mcpPolicyBlock(s, policy, {}),
      warn: (m) => void warned.push(m),
    });
    expect(r).toBeUndefined();
    expect(warned).toEqual([
      expect.stringMatching(/^\/p\/\.claude\/agents\/a\.md: MCP server "evil" is blocked by deniedMcpServers/),
      expect.stringMatching(/^\/p\/\.claude\/agents\/a\.md: MCP server "cmd" is blocked by deniedMcpServers/),
      expect.stringContaining('field "mcpServers.broken": field "command"'),
    ]);
  });
});
