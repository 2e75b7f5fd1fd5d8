import { randomBytes } from "../util/random.ts";
import type { OAuthClientProvider, OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { RemoteServerConfig } from "./config.ts";
import { type OAuthStore, oauthKey, type StoredOAuth } from "./oauth-store.ts";

/**
 * OAuth for remote MCP servers on the SDK's client auth (`auth()`: RFC 9728/8414 discovery, dynamic client
 * registration, PKCE, refresh, RFC 8707 resource). This file is the SDK's `OAuthClientProvider` over the credential
 * store, in two modes: `run` (a session: stored tokens are used and refreshed, and a server that wants a new sign-in
 * is "needs-auth" with the command to run, never a browser), and `login` (`yoke mcp login`: a sign-in with a
 * redirect to a loopback callback). Failures name the server and say what the authorization server answered.
 */

/** Claude Code's per-server OAuth options (`oauth` in the server's config). */
export type OAuthOptions = { clientId?: string; callbackPort?: number; scopes?: string };

export const oauthOptionsOf = (c: RemoteServerConfig): OAuthOptions => {
  const o = (c as { oauth?: unknown }).oauth;
  if (!o || typeof o !== "object") return {};
  const r = o as Record<string, unknown>;
  return {
    ...(typeof r.clientId === "string" ? { clientId: r.clientId } : {}),
    ...(typeof r.callbackPort === "number" ? { callbackPort: r.callbackPort } : {}),
    ...(typeof r.scopes === "string" && r.scopes ? { scopes: r.scopes } : {}),
  };
};

/** An error that means "sign in again": the manager lists the server as needs-auth with this message. */
export const needsAuth = (server: string, why: string): Error =>
  Object.assign(new Error(`needs authentication: ${why}; run \`yoke mcp login ${server}\` to sign in`), { needsAuth: true });
export const isNeedsAuth = (e: unknown): boolean => !!(e as { needsAuth?: boolean } | undefined)?.needsAuth;

/** What the server or the authorization server last said about a credential (WWW-Authenticate, an OAuth error body). */
export type AuthTrail = { last?: string };

/**
 * A fetch that remembers the last authentication answer: a 401/403's WWW-Authenticate `error`/`error_description`
 * and an OAuth error body (`{"error","error_description"}`) from the token or registration endpoint.
 */
export function trailingFetch(trail: AuthTrail, base: typeof fetch = fetch): typeof fetch {
  const f = async (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
    const res = await base(input, init);
    if (res.status === 401 || res.status === 403) {
      const h = res.headers.get("www-authenticate") ?? "";
      const err = /error="([^"]*)"/.exec(h)?.[1];
      const desc = /error_description="([^"]*)"/.exec(h)?.[1];
      if (err || desc) trail.last = [err, desc].filter(Boolean).join(": ");
    }
    if (res.status >= 400 && res.status < 500 && (res.headers.get("content-type") ?? "").includes("json")) {
      try {
        const body = (await res.clone().json()) as { error?: unknown; error_description?: unknown };
        if (typeof body.error === "string") trail.last = [body.error, typeof body.error_description === "string" ? body.error_description : ""].filter(Boolean).join(": ");
      } catch {
        // not an OAuth error body
      }
    }
    return res;
  };
  return Object.assign(f, { preconnect: () => {} }) as unknown as typeof fetch;
}

export type OAuthProviderOptions = {
  server: string;
  config: RemoteServerConfig;
  store: OAuthStore;
  trail: AuthTrail;
  mode: "run" | "login";
  /** login: the loopback callback (`http://localhost:PORT/callback`). */
  redirectUrl?: string;
  /** login: called with the authorization URL to show the user. */
  onAuthorizationUrl?: (url: URL) => void;
  /** `MCP_CLIENT_SECRET` for a pre-configured client. */
  clientSecret?: string;
};

export type YokeOAuthProvider = OAuthClientProvider & {
  /** The state sent with the authorization request, checked against the callback's. */
  readonly expectedState: string | undefined;
  /** Whether stored tokens exist and expire within `marginMs` (a refresh is due before connecting). */
  refreshDue(marginMs: number): boolean;
  hasTokens(): boolean;
};

export function createOAuthProvider(o: OAuthProviderOptions): YokeOAuthProvider {
  const key = oauthKey(o.server, o.config);
  const base = { serverName: o.server, serverUrl: o.config.url };
  const opts = oauthOptionsOf(o.config);
  const entry = (): StoredOAuth | undefined => o.store.get(key);
  const save = (patch: Partial<StoredOAuth>) => o.store.update(key, base, patch);
  let verifier: string | undefined;
  let state: string | undefined;
  /** Why stored credentials were dropped in this attempt, for the needs-auth message. */
  let dropped: string | undefined;
  const redirect = () => o.redirectUrl ?? entry()?.redirectUri ?? "http://localhost/callback";
  const said = () => (o.trail.last ? ` (${o.trail.last})` : "");

  return {
    get redirectUrl() {
      return redirect();
    },
    get clientMetadata(): OAuthClientMetadata {
      return {
        client_name: "yoke",
        redirect_uris: [redirect()],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: opts.clientId && o.clientSecret ? "client_secret_post" : "none",
        ...(opts.scopes ? { scope: opts.scopes } : {}),
      };
    },
    get expectedState() {
      return state;
    },
    state() {
      state = randomBytes(32).toString("base64url");
      return state;
    },
    clientInformation(): OAuthClientInformationMixed | undefined {
      const e = entry();
      if (opts.clientId) return { client_id: opts.clientId, ...(o.clientSecret ?? e?.clientSecret ? { client_secret: o.clientSecret ?? e?.clientSecret } : {}) };
      if (e?.clientId) return { client_id: e.clientId, ...(e.clientSecret ? { client_secret: e.clientSecret } : {}), ...(e.issuer ? { issuer: e.issuer } : {}) } as OAuthClientInformationMixed;
      // A session never registers a client on its own: registering is part of signing in.
      if (o.mode === "run") throw needsAuth(o.server, dropped ?? `the server asked for OAuth${said()} and yoke holds no sign-in for it`);
      return undefined;
    },
    saveClientInformation(info) {
      const i = info as OAuthClientInformationMixed & { issuer?: string };
      save({ clientId: i.client_id, clientSecret: "client_secret" in i ? (i.client_secret as string | undefined) : undefined, issuer: i.issuer, redirectUri: redirect() });
    },
    tokens(): OAuthTokens | undefined {
      const e = entry();
      if (!e || (!e.accessToken && !e.refreshToken)) return undefined;
      return {
        access_token: e.accessToken,
        token_type: "Bearer",
        ...(e.refreshToken ? { refresh_token: e.refreshToken } : {}),
        ...(e.scope ? { scope: e.scope } : {}),
        ...(e.expiresAt ? { expires_in: Math.max(0, Math.floor((e.expiresAt - Date.now()) / 1000)) } : {}),
        ...(e.issuer ? { issuer: e.issuer } : {}),
      } as OAuthTokens;
    },
    saveTokens(t) {
      const prev = entry();
      save({
        accessToken: t.access_token,
        refreshToken: t.refresh_token ?? prev?.refreshToken,
        expiresAt: t.expires_in !== undefined ? Date.now() + t.expires_in * 1000 : undefined,
        scope: t.scope ?? prev?.scope,
        issuer: (t as { issuer?: string }).issuer ?? prev?.issuer,
      });
      dropped = undefined;
    },
    redirectToAuthorization(url) {
      if (o.mode === "run") throw needsAuth(o.server, dropped ?? `the server asked for OAuth${said()} and the stored sign-in is gone`);
      o.onAuthorizationUrl?.(url);
    },
    saveCodeVerifier(v) {
      verifier = v;
    },
    codeVerifier() {
      if (!verifier) throw new Error(`no sign-in to "${o.server}" is in progress`);
      return verifier;
    },
    invalidateCredentials(scope) {
      const e = entry();
      if (scope === "all" || scope === "client") {
        if (e?.clientId || opts.clientId) dropped = `the authorization server no longer accepts client ${opts.clientId ?? e?.clientId}${said()} (revoked or expired)`;
        save({ clientId: undefined, clientSecret: undefined, issuer: undefined });
      }
      if (scope === "all" || scope === "tokens") {
        if (e?.refreshToken && scope === "tokens") dropped = `its token expired and the authorization server refused the refresh${said()}`;
        save({ accessToken: "", refreshToken: undefined, expiresAt: undefined });
      }
      if (scope === "all" || scope === "discovery") save({ discoveryState: undefined });
    },
    saveDiscoveryState(s: OAuthDiscoveryState) {
      save({ discoveryState: { authorizationServerUrl: s.authorizationServerUrl, resourceMetadataUrl: s.resourceMetadataUrl ?? null, oauthMetadataFound: !!s.authorizationServerMetadata, authServerMetadataUrl: null } });
    },
    discoveryState(): OAuthDiscoveryState | undefined {
      const d = entry()?.discoveryState;
      return d?.authorizationServerUrl ? { authorizationServerUrl: d.authorizationServerUrl, ...(d.resourceMetadataUrl ? { resourceMetadataUrl: d.resourceMetadataUrl } : {}) } : undefined;
    },
    refreshDue(marginMs) {
      const e = entry();
      return !!e?.refreshToken && typeof e.expiresAt === "number" && e.expiresAt - Date.now() < marginMs;
    },
    hasTokens: () => !!entry()?.accessToken,
  };
}
