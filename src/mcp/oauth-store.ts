import { sha256Hex } from "../util/random.ts";
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { RemoteServerConfig } from "./config.ts";

/**
 * MCP OAuth credentials where Claude Code keeps them (observed in 2.1.332 on Linux): `~/.claude/.credentials.json`
 * (mode 0600, `CLAUDE_CONFIG_DIR` moves it), key `mcpOAuth`, one entry per server under `<name>|<16 hex>` where the
 * hex is sha256 of `{"type","url","headers"}` of the server's config. So a server signed in with `claude mcp login`
 * works in yoke and the other way round. Every other key of the file (Claude Code's own login) is kept as it is.
 */
export type StoredOAuth = {
  serverName: string;
  serverUrl: string;
  accessToken: string;
  refreshToken?: string;
  /** Epoch ms. */
  expiresAt?: number;
  scope?: string;
  clientId?: string;
  clientSecret?: string;
  /** The authorization server the client and tokens are bound to (the SDK refuses to present them to another). */
  issuer?: string;
  redirectUri?: string;
  discoveryState?: { authorizationServerUrl: string; resourceMetadataUrl?: string | null; oauthMetadataFound?: boolean; authServerMetadataUrl?: string | null };
};

export const credentialsPath = (claudeDir: string): string => join(claudeDir, ".credentials.json");

/** Claude Code's key for a server's entry. Pure. */
export function oauthKey(name: string, c: Pick<RemoteServerConfig, "type" | "url" | "headers">): string {
  const hash = sha256Hex(JSON.stringify({ type: c.type, url: c.url, headers: c.headers ?? {} })).slice(0, 16);
  return `${name}|${hash}`;
}

function readAll(file: string): Record<string, unknown> {
  if (!existsSync(file)) return {};
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new Error(`${file} is not valid JSON (${(e as Error).message}); MCP sign-ins cannot be read or saved until it is fixed`);
  }
  if (!doc || typeof doc !== "object" || Array.isArray(doc)) throw new Error(`${file} must hold a JSON object`);
  return doc as Record<string, unknown>;
}

export type OAuthStore = {
  get(key: string): StoredOAuth | undefined;
  /** Merges `patch` into the entry (created when missing); `undefined` values delete fields. */
  update(key: string, base: Pick<StoredOAuth, "serverName" | "serverUrl">, patch: Partial<StoredOAuth>): void;
  remove(key: string): boolean;
  /** Every entry of a server name (any config hash), for `logout`. */
  keysOf(name: string): string[];
  readonly file: string;
};

/** Reads on every call (another yoke or Claude Code may have refreshed the token since), writes atomically with 0600. */
export function createOAuthStore(file: string): OAuthStore {
  const entries = (doc: Record<string, unknown>) => {
    const m = doc.mcpOAuth;
    return m && typeof m === "object" && !Array.isArray(m) ? (m as Record<string, StoredOAuth>) : {};
  };
  const write = (doc: Record<string, unknown>) => {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(doc), { mode: 0o600 });
    chmodSync(tmp, 0o600);
    renameSync(tmp, file);
  };
  return {
    file,
    get: (key) => entries(readAll(file))[key],
    update(key, base, patch) {
      const doc = readAll(file);
      const all = { ...entries(doc) };
      const next: Record<string, unknown> = { ...base, accessToken: "", ...all[key], ...patch };
      for (const [k, v] of Object.entries(next)) if (v === undefined) delete next[k];
      all[key] = next as StoredOAuth;
      write({ ...doc, mcpOAuth: all });
    },
    remove(key) {
      const doc = readAll(file);
      const all = { ...entries(doc) };
      if (!(key in all)) return false;
      delete all[key];
      write({ ...doc, mcpOAuth: all });
      return true;
    },
    keysOf: (name) => Object.keys(entries(readAll(file))).filter((k) => k.slice(0, k.lastIndexOf("|")) === name),
  };
}
