// Issue 13 (review point 1): OAuth for remote MCP servers, as Claude Code 2.1.332 does it (observed side by side:
// `claude mcp login NAME --no-browser`, tokens in ~/.claude/.credentials.json under mcpOAuth["NAME|<sha256 of
// {type,url,headers}, 16 hex>"], mode 0600; `claude mcp list` shows "Needs authentication"). A real OAuth
// authorization server and the MCP server it protects run on loopback (the SDK's own server auth pieces).
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { toolResultsOf } from "../helpers/fake-anthropic.ts";
import { isolatedEnv, runYoke, yokeBin } from "../helpers/binary.ts";
import { playMcpLogin } from "../helpers/mcp-login.ts";
import { type OAuthMcpServer, startOAuthMcpServer } from "../helpers/oauth-mcp-server.ts";
import { tempDir } from "../helpers/tmp.ts";
import { runWith, say } from "./hooks-helpers.ts";
import { call } from "./mcp-helpers.ts";

setDefaultTimeout(60_000);

let s: OAuthMcpServer;
beforeAll(async () => {
  yokeBin();
  s = await startOAuthMcpServer();
});
afterAll(() => s?.stop());

/** One user: a home with Claude Code's folder, a project folder, and yoke's env for both. */
function user() {
  const cwd = tempDir("yoke-oauth-");
  const env = isolatedEnv({ MCP_TIMEOUT: "10000" });
  const creds = join(env.CLAUDE_CONFIG_DIR!, ".credentials.json");
  const entries = () => JSON.parse(readFileSync(creds, "utf8")).mcpOAuth as Record<string, Record<string, any>>;
  const entry = () => Object.entries(entries()).find(([k]) => k.startsWith("srv|"))![1];
  const run = (replies: Parameters<typeof runWith>[1]) => runWith(cwd, replies, ["--output-format", "stream-json", "--verbose", "--allowedTools", "mcp__srv"], { env });
  const yoke = (...a: string[]) => runYoke(["mcp", ...a], { cwd, env });
  return { cwd, env, creds, entries, entry, run, yoke };
}

const init = (r: { lines?: any[] }) => r.lines!.find((l) => l.subtype === "init");

test("a server that answers 401 with OAuth metadata: needs-auth in list and init (never a browser, never a registration); login, then its tools work", async () => {
  const u = user();
  writeFileSync(u.creds, JSON.stringify({ claudeAiOauth: { accessToken: "keep-me" } }), { mode: 0o600 });
  expect((await u.yoke("add", "-t", "http", "srv", s.url)).code).toBe(0);
  const regs = s.counts.registrations;

  let l = await u.yoke("list");
  expect(l.stdout).toContain(`srv: ${s.url} (http, local) - ! needs authentication, 0 tools`);
  expect(l.stdout).toContain("run `yoke mcp login srv` to sign in");

  let r = await u.run([say("no tools yet")]);
  expect(r.code).toBe(0);
  expect(init(r).mcp_servers).toEqual([{ name: "srv", status: "needs-auth" }]);
  expect(r.stderr).toContain('MCP server "srv" needs authentication');
  expect(r.stderr).toContain("yoke mcp login srv");
  expect(s.counts.registrations).toBe(regs);

  const li = await playMcpLogin(u, "srv", "paste");
  expect(li.err).toBe("");
  expect(li.code).toBe(0);
  expect(li.out).toContain('Starting authentication for "srv"');
  expect(li.out).toContain("That is not a URL: paste the whole address");
  expect(li.out).toContain('Authenticated with "srv"');
  expect(s.counts.registrations).toBe(regs + 1);
  // Where and how Claude Code keeps it; its own login in the same file is kept.
  expect(statSync(u.creds).mode & 0o777).toBe(0o600);
  const all = JSON.parse(readFileSync(u.creds, "utf8"));
  expect(all.claudeAiOauth).toEqual({ accessToken: "keep-me" });
  const [key] = Object.keys(all.mcpOAuth);
  expect(key).toMatch(/^srv\|[0-9a-f]{16}$/);
  expect(u.entry()).toMatchObject({ serverName: "srv", serverUrl: s.url, accessToken: expect.stringMatching(/^at-/), refreshToken: expect.stringMatching(/^rt-/), clientId: expect.any(String), scope: "mcp:tools" });

  r = await u.run([call("mcp__srv__whoami"), say("done")]);
  expect(init(r).mcp_servers).toEqual([{ name: "srv", status: "connected" }]);
  expect(toolResultsOf(r.requests[1]!)[0]).toMatchObject({ is_error: false, text: `client ${u.entry().clientId}` });
  l = await u.yoke("list");
  expect(l.stdout).toContain(`srv: ${s.url} (http, local) - ✓ connected, 1 tool`);
});

test("expired token: refreshed on the server's 401, and before connecting when the stored expiry has passed; the new tokens are stored", async () => {
  const u = user();
  await u.yoke("add", "-t", "http", "srv", s.url);
  expect((await playMcpLogin(u, "srv", "callback")).code).toBe(0);
  const first = u.entry().accessToken;
  const refreshes = s.counts.refreshes;

  s.expireAll();
  let r = await u.run([call("mcp__srv__whoami"), say("done")]);
  expect(init(r).mcp_servers).toEqual([{ name: "srv", status: "connected" }]);
  expect(toolResultsOf(r.requests[1]!)[0]).toMatchObject({ is_error: false, text: `client ${u.entry().clientId}` });
  expect(s.counts.refreshes).toBe(refreshes + 1);
  const second = u.entry().accessToken;
  expect(second).not.toBe(first);

  // The stored expiry is past: the refresh happens first, so the server never sees the stale token.
  const doc = JSON.parse(readFileSync(u.creds, "utf8"));
  for (const e of Object.values<any>(doc.mcpOAuth)) e.expiresAt = 1;
  writeFileSync(u.creds, JSON.stringify(doc), { mode: 0o600 });
  const seen = s.seenTokens.length;
  r = await u.run([say("ok")]);
  expect(init(r).mcp_servers).toEqual([{ name: "srv", status: "connected" }]);
  expect(s.counts.refreshes).toBe(refreshes + 2);
  expect(s.seenTokens.slice(seen)).not.toContain(second);
  expect(u.entry().expiresAt).toBeGreaterThan(Date.now());
});

/** A user signed in to `srv`. */
async function signedIn() {
  const u = user();
  await u.yoke("add", "-t", "http", "srv", s.url);
  expect((await playMcpLogin(u, "srv", "callback")).code).toBe(0);
  return u;
}

test("refresh refused (invalid_grant): needs-auth, naming the server and what the authorization server said", async () => {
  const u = await signedIn();
  s.expireAll();
  s.failRefresh(true);
  const r = await u.run([say("ok")]);
  s.failRefresh(false);
  expect(r.code).toBe(0);
  expect(init(r).mcp_servers).toEqual([{ name: "srv", status: "needs-auth" }]);
  expect(r.stderr).toContain('MCP server "srv" needs authentication: its token expired and the authorization server refused the refresh (invalid_grant: refresh token is invalid or revoked)');
  expect(u.entry().refreshToken).toBeUndefined();
});

test("a token for another audience (RFC 8707 resource): refused even after a refresh, and said so", async () => {
  const u = await signedIn();
  s.issueAudience("http://elsewhere.example/mcp");
  s.expireAll();
  const r = await u.run([say("ok")]);
  s.issueAudience(undefined);
  expect(init(r).mcp_servers).toEqual([{ name: "srv", status: "needs-auth" }]);
  expect(r.stderr).toContain('MCP server "srv" needs authentication: the server refused its OAuth token (invalid_token: Token was not issued for this resource)');
});

test("a revoked client: needs-auth naming the client; signing in again works; logout forgets", async () => {
  const u = await signedIn();
  const client = u.entry().clientId;
  s.revokeClient(client);
  const r = await u.run([say("ok")]);
  expect(init(r).mcp_servers).toEqual([{ name: "srv", status: "needs-auth" }]);
  expect(r.stderr).toContain(`MCP server "srv" needs authentication: the authorization server no longer accepts client ${client} (invalid_client`);
  expect(r.stderr).toContain("yoke mcp login srv");

  // Sign in again works; logout forgets.
  expect((await playMcpLogin(u, "srv", "paste")).code).toBe(0);
  const lo = await u.yoke("logout", "srv");
  expect(lo.code).toBe(0);
  expect(lo.stdout).toContain('Removed the stored OAuth credentials of "srv"');
  expect(Object.keys(u.entries())).toEqual([]);
  expect((await u.yoke("list")).stdout).toContain("! needs authentication");
});

test("a bearer header in the config still works without OAuth; login refuses what cannot sign in, naming it", async () => {
  const u = user();
  await u.yoke("add", "-t", "http", "srv", s.url);
  expect((await playMcpLogin(u, "srv", "callback")).code).toBe(0);
  const token = u.entry().accessToken;
  await u.yoke("add", "-t", "http", "-H", `Authorization: Bearer ${token}`, "static", s.url);
  await u.yoke("logout", "srv");
  const r = await runWith(u.cwd, [call("mcp__static__whoami"), say("done")], ["--output-format", "stream-json", "--verbose", "--allowedTools", "mcp__static"], { env: u.env });
  expect(init(r).mcp_servers).toContainEqual({ name: "static", status: "connected" });
  expect(toolResultsOf(r.requests[1]!)[0]).toMatchObject({ is_error: false, text: expect.stringMatching(/^client /) });

  const plain = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("no", { status: 401 }) });
  try {
    await u.yoke("add", "-t", "http", "plain", `http://127.0.0.1:${plain.port}/mcp`);
    await u.yoke("add", "local-one", "--", "node", "x.js");
    const cases: Array<[string[], string]> = [
      [["login", "nope"], "no MCP server named 'nope'"],
      [["login", "local-one"], "MCP server 'local-one' is a stdio server; OAuth sign-in applies to HTTP and SSE servers"],
      [["login"], "login needs one server name"],
      [["login", "plain", "--no-browser"], `Couldn't complete authentication for "plain"`],
    ];
    for (const [argv, msg] of cases) {
      const x = await u.yoke(...argv);
      expect(x.code).toBe(1);
      expect(x.stderr).toContain(msg);
    }
  } finally {
    plain.stop(true);
  }
}, 120_000);

test("a pre-registered client (the server's `oauth` entry: clientId, callbackPort): login uses it and registers nothing", async () => {
  const u = user();
  const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
  const port = probe.port!;
  probe.stop(true);
  const redirect = `http://localhost:${port}/callback`;
  const reg = await fetch(`${s.origin}/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ client_name: "pre", redirect_uris: [redirect], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none" }),
  });
  const { client_id } = (await reg.json()) as { client_id: string };
  expect((await u.yoke("add-json", "srv", JSON.stringify({ type: "http", url: s.url, oauth: { clientId: client_id, callbackPort: port } }))).code).toBe(0);
  const regs = s.counts.registrations;
  const li = await playMcpLogin(u, "srv", "callback");
  expect(li.code).toBe(0);
  expect(li.out).toContain(`client_id=${client_id}`);
  expect(li.out).toContain(encodeURIComponent(redirect));
  expect(s.counts.registrations).toBe(regs);
  const r = await u.run([call("mcp__srv__whoami"), say("done")]);
  expect(toolResultsOf(r.requests[1]!)[0]).toMatchObject({ is_error: false, text: `client ${client_id}` });
});
