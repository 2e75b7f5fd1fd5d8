/**
 * A real OAuth 2.1 authorization server and an MCP server it protects, on loopback, built from the MCP SDK's own
 * server-side auth pieces (mcpAuthRouter: metadata, dynamic client registration, authorize, token with PKCE, revoke;
 * requireBearerAuth with the RFC 8707 audience check) and its streamable HTTP server. The "browser" is the test:
 * /authorize approves at once and redirects to the client's redirect_uri with the code and state.
 * The bad cases are switches: tokens expired now, refresh refused, tokens issued for another audience, client revoked.
 */
import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
// express comes with the MCP SDK (its server auth pieces are express handlers); its types are not installed here.
// @ts-ignore no declaration file for express, unless a dev dependency brings @types/express (context7-mcp does)
import express from "express";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { mcpAuthRouter, getOAuthProtectedResourceMetadataUrl } from "@modelcontextprotocol/sdk/server/auth/router.js";
import { requireBearerAuth } from "@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js";
import { InvalidGrantError, InvalidTokenError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import type { OAuthServerProvider, AuthorizationParams } from "@modelcontextprotocol/sdk/server/auth/provider.js";
import type { OAuthRegisteredClientsStore } from "@modelcontextprotocol/sdk/server/auth/clients.js";
import type { OAuthClientInformationFull } from "@modelcontextprotocol/sdk/shared/auth.js";

// biome-ignore lint: express handler arguments, untyped (see the import)
type Req = any;
// biome-ignore lint: as above
type Res = any;
type Issued = { clientId: string; expiresAt: number; resource?: string; scopes: string[] };

export type OAuthMcpServer = {
  /** The MCP endpoint (`http://127.0.0.1:PORT/mcp`). */
  url: string;
  origin: string;
  /** Every access token issued so far counts as expired from now on (no clock in tests). */
  expireAll(): void;
  /** The token endpoint refuses refresh tokens (invalid_grant). */
  failRefresh(on: boolean): void;
  /** Tokens issued from now on name this audience (RFC 8707 resource) instead of the MCP server. */
  issueAudience(resource: string | undefined): void;
  /** The authorization server forgets a client and every token it holds. */
  revokeClient(clientId: string): void;
  counts: { registrations: number; authorizations: number; codeExchanges: number; refreshes: number; toolCalls: number };
  clients(): string[];
  /** Bearer tokens the MCP endpoint saw (`none` when the header was missing). */
  seenTokens: string[];
  stop(): Promise<void>;
};

export async function startOAuthMcpServer(): Promise<OAuthMcpServer> {
  const app = express();
  // Behind no proxy: express-rate-limit (in the SDK's handlers) must not trust forwarded headers.
  app.set("trust proxy", false);
  const listener = app.listen(0, "127.0.0.1");
  await new Promise<void>((r) => listener.once("listening", () => r()));
  const port = (listener.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;
  const mcpUrl = new URL(`${origin}/mcp`);

  const clients = new Map<string, OAuthClientInformationFull>();
  const codes = new Map<string, { client: OAuthClientInformationFull; params: AuthorizationParams }>();
  const access = new Map<string, Issued>();
  const refresh = new Map<string, { clientId: string; resource?: string; scopes: string[] }>();
  let refuseRefresh = false;
  let audience: string | undefined;
  const counts = { registrations: 0, authorizations: 0, codeExchanges: 0, refreshes: 0, toolCalls: 0 };
  const seenTokens: string[] = [];

  const clientsStore: OAuthRegisteredClientsStore = {
    getClient: async (id) => clients.get(id),
    registerClient: async (c) => {
      counts.registrations++;
      const full = c as OAuthClientInformationFull;
      clients.set(full.client_id, full);
      return full;
    },
  };
  const issue = (clientId: string, scopes: string[], resource?: URL) => {
    const token = `at-${randomUUID()}`;
    const rt = `rt-${randomUUID()}`;
    const res = audience ?? resource?.href ?? mcpUrl.href;
    access.set(token, { clientId, expiresAt: Math.floor(Date.now() / 1000) + 3600, resource: res, scopes });
    refresh.set(rt, { clientId, resource: resource?.href, scopes });
    return { access_token: token, token_type: "bearer", expires_in: 3600, refresh_token: rt, scope: scopes.join(" ") };
  };
  const provider: OAuthServerProvider = {
    clientsStore,
    async authorize(client, params, res) {
      counts.authorizations++;
      const code = `code-${randomUUID()}`;
      codes.set(code, { client, params });
      const to = new URL(params.redirectUri);
      to.searchParams.set("code", code);
      if (params.state !== undefined) to.searchParams.set("state", params.state);
      res.redirect(to.href);
    },
    async challengeForAuthorizationCode(_client, code) {
      const c = codes.get(code);
      if (!c) throw new InvalidGrantError("unknown authorization code");
      return c.params.codeChallenge;
    },
    async exchangeAuthorizationCode(client, code, _verifier, _redirectUri, resource) {
      const c = codes.get(code);
      if (!c || c.client.client_id !== client.client_id) throw new InvalidGrantError("unknown authorization code");
      codes.delete(code);
      counts.codeExchanges++;
      return issue(client.client_id, c.params.scopes ?? [], resource ?? c.params.resource);
    },
    async exchangeRefreshToken(client, token, scopes, resource) {
      const r = refresh.get(token);
      if (refuseRefresh || !r || r.clientId !== client.client_id) throw new InvalidGrantError("refresh token is invalid or revoked");
      counts.refreshes++;
      refresh.delete(token);
      return issue(client.client_id, scopes ?? r.scopes, resource ?? (r.resource ? new URL(r.resource) : undefined));
    },
    async verifyAccessToken(token) {
      const t = access.get(token);
      if (!t || !clients.has(t.clientId)) throw new InvalidTokenError("unknown or revoked token");
      return { token, clientId: t.clientId, scopes: t.scopes, expiresAt: t.expiresAt, ...(t.resource ? { resource: new URL(t.resource) } : {}) };
    },
    async revokeToken(_client, req) {
      access.delete(req.token);
      refresh.delete(req.token);
    },
  };

  app.use(mcpAuthRouter({ provider, issuerUrl: new URL(origin), resourceServerUrl: mcpUrl, scopesSupported: ["mcp:tools"], resourceName: "oauth fixture" }));
  const bearer = requireBearerAuth({ verifier: provider, resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl), expectedResource: mcpUrl });
  app.use("/mcp", (req: Req, _res: Res, next: () => void) => {
    const h = req.headers.authorization;
    seenTokens.push(h?.startsWith("Bearer ") ? h.slice(7) : "none");
    next();
  });
  app.post("/mcp", express.json(), bearer, async (req: Req, res: Res) => {
    const server = new McpServer({ name: "oauth-fixture", version: "1.0.0" });
    server.registerTool("whoami", { description: "Says which OAuth client called" }, async (extra) => {
      counts.toolCalls++;
      return { content: [{ type: "text", text: `client ${extra.authInfo?.clientId ?? "?"}` }] };
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  app.get("/mcp", bearer, (_req: Req, res: Res) => res.status(405).end());

  return {
    url: mcpUrl.href,
    origin,
    expireAll() {
      for (const t of access.values()) t.expiresAt = 0;
    },
    failRefresh(on) {
      refuseRefresh = on;
    },
    issueAudience(r) {
      audience = r;
    },
    revokeClient(id) {
      clients.delete(id);
      for (const [k, v] of access) if (v.clientId === id) access.delete(k);
      for (const [k, v] of refresh) if (v.clientId === id) refresh.delete(k);
    },
    counts,
    clients: () => [...clients.keys()],
    seenTokens,
    stop: () => new Promise<void>((r) => listener.close(() => r())),
  };
}
