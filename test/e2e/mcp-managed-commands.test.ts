// Every `yoke mcp` subcommand sees the servers a session sees, with the organization's MCP controls (Claude Code's
// "Control MCP server access" docs; the 2.1.332 binary's settings schema and `claude mcp` messages, observed):
//  - managed-mcp.json (exclusive control, scope "enterprise"): list, get and login find its servers and only them;
//    remove refuses one, naming the file ("is provided by your organization ... cannot be removed locally").
//  - managedMcpServers in managed settings (2.1.259+, scope "managed"): remote https servers provided beside the
//    user's own; a bad entry is dropped with a notice naming the file and entry; get shows the URL's host only and the
//    headers' names only; remove refuses; add of the same name saves it but says it is not used.
//  - `yoke mcp add` refuses what the policy keeps off, with Claude Code's words (contracts §2.2).
// The compiled binary, real temp dirs, a real OAuth authorization server on loopback for login.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isolatedEnv, repoRoot, runYoke, TRUST_WORKSPACE, yokeBin } from "../helpers/binary.ts";
import { type OAuthMcpServer, startOAuthMcpServer } from "../helpers/oauth-mcp-server.ts";
import { tempDir } from "../helpers/tmp.ts";

setDefaultTimeout(90_000);

let oauth: OAuthMcpServer;
beforeAll(async () => {
  yokeBin();
  oauth = await startOAuthMcpServer();
});
afterAll(() => oauth?.stop());

const TINY = join(repoRoot(), "test", "fixtures", "mcp", "tiny-server.mjs");
const tiny = (...extra: string[]) => ({ command: "node", args: [TINY, "ok", ...extra] });

/**
 * A user (home with ~/.claude/.claude.json holding `userServers`), a trusted project, and a managed folder
 * (YOKE_MANAGED_DIR) holding `managedMcp` as managed-mcp.json and `managedSettings` as managed-settings.json when given.
 */
function setup(o: { userServers?: Record<string, unknown>; managedMcp?: unknown; managedSettings?: Record<string, unknown>; userSettings?: Record<string, unknown> } = {}) {
  const cwd = tempDir("yoke-mcpm-cwd-");
  const home = tempDir("yoke-mcpm-home-");
  const dir = tempDir("yoke-mcpm-managed-");
  mkdirSync(join(home, ".claude"), { recursive: true });
  writeFileSync(join(home, ".claude", ".claude.json"), JSON.stringify({ mcpServers: o.userServers ?? { mine: tiny() } }));
  if (o.userSettings) writeFileSync(join(home, ".claude", "settings.json"), JSON.stringify(o.userSettings));
  if (o.managedMcp !== undefined) writeFileSync(join(dir, "managed-mcp.json"), JSON.stringify(o.managedMcp));
  if (o.managedSettings) writeFileSync(join(dir, "managed-settings.json"), JSON.stringify(o.managedSettings));
  const env = isolatedEnv({ HOME: home, YOKE_MANAGED_DIR: dir, MCP_TIMEOUT: "20000", ...TRUST_WORKSPACE });
  const yoke = (...a: string[]) => runYoke(["mcp", ...a], { cwd, env, timeoutMs: 60_000 });
  const list = async (...a: string[]) => {
    const r = await yoke("list", "--json", ...a);
    expect({ code: r.code, stderr: r.code === 0 ? "" : r.stderr }).toEqual({ code: 0, stderr: "" });
    return JSON.parse(r.stdout) as Array<{ name: string; scope: string; status: string; target: string; source: string }>;
  };
  return { cwd, home, dir, env, yoke, list, managedMcpPath: join(dir, "managed-mcp.json"), managedSettingsPath: join(dir, "managed-settings.json") };
}

/** `yoke mcp login NAME --no-browser`, playing the browser: follows the printed authorization URL (approved at once). */
async function login(s: ReturnType<typeof setup>, name: string): Promise<{ code: number; out: string; err: string }> {
  const p = Bun.spawn([yokeBin(), "mcp", "login", name, "--no-browser"], { cwd: s.cwd, env: s.env, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  const reader = p.stdout.getReader();
  let out = "";
  let url: RegExpExecArray | null = null;
  while (!(url = /http:\/\/127\.0\.0\.1:\d+\/authorize\S+/.exec(out))) {
    const { value, done } = await reader.read();
    if (done) break;
    out += new TextDecoder().decode(value);
  }
  if (url) {
    const res = await fetch(url[0], { redirect: "manual" });
    expect((await fetch(res.headers.get("location")!)).status).toBe(200);
  }
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    out += new TextDecoder().decode(value);
  }
  const code = await p.exited;
  return { code, out, err: await new Response(p.stderr).text() };
}

describe("managed-mcp.json: every yoke mcp subcommand sees its servers and only them", () => {
  test("login signs in to a managed-mcp.json server; the tokens are stored; a user's own server is not found, said naming the file", async () => {
    const s = setup({ userServers: { mine: { type: "http", url: oauth.url } }, managedMcp: { mcpServers: { corp: { type: "http", url: oauth.url } } } });
    const li = await login(s, "corp");
    expect({ code: li.code, err: li.err }).toEqual({ code: 0, err: "" });
    expect(li.out).toContain('Authenticated with "corp"');
    const creds = JSON.parse(readFileSync(join(s.env.CLAUDE_CONFIG_DIR!, ".credentials.json"), "utf8")).mcpOAuth as Record<string, unknown>;
    expect(Object.keys(creds).some((k) => k.startsWith("corp|"))).toBe(true);
    const mine = await s.yoke("login", "mine", "--no-browser");
    expect(mine.code).toBe(1);
    expect(mine.stderr).toContain("no MCP server named 'mine'. Servers: corp");
    expect(mine.stderr).toContain(`${s.managedMcpPath} has exclusive control`);
  });

  test("list and get show the managed server (scope enterprise) and not the user's; get of the user's says no such server", async () => {
    const s = setup({ managedMcp: { mcpServers: { corp: tiny() } } });
    expect((await s.list()).map((r) => [r.name, r.scope, r.status])).toEqual([["corp", "enterprise", "connected"]]);
    const g = await s.yoke("get", "corp", "--json");
    expect(g.code).toBe(0);
    expect(JSON.parse(g.stdout)).toMatchObject({ name: "corp", scope: "enterprise", source: s.managedMcpPath, config: tiny() });
    const mine = await s.yoke("get", "mine");
    expect(mine.code).toBe(1);
    expect(mine.stderr).toContain("no MCP server named 'mine'");
  });

  test("remove refuses a managed-mcp.json server, naming the file; the file is left as it was", async () => {
    const s = setup({ managedMcp: { mcpServers: { corp: tiny() } } });
    const before = readFileSync(s.managedMcpPath, "utf8");
    const r = await s.yoke("remove", "corp");
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`MCP server "corp" is provided by your organization (${s.managedMcpPath}) and cannot be removed locally.`);
    expect(readFileSync(s.managedMcpPath, "utf8")).toBe(before);
  });
});
