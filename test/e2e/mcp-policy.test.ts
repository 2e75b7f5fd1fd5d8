// The organization's MCP policy, allowedMcpServers / deniedMcpServers in managed settings (contracts §2.2; Claude
// Code's "Control MCP server access" docs and its settings schema, observed in 2.1.332), in the compiled binary
// against the fake API: it holds for plugin-provided servers, --mcp-config servers and an agent's inline servers,
// and a refused server is never spawned.
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { toolResultsOf } from "../helpers/fake-anthropic.ts";
import { isolatedEnv, repoRoot, runYoke, TRUST_WORKSPACE, yokeBin } from "../helpers/binary.ts";
import { tempDir, writeTree } from "../helpers/tmp.ts";
import { project, runWith, say } from "./hooks-helpers.ts";
import { call, toolNames } from "./mcp-helpers.ts";

setDefaultTimeout(60_000);
beforeAll(() => void yokeBin());

const TINY = join(repoRoot(), "test", "fixtures", "mcp", "tiny-server.mjs");

/** A managed policy folder (YOKE_MANAGED_DIR, `/etc/claude-code` by default) holding these managed settings. */
function managed(settings: Record<string, unknown>): string {
  const dir = tempDir("yoke-managed-");
  writeFileSync(join(dir, "managed-settings.json"), JSON.stringify(settings, null, 2));
  return dir;
}

/**
 * A Claude Code plugin `kit` with two servers: `calc` (the tiny server copied into the plugin, started as
 * `node ${CLAUDE_PLUGIN_ROOT}/server.mjs ok`) and `other`; each notes its start in `<cwd>/<name>.started`.
 */
function kit(cwd: string): string {
  const plug = tempDir("yoke-kit-");
  mkdirSync(plug, { recursive: true });
  copyFileSync(TINY, join(plug, "server.mjs"));
  const noted = (name: string) => ({ command: "sh", args: ["-c", `echo started >> ${join(cwd, `${name}.started`)}; exec node ${TINY} ok`] });
  writeTree(plug, {
    ".claude-plugin/plugin.json": JSON.stringify({ name: "kit" }),
    ".mcp.json": JSON.stringify({ calc: { command: "node", args: ["${CLAUDE_PLUGIN_ROOT}/server.mjs", "ok"] }, other: noted("other") }),
    "side.json": JSON.stringify({ mcpServers: { side: noted("side") } }),
  });
  return plug;
}

const initOf = (lines: any[]) => lines.find((l) => l.subtype === "init");

describe("deniedMcpServers", () => {
  test("a plugin's server and a --mcp-config server it names are never spawned, are not listed (as in 2.1.332) and are said once each; the rest runs", async () => {
    const cwd = project();
    const plug = kit(cwd);
    const policy = managed({ deniedMcpServers: [{ serverName: "other" }, { serverName: "side" }] });
    const r = await runWith(
      cwd,
      [call("mcp__plugin_kit_calc__add", { a: 2, b: 2 }), say("four")],
      ["--plugin-dir", plug, "--mcp-config", join(plug, "side.json"), "--output-format", "stream-json", "--verbose"],
      { env: { YOKE_MANAGED_DIR: policy } },
    );
    expect(r.code).toBe(0);
    const tools = toolNames(r.requests[0]!);
    expect(tools).toContain("mcp__plugin_kit_calc__add");
    expect(tools.some((t) => t.startsWith("mcp__plugin_kit_other__") || t.startsWith("mcp__side__"))).toBe(false);
    expect(toolResultsOf(r.requests[1]!)[0]).toMatchObject({ is_error: false, text: "4" });
    expect(existsSync(join(cwd, "other.started"))).toBe(false);
    expect(existsSync(join(cwd, "side.started"))).toBe(false);
    // Observed in Claude Code 2.1.332: a server policy blocks is left out of system/init's mcp_servers altogether.
    expect(initOf(r.lines!).mcp_servers).toEqual([{ name: "plugin:kit:calc", status: "connected" }]);
    const said = r.stderr.split("\n").filter((l) => l.includes("deniedMcpServers"));
    expect(said).toHaveLength(2);
    expect(said.find((l) => l.includes('"plugin:kit:other"'))).toContain(join(policy, "managed-settings.json"));
    expect(said.find((l) => l.includes('"side"'))).toContain(join(plug, "side.json"));
  });

  test("yoke plugins list shows the refused server with why", async () => {
    const cwd = project();
    const plug = kit(cwd);
    const policy = managed({ deniedMcpServers: [{ serverName: "other" }] });
    const r = await runYoke(["plugins", "list", "--plugin-dir", plug], { cwd, env: isolatedEnv({ ...TRUST_WORKSPACE, YOKE_MANAGED_DIR: policy }) });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("plugin:kit:other (disabled)");
    expect(r.stdout).toContain("blocked by deniedMcpServers");
    expect(existsSync(join(cwd, "other.started"))).toBe(false);
  });

  test("an agent's inline server it names does not start; the agent runs without it, and the file is named", async () => {
    const cwd = project();
    const policy = managed({ deniedMcpServers: [{ serverName: "calc" }] });
    writeTree(cwd, {
      ".claude/agents/adder.md": `---\nname: adder\ndescription: Adds numbers\nmcpServers:\n  - calc:\n      command: sh\n      args: ["-c", "echo started >> ${join(cwd, "calc.started")}; exec node ${TINY} ok"]\n---\nADDER-PROMPT\n`,
    });
    const r = await runWith(
      cwd,
      [call("Agent", { description: "Add numbers", prompt: "add 2 and 3", subagent_type: "adder" }), say("no tool here"), say("done")],
      ["--output-format", "json"],
      { env: { YOKE_MANAGED_DIR: policy } },
    );
    expect(r.code).toBe(0);
    expect(toolNames(r.requests[1]!)).not.toContain("mcp__calc__add");
    expect(existsSync(join(cwd, "calc.started"))).toBe(false);
    expect(r.stderr).toContain(`${join(cwd, ".claude/agents/adder.md")}: MCP server "calc" is blocked by deniedMcpServers`);
  });
});

describe("allowedMcpServers", () => {
  test("with serverCommand entries a stdio server must run one of them (${CLAUDE_PLUGIN_ROOT} expanded); its name alone does not admit it", async () => {
    const cwd = project();
    const plug = kit(cwd);
    const policy = managed({ allowedMcpServers: [{ serverCommand: ["node", join(plug, "server.mjs"), "ok"] }, { serverName: "side" }] });
    const r = await runWith(cwd, [say("ok")], ["--plugin-dir", plug, "--mcp-config", join(plug, "side.json"), "--output-format", "stream-json", "--verbose"], {
      env: { YOKE_MANAGED_DIR: policy },
    });
    expect(r.code).toBe(0);
    expect(toolNames(r.requests[0]!)).toContain("mcp__plugin_kit_calc__add");
    expect(existsSync(join(cwd, "other.started"))).toBe(false);
    expect(existsSync(join(cwd, "side.started"))).toBe(false);
    expect(r.stderr).toContain('server "side"');
    expect(r.stderr).toContain("is not in allowedMcpServers");
  });

  test("a project's own allowedMcpServers cannot admit its server past the managed list, and is named as ignored", async () => {
    const cwd = project({ allowedMcpServers: [{ serverName: "side" }] });
    const plug = kit(cwd);
    const policy = managed({ allowedMcpServers: [{ serverName: "corp" }] });
    const r = await runWith(cwd, [say("ok")], ["--mcp-config", join(plug, "side.json")], { env: { YOKE_MANAGED_DIR: policy } });
    expect(r.code).toBe(0);
    expect(existsSync(join(cwd, "side.started"))).toBe(false);
    expect(r.stderr).toContain(`${join(cwd, ".claude/settings.json")}: field "allowedMcpServers" is read only from user, --settings and managed settings`);
  });

  test("bad input: an allowlist that is not an array starts nothing until fixed, naming the file; the run still answers", async () => {
    const cwd = project();
    const plug = kit(cwd);
    const policy = managed({ allowedMcpServers: { serverName: "side" } });
    const r = await runWith(cwd, [say("still here")], ["--plugin-dir", plug, "--output-format", "json"], { env: { YOKE_MANAGED_DIR: policy } });
    expect(r.code).toBe(0);
    expect(r.json.result).toBe("still here");
    expect(toolNames(r.requests[0]!).some((t) => t.startsWith("mcp__"))).toBe(false);
    expect(existsSync(join(cwd, "other.started"))).toBe(false);
    expect(r.stderr.split("\n").filter((l) => l.includes('field "allowedMcpServers" must be an array'))).toEqual([
      `yoke: ${join(policy, "managed-settings.json")}: field "allowedMcpServers" must be an array; no MCP server is allowed until it is fixed`,
    ]);
  });
});
