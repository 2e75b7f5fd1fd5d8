// Issue 14's loose ends on MCP policy, in the compiled binary against the fake API:
//  - managed-mcp.json (contracts §2.1: it sits in the managed settings folder beside managed-settings.json; Claude Code's
//    "Control MCP server access" docs, "Exclusive control with managed-mcp.json"): its servers are the only ones;
//    user, project, local and plugin servers and agents' own never start; --mcp-config and --strict-mcp-config end the
//    run at startup with Claude Code's words; `yoke mcp add` is refused; deniedMcpServers still applies, and
//    allowedMcpServers only to a server whose definition uses ${VAR}; a broken file starts nothing, said naming it.
//  - an agent's frontmatter mcpServers under managed strictPluginOnlyCustomization locking "mcp" (observed in 2.1.332:
//    its agent start skips every frontmatter server, named or inline, of an agent that is not built in or a plugin's,
//    "blocked by strictPluginOnlyCustomization"; managed-mcp.json skips every agent's).
// Each server is the probe fixture, which logs one line per process it starts.
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot, runYoke, yokeBin } from "../helpers/binary.ts";
import { tempDir, writeTree } from "../helpers/tmp.ts";
import { project, runWith, say } from "./hooks-helpers.ts";
import { call, toolNames } from "./mcp-helpers.ts";

setDefaultTimeout(90_000);
beforeAll(() => void yokeBin());

const PROBE = join(repoRoot(), "test", "fixtures", "mcp", "probe-server.mjs");
const TINY = join(repoRoot(), "test", "fixtures", "mcp", "tiny-server.mjs");
const json = ["--output-format", "stream-json", "--verbose"];
const initOf = (lines: any[] | undefined) => lines?.find((l) => l.subtype === "init");
const REFUSED = "You cannot dynamically configure MCP servers when an enterprise MCP config is present";

/**
 * A trusted project whose .mcp.json server is approved, a user server in ~/.claude/.claude.json, a plugin with a
 * server, and a managed folder (YOKE_MANAGED_DIR) with `managed` as managed-mcp.json (a string: written as it is).
 */
function setup(managed: unknown, managedSettings?: Record<string, unknown>) {
  const cwd = project({});
  const logs = tempDir("yoke-mmcp-logs-");
  const home = tempDir("yoke-mmcp-home-");
  const probe = (file: string) => ({ command: "node", args: [PROBE, join(logs, file)] });
  writeFileSync(join(cwd, ".mcp.json"), JSON.stringify({ mcpServers: { proj: probe("project.jsonl") } }));
  writeFileSync(join(cwd, ".claude", "settings.local.json"), JSON.stringify({ enableAllProjectMcpServers: true }));
  mkdirSync(join(home, ".claude"), { recursive: true });
  writeFileSync(join(home, ".claude", ".claude.json"), JSON.stringify({ mcpServers: { mine: probe("user.jsonl") } }));
  const plug = tempDir("yoke-mmcp-plug-");
  writeTree(plug, {
    ".claude-plugin/plugin.json": JSON.stringify({ name: "kit" }),
    ".mcp.json": JSON.stringify({ mcpServers: { kitsrv: probe("plugin.jsonl") } }),
  });
  const dir = tempDir("yoke-mmcp-managed-");
  if (managed !== undefined) writeFileSync(join(dir, "managed-mcp.json"), typeof managed === "string" ? managed : JSON.stringify(managed));
  if (managedSettings) writeFileSync(join(dir, "managed-settings.json"), JSON.stringify(managedSettings));
  const env = { HOME: home, YOKE_MANAGED_DIR: dir };
  const run = (args: string[] = [], format = json) => runWith(cwd, [say("ok")], [...format, "--plugin-dir", plug, ...args], { env });
  const count = (f: string) => (existsSync(join(logs, f)) ? readFileSync(join(logs, f), "utf8").trim().split("\n").length : 0);
  return { cwd, home, dir, env, run, count, probe };
}

describe("managed-mcp.json: exclusive control", () => {
  test("its servers only: the project's, the user's and the plugin's never start and are not listed", async () => {
    const s = setup(undefined);
    writeFileSync(join(s.dir, "managed-mcp.json"), JSON.stringify({ mcpServers: { corp: s.probe("managed.jsonl") } }));
    const r = await s.run();
    expect(r.code).toBe(0);
    expect(s.count("managed.jsonl")).toBe(1);
    for (const f of ["project.jsonl", "user.jsonl", "plugin.jsonl"]) expect({ f, n: s.count(f) }).toEqual({ f, n: 0 });
    expect(initOf(r.lines).mcp_servers).toEqual([{ name: "corp", status: "connected" }]);
    expect(initOf(r.lines).tools).toContain("mcp__corp__ping");
  });

  test("without the file (the control): all four start", async () => {
    const s = setup(undefined);
    const r = await s.run();
    expect(r.code).toBe(0);
    for (const f of ["project.jsonl", "user.jsonl", "plugin.jsonl"]) expect({ f, n: s.count(f) }).toEqual({ f, n: 1 });
  });

  test('{"mcpServers": {}} turns MCP off', async () => {
    const s = setup({ mcpServers: {} });
    const r = await s.run();
    expect(r.code).toBe(0);
    for (const f of ["project.jsonl", "user.jsonl", "plugin.jsonl"]) expect({ f, n: s.count(f) }).toEqual({ f, n: 0 });
    expect(initOf(r.lines).mcp_servers).toEqual([]);
  });

  const refused: Array<[string, string[]]> = [
    ["--mcp-config JSON", ["--mcp-config", JSON.stringify({ mcpServers: { extra: { command: "node", args: [PROBE, "/dev/null"] } } })]],
    ["--strict-mcp-config alone", ["--strict-mcp-config"]],
    ["--bare with --mcp-config", ["--bare", "--mcp-config", JSON.stringify({ mcpServers: {} })]],
  ];
  for (const [name, args] of refused)
    test(`${name}: the run ends at startup with Claude Code's words, naming the file; nothing starts`, async () => {
      const s = setup(undefined);
      writeFileSync(join(s.dir, "managed-mcp.json"), JSON.stringify({ mcpServers: { corp: s.probe("managed.jsonl") } }));
      const r = await s.run(args, []);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(REFUSED);
      expect(r.stderr).toContain(join(s.dir, "managed-mcp.json"));
      expect(r.requests).toHaveLength(0);
      for (const f of ["managed.jsonl", "project.jsonl", "user.jsonl", "plugin.jsonl"]) expect({ f, n: s.count(f) }).toEqual({ f, n: 0 });
    });

  test("a file that does not parse: no server starts, the file and line are said, the run goes on", async () => {
    const s = setup('{\n  "mcpServers": {\n    "corp": { "command": "node" \n');
    const r = await s.run();
    expect(r.code).toBe(0);
    for (const f of ["project.jsonl", "user.jsonl", "plugin.jsonl"]) expect({ f, n: s.count(f) }).toEqual({ f, n: 0 });
    expect(r.stderr).toContain(join(s.dir, "managed-mcp.json"));
    expect(r.stderr).toMatch(/managed-mcp\.json:\d+:\d+: invalid JSON/);
    expect(initOf(r.lines).mcp_servers).toEqual([{ name: "(managed-mcp.json)", status: "failed" }]);
  });

  test("deniedMcpServers (a user's own) blocks a managed server; allowedMcpServers does not, unless ${VAR} is in its definition", async () => {
    const s = setup(undefined, { allowManagedMcpServersOnly: true, allowedMcpServers: [{ serverName: "nothing-here" }] });
    const logs = tempDir("yoke-mmcp-var-");
    writeFileSync(
      join(s.dir, "managed-mcp.json"),
      JSON.stringify({
        mcpServers: {
          plain: s.probe("managed.jsonl"),
          denied: s.probe("denied.jsonl"),
          withvar: { command: "node", args: [PROBE, "${MMCP_LOGS}/var.jsonl"] },
        },
      }),
    );
    writeFileSync(join(s.home, ".claude", "settings.json"), JSON.stringify({ deniedMcpServers: [{ serverName: "denied" }], env: { MMCP_LOGS: logs } }));
    const r = await s.run();
    expect(r.code).toBe(0);
    expect(s.count("managed.jsonl")).toBe(1);
    expect(s.count("denied.jsonl")).toBe(0);
    expect(existsSync(join(logs, "var.jsonl"))).toBe(false);
    const byName = Object.fromEntries((initOf(r.lines).mcp_servers as Array<{ name: string; status: string }>).map((x) => [x.name, x.status]));
    // Kept off by policy: not listed at all, as Claude Code 2.1.332 leaves them out of system/init; said on stderr.
    expect(byName).toEqual({ plain: "connected" });
    expect(r.stderr).toContain('server "denied"');
    expect(r.stderr).toContain('server "withvar"');
  });

  test("yoke mcp add and add-json are refused with Claude Code's words; nothing is written", async () => {
    const s = setup({ mcpServers: {} });
    for (const args of [
      ["mcp", "add", "-s", "user", "mine2", "--", "node", "x.js"],
      ["mcp", "add", "-t", "http", "test", "https://example.com/mcp"],
      ["mcp", "add-json", "-s", "project", "j", JSON.stringify({ command: "node" })],
    ]) {
      const r = await runYoke(args, { cwd: s.cwd, env: s.env });
      expect({ args, code: r.code }).toEqual({ args, code: 1 });
      expect(r.stderr).toContain("Cannot add MCP server: enterprise MCP configuration is active and has exclusive control over MCP servers");
    }
    expect(existsSync(join(s.home, ".yoke", "mcp.json"))).toBe(false);
    expect(JSON.parse(readFileSync(join(s.cwd, ".mcp.json"), "utf8")).mcpServers).toEqual({ proj: s.probe("project.jsonl") });
  });

  test("yoke mcp list shows the managed servers only", async () => {
    const s = setup(undefined);
    writeFileSync(join(s.dir, "managed-mcp.json"), JSON.stringify({ mcpServers: { corp: s.probe("managed.jsonl") } }));
    const r = await runYoke(["mcp", "list", "--json"], { cwd: s.cwd, env: s.env });
    expect(r.code).toBe(0);
    const rows = JSON.parse(r.stdout) as Array<{ name: string; scope: string }>;
    expect(rows.map((x) => [x.name, x.scope])).toEqual([["corp", "enterprise"]]);
  });
});

// Agents: the subagent's requests show whether its own servers' tools joined; a pid file whether its server started.
const agentCall = (type: string) => call("Agent", { description: "Add numbers", prompt: "add 2 and 3", subagent_type: type });
const agentFile = (name: string, mcp: string) => `---\nname: ${name}\ndescription: Adds numbers\nmcpServers:\n${mcp}---\n${name.toUpperCase()}-PROMPT\n`;
const inline = (server: string, pidFile: string) => `  - ${server}:\n      command: sh\n      args: ["-c", "echo $$ > ${pidFile}; exec node ${TINY} ok"]\n`;

describe("an agent's frontmatter mcpServers under managed policy", () => {
  /** A trusted project whose agent `calc` has an inline server and names the session's approved server `proj`. */
  const agentSetup = (managedSettings: Record<string, unknown> | null, managedMcp?: unknown) => {
    const cwd = project({});
    const home = tempDir("yoke-mmcp-ahome-");
    const dir = tempDir("yoke-mmcp-amanaged-");
    const pidFile = join(cwd, "calc.pid");
    writeFileSync(join(cwd, ".mcp.json"), JSON.stringify({ mcpServers: { proj: { command: "node", args: [TINY, "ok"] } } }));
    writeFileSync(join(cwd, ".claude", "settings.local.json"), JSON.stringify({ enableAllProjectMcpServers: true }));
    const file = join(cwd, ".claude/agents/calc.md");
    writeTree(cwd, { ".claude/agents/calc.md": agentFile("calc", `${inline("calc", pidFile)}  - proj\n`) });
    if (managedSettings) writeFileSync(join(dir, "managed-settings.json"), JSON.stringify(managedSettings));
    if (managedMcp !== undefined) writeFileSync(join(dir, "managed-mcp.json"), JSON.stringify(managedMcp));
    const run = (args: string[] = []) => runWith(cwd, [agentCall("calc"), say("sub done"), say("done")], args, { env: { HOME: home, YOKE_MANAGED_DIR: dir } });
    return { cwd, home, file, pidFile, run };
  };

  // (`true` locks the agents surface too: a project agent is not even loaded.)
  for (const value of [["mcp"], ["skills", "mcp"]] as unknown[])
    test(`strictPluginOnlyCustomization ${JSON.stringify(value)}: a project agent's inline and named servers are left out, said naming the file; the agent still runs`, async () => {
      const s = agentSetup({ strictPluginOnlyCustomization: value });
      const r = await s.run(["--output-format", "json"]);
      expect(r.code).toBe(0);
      expect(r.json.result).toBe("done");
      expect(existsSync(s.pidFile)).toBe(false);
      const sub = toolNames(r.requests[1]!);
      expect(sub.filter((n) => n.startsWith("mcp__calc__") || n.startsWith("mcp__proj__"))).toEqual([]);
      expect(r.stderr).toContain(`${s.file}: its MCP servers (frontmatter mcpServers) are not started: managed strictPluginOnlyCustomization`);
      expect(r.stderr).toContain("(agent source: project)");
    });

  test("the same for a personal agent and an --agents one (neither is the organization's); without the lock both start", async () => {
    for (const where of ["user", "flag"] as const)
      for (const locked of [false, true]) {
        const cwd = project({});
        const home = tempDir("yoke-mmcp-ahome-");
        const dir = tempDir("yoke-mmcp-lock-");
        if (locked) writeFileSync(join(dir, "managed-settings.json"), JSON.stringify({ strictPluginOnlyCustomization: ["mcp"] }));
        const pidFile = join(cwd, "mine.pid");
        const server = { command: "sh", args: ["-c", `echo $$ > ${pidFile}; exec node ${TINY} ok`] };
        if (where === "user") writeTree(home, { ".claude/agents/mine.md": agentFile("mine", inline("mine", pidFile)) });
        const args = where === "flag" ? ["--agents", JSON.stringify({ mine: { description: "Adds numbers", prompt: "MINE-PROMPT", mcpServers: [{ mine: server }] } })] : [];
        const r = await runWith(cwd, [agentCall("mine"), say("sub done"), say("done")], ["--output-format", "json", ...args], { env: { HOME: home, YOKE_MANAGED_DIR: dir } });
        expect({ where, locked, code: r.code, result: r.json?.result }).toEqual({ where, locked, code: 0, result: "done" });
        expect({ where, locked, started: existsSync(pidFile) }).toEqual({ where, locked, started: !locked });
        if (locked) expect(r.stderr).toContain(`(agent source: ${where})`);
      }
  });

  test('strictPluginOnlyCustomization ["skills"] (the control): the agent\'s servers start', async () => {
    const s = agentSetup({ strictPluginOnlyCustomization: ["skills"] });
    const r = await s.run();
    expect(r.code).toBe(0);
    expect(existsSync(s.pidFile)).toBe(true);
    expect(toolNames(r.requests[1]!)).toContain("mcp__calc__add");
  });

  test("managed-mcp.json: no agent's own server starts, said naming the file", async () => {
    const s = agentSetup(null, { mcpServers: {} });
    const r = await s.run(["--output-format", "json"]);
    expect(r.code).toBe(0);
    expect(r.json.result).toBe("done");
    expect(existsSync(s.pidFile)).toBe(false);
    expect(r.stderr).toContain(`${s.file}: its MCP servers (frontmatter mcpServers) are not started: managed-mcp.json`);
  });
});
