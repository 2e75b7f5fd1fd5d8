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
  test("bad entries are problems naming file and field; the good ones stay", () => {
    const r = of([42, { bad: { type: "ftp" } }, { nocmd: {} }, { sdk: { type: "sdk" } }, "ok"]);
    expect(r.entries.map((e) => e.kind)).toEqual(["ref"]);
    expect(r.problems).toEqual([
      '/p/.claude/agents/a.md: field "mcpServers[0]" must be a server name or {name: {command|url ...}} (got 42)',
      '/p/.claude/agents/a.md: field "mcpServers.bad": field "type": must be one of stdio, http, sse (got "ftp")',
      expect.stringContaining('/p/.claude/agents/a.md: field "mcpServers.nocmd": field "command"'),
      '/p/.claude/agents/a.md: field "mcpServers.sdk": an SDK server cannot be defined in an agent file',
    ]);
  });
  test("a lone name string counts as one reference", () => {
    expect(of("github").entries).toEqual([{ kind: "ref", name: "github" }]);
  });
});
