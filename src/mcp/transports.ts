import { join, resolve } from "node:path";
import { expandServer, expansionProblem, isRemote, isStdio, type ScopedServer, type RemoteServerConfig, normalizeMcpName } from "./config.ts";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { TransportFactory } from "./manager.ts";
import { createStdioTransport } from "./stdio-transport.ts";
import { helperFailure, runProcessSync } from "../util/subprocess.ts";
import { claudeUserDir } from "../config/paths.ts";
import { type AuthTrail, createOAuthProvider, isNeedsAuth, needsAuth, trailingFetch } from "./oauth.ts";
import { createOAuthStore, credentialsPath } from "./oauth-store.ts";

export type TransportContext = {
  cwd: string;
  env: Record<string, string>;
  /** Folder for stdio servers' stderr logs. */
  logDir?: string;
};

/** Runs `headersHelper` (a shell command printing a JSON object) at each connect; throws naming the helper. */
function helperHeaders(helper: string, env: Record<string, string>, cwd: string): Record<string, string> {
  const r = runProcessSync(["/bin/sh", "-c", helper], { env, cwd, timeoutMs: 10_000, maxOutputBytes: 1024 * 1024 });
  const why = helperFailure(r, 10_000);
  if (why) throw new Error(`headersHelper (${helper}) failed: ${why}`);
  const out = r.stdout;
  let parsed: unknown;
  try {
    parsed = JSON.parse(out);
  } catch {
    throw new Error(`headersHelper (${helper}) must print a JSON object of headers`);
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error(`headersHelper (${helper}) must print a JSON object of headers`);
  return Object.fromEntries(Object.entries(parsed as Record<string, unknown>).map(([k, v]) => [k, String(v)]));
}

function remote(name: string, c: RemoteServerConfig, ctx: TransportContext): TransportFactory {
  // The SDK's HTTP transports load with the client, not with this module (which the startup path imports early).
  return async () => {
    let url: URL;
    try {
      url = new URL(c.url);
    } catch {
      throw new Error(`"url" is not a valid URL: ${c.url}`);
    }
    const headers = { ...c.headers, ...(c.headersHelper ? helperHeaders(c.headersHelper, ctx.env, ctx.cwd) : {}) };
    const [{ SSEClientTransport }, { StreamableHTTPClientTransport }, { auth }] = await Promise.all([
      import("@modelcontextprotocol/sdk/client/sse.js"),
      import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
      import("@modelcontextprotocol/sdk/client/auth.js"),
    ]);
    // OAuth (a server that answers 401 with its metadata): the SDK's flow over Claude Code's credential store. A
    // configured Authorization header still goes out as written; OAuth only starts when the server refuses it.
    const trail: AuthTrail = {};
    const fetchFn = trailingFetch(trail);
    const authProvider = createOAuthProvider({ server: name, config: c, store: createOAuthStore(credentialsPath(claudeUserDir(ctx.env))), trail, mode: "run", clientSecret: ctx.env.MCP_CLIENT_SECRET });
    if (authProvider.refreshDue(60_000)) {
      // A stored token past (or at) its expiry is refreshed before the first request, as Claude Code does.
      try {
        await auth(authProvider, { serverUrl: url, fetchFn });
      } catch (e) {
        if (isNeedsAuth(e)) throw e;
        throw needsAuth(name, `refreshing its expired OAuth token failed: ${(e as Error).message}${trail.last && !(e as Error).message.includes(trail.last) ? ` (${trail.last})` : ""}`);
      }
    }
    const t =
      c.type === "sse"
        ? new SSEClientTransport(url, { authProvider, fetch: fetchFn, requestInit: { headers }, eventSourceInit: { fetch: (u, init) => fetchFn(u, { ...init, headers: { ...headers, ...(init?.headers as Record<string, string>) } }) } })
        : new StreamableHTTPClientTransport(url, { authProvider, fetch: fetchFn, requestInit: { headers } });
    return Object.assign(t, { authTrail: trail });
  };
}

/**
 * The transport factory for a configured server, with `${VAR}` expanded against the session's env (and the plugin's
 * root and data folders). Returns an error message instead when the entry cannot be used (missing variables).
 */
export function transportFor(s: ScopedServer, ctx: TransportContext): TransportFactory | string {
  const env: Record<string, string> = { ...ctx.env, CLAUDE_PROJECT_DIR: ctx.cwd };
  if (s.pluginRoot) env.CLAUDE_PLUGIN_ROOT = s.pluginRoot;
  if (s.pluginData) env.CLAUDE_PLUGIN_DATA = s.pluginData;
  const expanded = expandServer(s.config, env);
  const { config } = expanded;
  const problem = expansionProblem(s.source, s.name.replace(/^plugin:[^:]+:/, ""), expanded);
  if (problem) return problem;
  if (isRemote(config)) return remote(s.name, config, ctx);
  if (!isStdio(config)) return `server "${s.name}" is an SDK server: it is served by the host over the control channel`;
  const cwd = config.cwd ? resolve(ctx.cwd, config.cwd) : ctx.cwd;
  return () =>
    createStdioTransport({
      command: config.command,
      args: config.args ?? [],
      env: { ...env, ...config.env },
      cwd,
      logFile: ctx.logDir ? join(ctx.logDir, `${normalizeMcpName(s.name)}.log`) : undefined,
    });
}

/**
 * Starts the stdio servers now, before the MCP SDK is imported (this module and the stdio transport load none of
 * it): the SDK's import then overlaps the servers' own start instead of preceding it. Returns one factory per server
 * whose first call hands over the started transport and later calls (reconnects) start a fresh one. Never throws: a
 * server that cannot start fails at connect, with the reason.
 */
export function prestartStdio(servers: ScopedServer[], ctx: TransportContext): Map<string, TransportFactory> {
  const out = new Map<string, TransportFactory>();
  for (const s of servers) {
    if (s.problem || !isStdio(s.config)) continue;
    const factory = transportFor(s, ctx);
    if (typeof factory === "string") continue;
    let first: Transport | undefined;
    try {
      first = factory() as Transport;
      first.start().catch(() => {}); // its failure is reported by connect, which calls start again
    } catch {
      first = undefined;
    }
    performance.mark(`yoke:mcp-${s.name}-spawned`);
    out.set(s.name, () => {
      const t = first;
      first = undefined;
      return t ?? factory();
    });
  }
  return out;
}
