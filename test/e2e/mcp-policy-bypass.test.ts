// Red-team of deniedMcpServers in the compiled binary (contracts §2.2; Claude Code's "Control MCP server access"
// docs): the policy must judge what actually runs. Class 1: a URL written so a text split reads another host than the
// one the client contacts (userinfo, a backslash, a tab). Class 2: a variable the spawn expands that the policy did not
// (${CLAUDE_PROJECT_DIR}). A denied server is never contacted nor spawned, and is left out of system/init.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isolatedEnv, runYoke, TRUST_WORKSPACE, yokeBin } from "../helpers/binary.ts";
import { managedEnv } from "../helpers/managed.ts";
import { tempDir, writeTree } from "../helpers/tmp.ts";
import { project, runWith, say } from "./hooks-helpers.ts";

setDefaultTimeout(120_000);
beforeAll(() => void yokeBin());

function managed(settings: Record<string, unknown>): string {
  const dir = tempDir("yoke-managed-");
  writeFileSync(join(dir, "managed-settings.json"), JSON.stringify(settings, null, 2));
  return dir;
}

// A stand-in for the denied remote server: it only counts the requests that reach it.
let hits = 0;
const denied = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => (hits++, new Response("no", { status: 404 })) });
afterAll(() => denied.stop(true));
const initOf = (lines: any[]) => lines.find((l) => l.subtype === "init");

describe("deniedMcpServers serverUrl holds for the host the client contacts", () => {
  const base = `127.0.0.1:${denied.port}`;
  const variants: Array<[string, string]> = [
    ["userinfo", `http://someone@${base}/mcp`],
    ["a backslash for the path's slash", `http://${base}\\mcp`],
    ["a tab inside the host", `http://127.0.0.1\t:${denied.port}/mcp`],
  ];
  for (const [what, url] of variants)
    test(what, async () => {
      const cwd = project();
      const cfg = join(cwd, "remote.json");
      writeFileSync(cfg, JSON.stringify({ mcpServers: { remote: { type: "http", url } } }));
      const before = hits;
      const policy = managed({ deniedMcpServers: [{ serverUrl: `http://${base}` }] });
      const r = await runWith(cwd, [say("ok")], ["--mcp-config", cfg, "--output-format", "stream-json", "--verbose"], { env: { YOKE_MANAGED_DIR: policy, MCP_TIMEOUT: "60000" } });
      expect(r.code).toBe(0);
      expect(initOf(r.lines!).mcp_servers).toEqual([]);
      expect(r.stderr).toContain('server "remote"');
      expect(r.stderr).toContain("deniedMcpServers");
      expect(hits).toBe(before);
    });
});

describe("deniedMcpServers serverCommand holds for ${CLAUDE_PROJECT_DIR}, which the spawn expands", () => {
  test("a project-dir path the policy names is not spawned from a config that writes it as ${CLAUDE_PROJECT_DIR}", async () => {
    const cwd = project();
    const marker = join(cwd, "evil.started");
    writeTree(cwd, { "evil.sh": `echo started > ${marker}\n` });
    const cfg = join(cwd, "evil.json");
    writeFileSync(cfg, JSON.stringify({ mcpServers: { evil: { command: "sh", args: ["${CLAUDE_PROJECT_DIR}/evil.sh"] } } }));
    const policy = managed({ deniedMcpServers: [{ serverCommand: ["sh", join(cwd, "evil.sh")] }] });
    const r = await runWith(cwd, [say("ok")], ["--mcp-config", cfg, "--output-format", "stream-json", "--verbose"], { env: { YOKE_MANAGED_DIR: policy, MCP_TIMEOUT: "60000" } });
    expect(r.code).toBe(0);
    expect(initOf(r.lines!).mcp_servers).toEqual([]);
    expect(r.stderr).toContain('server "evil"');
    expect(existsSync(marker)).toBe(false);
  });
});

describe("yoke mcp add refuses what a run would refuse", () => {
  test("a userinfo URL to the denied host, and a denied command written with ${CLAUDE_PROJECT_DIR}", async () => {
    const cwd = project();
    const base = `127.0.0.1:${denied.port}`;
    const env = isolatedEnv({ ...TRUST_WORKSPACE, ...managedEnv({ deniedMcpServers: [{ serverUrl: `http://${base}` }, { serverCommand: ["sh", join(cwd, "evil.sh")] }] }) });
    const url = await runYoke(["mcp", "add", "--transport", "http", "remote", `http://someone@${base}/mcp`], { cwd, env });
    expect(url.code).not.toBe(0);
    expect(url.stderr).toContain('Cannot add MCP server "remote": server is explicitly blocked by enterprise policy');
    const cmd = await runYoke(["mcp", "add-json", "evil", JSON.stringify({ command: "sh", args: ["${CLAUDE_PROJECT_DIR}/evil.sh"] })], { cwd, env });
    expect(cmd.code).not.toBe(0);
    expect(cmd.stderr).toContain('Cannot add MCP server "evil": server is explicitly blocked by enterprise policy');
  });
});
