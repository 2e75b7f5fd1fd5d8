// Issue 14 review point 1: an agent's own MCP servers (frontmatter `mcpServers`, contracts §6.4; Claude Code's
// sub-agents docs, "Scope MCP servers to a subagent"), in the compiled binary against the fake API.
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { toolResultsOf } from "../helpers/fake-anthropic.ts";
import { repoRoot, yokeBin } from "../helpers/binary.ts";
import { alive } from "../helpers/process-alive.ts";
import { writeTree } from "../helpers/tmp.ts";
import { project, runWith, say } from "./hooks-helpers.ts";
import { call, toolNames } from "./mcp-helpers.ts";

setDefaultTimeout(60_000);
beforeAll(() => void yokeBin());

const TINY = join(repoRoot(), "test", "fixtures", "mcp", "tiny-server.mjs");
const agentCall = (type: string) => call("Agent", { description: "Add numbers", prompt: "add 2 and 3", subagent_type: type });
/** An agent file whose frontmatter `mcpServers` is the given YAML block. */
const agentFile = (name: string, mcp: string, more = "") => `---\nname: ${name}\ndescription: Adds numbers\n${more}mcpServers:\n${mcp}---\n${name.toUpperCase()}-PROMPT\n`;
/** A server that writes its pid to `pidFile` and then is the tiny fixture server (exec keeps the pid). */
const inline = (server: string, pidFile: string) =>
  `  - ${server}:\n      command: sh\n      args: ["-c", "echo $$ > ${pidFile}; exec node ${TINY} ok"]\n`;

describe("inline servers in an agent's frontmatter", () => {
  test("start for the agent's run: its requests offer mcp__calc__add, the call works; the parent never sees the tool; the server is gone after", async () => {
    const cwd = project();
    const pidFile = join(cwd, "calc.pid");
    writeTree(cwd, { ".claude/agents/calc.md": agentFile("calc", inline("calc", pidFile)) });
    let aliveAfter: boolean | undefined;
    const r = await runWith(
      cwd,
      [
        agentCall("calc"),
        call("mcp__calc__add", { a: 2, b: 3 }),
        say("it is 5"),
        () => {
          // The parent's next request: the agent has finished, so its server must have stopped.
          aliveAfter = alive(Number(readFileSync(pidFile, "utf8").trim()));
          return say("the agent says 5");
        },
      ],
      ["--output-format", "json"],
    );
    expect(r.code).toBe(0);
    expect(r.json.result).toBe("the agent says 5");
    expect(toolNames(r.requests[0]!)).not.toContain("mcp__calc__add");
    expect(toolNames(r.requests[1]!)).toContain("mcp__calc__add");
    expect(toolResultsOf(r.requests[2]!)[0]).toMatchObject({ is_error: false, text: "5" });
    expect(toolNames(r.requests[3]!)).not.toContain("mcp__calc__add");
    expect(aliveAfter).toBe(false);
  });

  test("the agent's own server tools are its even when its `tools` list names only built-ins", async () => {
    const cwd = project();
    writeTree(cwd, { ".claude/agents/calc.md": agentFile("calc", inline("calc", join(cwd, "p")), "tools: Read\n") });
    const r = await runWith(cwd, [agentCall("calc"), say("sub done"), say("done")], []);
    expect(toolNames(r.requests[1]!).sort()).toEqual(["Read", "mcp__calc__add", "mcp__calc__crash", "mcp__calc__grow"]);
  });

  test("a map (as in .mcp.json) works too; a bad entry and a server that fails are each named, and the agent still runs", async () => {
    const cwd = project();
    writeTree(cwd, {
      ".claude/agents/calc.md": agentFile(
        "calc",
        `  calc:\n    command: node\n    args: ["${TINY}", "ok"]\n  broken:\n    type: ftp\n  dead:\n    command: node\n    args: ["${TINY}", "exit"]\n`,
      ),
    });
    const r = await runWith(cwd, [agentCall("calc"), say("sub done"), say("done")], ["--output-format", "json"]);
    expect(r.json.result).toBe("done");
    expect(toolNames(r.requests[1]!)).toContain("mcp__calc__add");
    const file = join(cwd, ".claude/agents/calc.md");
    expect(r.stderr).toContain(`${file}: field "mcpServers.broken": field "type": must be one of stdio, http, sse`);
    expect(r.stderr).toContain(`${file}: MCP server "dead" failed to connect`);
  });

  test("an untrusted checkout's agent starts none of its servers, and says so naming the file", async () => {
    const cwd = project();
    const pidFile = join(cwd, "never.pid");
    writeTree(cwd, { ".claude/agents/calc.md": agentFile("calc", inline("calc", pidFile)) });
    const r = await runWith(cwd, [agentCall("calc"), say("sub done"), say("done")], [], { env: { YOKE_TRUST_WORKSPACE: undefined } });
    // The agent runs (agent files are not settings), without its servers.
    expect(r.requests).toHaveLength(3);
    expect(r.requests.flatMap((q) => toolNames(q))).not.toContain("mcp__calc__add");
    expect(() => readFileSync(pidFile)).toThrow();
    expect(r.stderr).toContain(`${join(cwd, ".claude/agents/calc.md")}: its MCP servers "calc" are not started: this folder is not trusted yet (yoke trust)`);
  });

  test("--strict-mcp-config keeps a project agent's inline servers off", async () => {
    const cwd = project();
    const pidFile = join(cwd, "never.pid");
    writeTree(cwd, { ".claude/agents/calc.md": agentFile("calc", inline("calc", pidFile)) });
    const r = await runWith(cwd, [agentCall("calc"), say("sub done"), say("done")], ["--strict-mcp-config"]);
    expect(toolNames(r.requests[1]!)).not.toContain("mcp__calc__add");
    expect(r.stderr).toContain("--strict-mcp-config is set");
  });
});

describe("server names in an agent's mcpServers", () => {
  test("a configured server's tools join an agent whose `tools` leaves them out; an unknown name is said once, naming the file", async () => {
    const cwd = project();
    writeTree(cwd, {
      ".claude/agents/calc.md": agentFile("calc", "  - shared\n  - nowhere\n", "tools: Read\n"),
      "servers.json": JSON.stringify({ mcpServers: { shared: { command: "node", args: [TINY, "ok"] } } }),
    });
    const r = await runWith(cwd, [agentCall("calc"), say("sub done"), say("done")], ["--mcp-config", join(cwd, "servers.json")]);
    expect(toolNames(r.requests[1]!)).toContain("mcp__shared__add");
    expect(r.stderr).toContain(`${join(cwd, ".claude/agents/calc.md")}: mcpServers names "nowhere"`);
  });
});

describe("--agent runs the main conversation as an agent with its own servers", () => {
  test("its inline servers connect at startup: the main requests offer their tools and a call works", async () => {
    const cwd = project();
    writeTree(cwd, { ".claude/agents/calc.md": agentFile("calc", inline("calc", join(cwd, "p"))) });
    const r = await runWith(cwd, [call("mcp__calc__add", { a: 4, b: 5 }), say("nine")], ["--agent", "calc", "--output-format", "json"]);
    expect(r.json.result).toBe("nine");
    expect(toolNames(r.requests[0]!)).toContain("mcp__calc__add");
    expect(toolResultsOf(r.requests[1]!)[0]).toMatchObject({ is_error: false, text: "9" });
  });
});
