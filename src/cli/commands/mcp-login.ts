import { createInterface } from "node:readline";
import { claudeUserDir } from "../../config/paths.ts";
import { expandServer, expansionProblem, isRemote, type RemoteServerConfig } from "../../mcp/config.ts";
import { type AuthTrail, createOAuthProvider, oauthOptionsOf, trailingFetch } from "../../mcp/oauth.ts";
import { createOAuthStore, credentialsPath, oauthKey } from "../../mcp/oauth-store.ts";
import { writeErr, writeOut } from "../../util/output.ts";
import { spawnProcess } from "../../util/subprocess.ts";
import { UsageError } from "../args.ts";
import { mcpView, viewEntries } from "./mcp-view.ts";

/**
 * `yoke mcp login NAME [--no-browser]` and `yoke mcp logout NAME`, Claude Code's `claude mcp login|logout`: the OAuth
 * sign-in of a remote (HTTP/SSE) server, with the SDK's flow (discovery, dynamic client registration, PKCE). The
 * authorization URL is printed (and opened in a browser unless --no-browser); the sign-in finishes when the browser
 * reaches the loopback callback, or when the redirect URL is pasted on stdin (SSH, headless; Claude Code wants a
 * terminal for that, yoke also takes a pipe). Tokens go where Claude Code keeps them (src/mcp/oauth-store.ts).
 */

type Env = Record<string, string | undefined>;

/**
 * The server's config, from the servers a session here would see (managed-mcp.json's exclusive control, the
 * organization's provided servers, every file scope, trust and policy: ./mcp-view.ts); a project server not yet
 * approved can be signed in ahead. Plugins' servers and --mcp-config are not signed in ahead of a run.
 */
function findRemote(name: string, cwd: string, env: Env): RemoteServerConfig {
  const view = mcpView(cwd, env);
  const entries = viewEntries(view);
  const hit = entries.find((e) => e.server.name === name);
  if (!hit) {
    const names = entries.filter((e) => !e.server.problem && !e.blocked).map((e) => e.server.name);
    const why = view.exclusive ? ` (${view.exclusive} has exclusive control: user, project and local servers are not used)` : "";
    throw new UsageError(`no MCP server named '${name}'. Servers: ${names.join(", ") || "(none)"}${why}`);
  }
  const s = hit.server;
  if (hit.blocked) throw new UsageError(`MCP ${hit.blocked}; there is nothing to sign in to`);
  if (s.problem) throw new UsageError(s.problem);
  const expanded = expandServer(s.config, { ...env, CLAUDE_PROJECT_DIR: cwd });
  const { config } = expanded;
  const problem = expansionProblem(s.source, name, expanded);
  if (problem) throw new UsageError(problem);
  if (!isRemote(config)) throw new UsageError(`MCP server '${name}' is a stdio server; OAuth sign-in applies to HTTP and SSE servers`);
  return config;
}

/** A redirect URL's code, or why it is not the answer to this sign-in. Pure. */
export function codeFromRedirect(raw: string, expectedState: string | undefined): { code: string } | { error: string } {
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    return { error: "That is not a URL: paste the whole address of the page the sign-in ended on." };
  }
  const err = u.searchParams.get("error");
  if (err) return { error: `The authorization server refused: ${err}${u.searchParams.get("error_description") ? ` (${u.searchParams.get("error_description")})` : ""}` };
  const code = u.searchParams.get("code");
  if (!code || (expectedState !== undefined && u.searchParams.get("state") !== expectedState))
    return { error: "That doesn't look like the redirect URL of this sign-in: paste the full address from the page this sign-in ended on." };
  return { code };
}

function openBrowser(url: string, env: Env): void {
  const opener = process.platform === "darwin" ? "open" : "xdg-open";
  const exe = Bun.which(opener, { PATH: env.PATH ?? "" });
  if (!exe) return;
  try {
    spawnProcess([exe, url], { cwd: process.cwd(), env: env as Record<string, string>, stdin: "ignore" }).on("error", () => {});
  } catch {
    // the URL is printed anyway
  }
}

export async function mcpLogin(name: string, noBrowser: boolean): Promise<number> {
  const env = process.env as Env;
  const config = findRemote(name, process.cwd(), env);
  const opts = oauthOptionsOf(config);
  const trail: AuthTrail = {};
  const fetchFn = trailingFetch(trail);
  const store = createOAuthStore(credentialsPath(claudeUserDir(env as NodeJS.ProcessEnv)));
  let settle!: (r: { code: string } | { error: string }) => void;
  const answered = new Promise<{ code: string } | { error: string }>((r) => (settle = r));
  let expected: () => string | undefined = () => undefined;
  const server = Bun.serve({
    hostname: "localhost",
    port: opts.callbackPort ?? 0,
    fetch(req) {
      const u = new URL(req.url);
      if (u.pathname !== "/callback") return new Response("Not found", { status: 404 });
      const r = codeFromRedirect(req.url, expected());
      if ("error" in r && !u.searchParams.get("error")) return new Response(r.error, { status: 400 });
      settle(r);
      return new Response("error" in r ? `Sign-in to ${name} failed: ${r.error}` : `Signed in to ${name}. You can close this page and go back to the terminal.`, { headers: { "content-type": "text/plain; charset=utf-8" } });
    },
  });
  const redirectUrl = `http://localhost:${server.port}/callback`;
  const key = oauthKey(name, config);
  // A fresh sign-in: stored tokens go, and a client registered for another callback address is registered again.
  const prev = store.get(key);
  store.update(key, { serverName: name, serverUrl: config.url }, { accessToken: "", refreshToken: undefined, expiresAt: undefined, ...(prev?.redirectUri !== redirectUrl && !opts.clientId ? { clientId: undefined, clientSecret: undefined, issuer: undefined } : {}) });
  let rl: ReturnType<typeof createInterface> | undefined;
  const provider = createOAuthProvider({
    server: name,
    config,
    store,
    trail,
    mode: "login",
    redirectUrl,
    clientSecret: env.MCP_CLIENT_SECRET,
    onAuthorizationUrl(url) {
      writeOut(`Visit this URL to authorize:\n  ${url.href}\n\n`);
      if (!noBrowser) openBrowser(url.href, env);
      writeOut("Waiting for authorization… (Ctrl-C to cancel)\nOr paste the redirect URL here: ");
      rl = createInterface({ input: process.stdin });
      rl.on("line", (line) => {
        if (!line.trim()) return;
        const r = codeFromRedirect(line, provider.expectedState);
        if ("error" in r && !/refused/.test(r.error)) writeOut(`${r.error}\nOr paste the redirect URL here: `);
        else settle(r);
      });
    },
  });
  expected = () => provider.expectedState;
  const fail = (why: string) => {
    writeErr(`Couldn't complete authentication for "${name}": ${why}${trail.last && !why.includes(trail.last) ? ` (${trail.last})` : ""}\n`);
    return 1;
  };
  try {
    writeOut(`Starting authentication for "${name}"…\n`);
    const { auth } = await import("@modelcontextprotocol/sdk/client/auth.js");
    const first = await auth(provider, { serverUrl: config.url, fetchFn, ...(opts.scopes ? { scope: opts.scopes } : {}) }).catch((e: Error) => e);
    if (first instanceof Error) return fail(first.message);
    if (first === "REDIRECT") {
      const r = await answered;
      writeOut("\n");
      if ("error" in r) return fail(r.error);
      const done = await auth(provider, { serverUrl: config.url, authorizationCode: r.code, fetchFn }).catch((e: Error) => e);
      if (done instanceof Error) return fail(done.message);
    }
    writeOut(`Authenticated with "${name}". Its tools are now available in yoke.\n`);
    return 0;
  } finally {
    rl?.close();
    process.stdin.pause();
    server.stop(true);
  }
}

export function mcpLogout(name: string): number {
  const env = process.env as NodeJS.ProcessEnv;
  const store = createOAuthStore(credentialsPath(claudeUserDir(env)));
  const keys = store.keysOf(name);
  for (const k of keys) store.remove(k);
  writeOut(keys.length ? `Removed the stored OAuth credentials of "${name}" (${store.file}).\n` : `No stored OAuth credentials for "${name}".\n`);
  return 0;
}
