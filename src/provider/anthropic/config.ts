/**
 * The Anthropic provider's settings from the environment, checked before any request: what cannot work
 * (a base URL without a scheme, a key with a character no HTTP header can carry) fails at once, naming the
 * variable, instead of being retried for minutes (issue 17.12, 20.2).
 */
export type AnthropicConfig = {
  apiKey?: string;
  authToken?: string;
  baseURL?: string;
  maxRetries: number;
  retryBaseMs: number;
  /** The whole request, headers to the last stream event (API_TIMEOUT_MS). */
  timeoutMs: number;
  /** A stream that sends nothing but pings for this long is dropped and retried (YOKE_STREAM_IDLE_TIMEOUT_MS). */
  idleTimeoutMs: number;
  /** The longest single wait before a retry; a server asking for more ends the run (YOKE_MAX_RETRY_WAIT_MS, default 60 000). */
  maxRetryWaitMs?: number;
  /** Retries after failing to reach the server at all (YOKE_CONNECT_RETRIES, default 3). */
  connectRetries?: number;
  userAgent: string;
};

/** A setting that cannot work; the message names the variable and what to do. */
export class ProviderConfigError extends Error {}

/** Where the credentials come from, in Claude Code's order: ANTHROPIC_AUTH_TOKEN, ANTHROPIC_API_KEY, apiKeyHelper. */
export type Credentials = { apiKey?: string; authToken?: string; source: "ANTHROPIC_AUTH_TOKEN" | "ANTHROPIC_API_KEY" | "apiKeyHelper" | "none" };

/**
 * Claude Code's precedence (its authentication docs): ANTHROPIC_AUTH_TOKEN (sent as `Authorization: Bearer`)
 * wins over ANTHROPIC_API_KEY (`x-api-key`), which wins over apiKeyHelper; only one is ever sent. The helper
 * runs only when neither variable is set.
 */
export function pickCredentials(env: Record<string, string | undefined>, helper: () => string | undefined): Credentials {
  if (env.ANTHROPIC_AUTH_TOKEN) return { authToken: env.ANTHROPIC_AUTH_TOKEN, source: "ANTHROPIC_AUTH_TOKEN" };
  if (env.ANTHROPIC_API_KEY) return { apiKey: env.ANTHROPIC_API_KEY, source: "ANTHROPIC_API_KEY" };
  const fromHelper = helper();
  return fromHelper ? { apiKey: fromHelper, source: "apiKeyHelper" } : { source: "none" };
}

/** Why this value cannot go into an HTTP header (fetch takes bytes 0x20–0x7E and tab; anything else is refused), or null. */
export function headerValueProblem(name: string, value: string): string | null {
  for (let i = 0; i < value.length; i++) {
    const c = value.codePointAt(i)!;
    if ((c >= 0x20 && c <= 0x7e) || c === 0x09) continue;
    const shown = c < 0x20 || c === 0x7f ? `a control character (U+${c.toString(16).toUpperCase().padStart(4, "0")})` : `"${String.fromCodePoint(c)}" (U+${c.toString(16).toUpperCase().padStart(4, "0")})`;
    const hint = value.includes("…") ? " It looks like a placeholder: put your real key there." : "";
    return `${name} contains ${shown} at character ${i + 1}, which cannot be sent in an HTTP header.${hint}`;
  }
  return null;
}

/** Why this base URL cannot work, or null. */
export function baseUrlProblem(raw: string): string | null {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return `ANTHROPIC_BASE_URL "${raw}" is not a URL: write it with its scheme, e.g. https://${raw.replace(/^\/+/, "")}`;
  }
  if (u.protocol !== "http:" && u.protocol !== "https:")
    return `ANTHROPIC_BASE_URL "${raw}" must start with http:// or https:// (got ${u.protocol}); e.g. https://${u.host || raw}`;
  return null;
}

/** Reads the provider's settings. Throws ProviderConfigError for a value that cannot work. */
export function anthropicConfigFromEnv(env: Record<string, string | undefined>, version: string, creds?: Credentials): AnthropicConfig {
  const num = (k: string, d: number) => {
    const v = Number(env[k]);
    return Number.isFinite(v) && env[k] !== undefined && env[k] !== "" ? v : d;
  };
  const c = creds ?? pickCredentials(env, () => undefined);
  const problem =
    (c.authToken !== undefined && headerValueProblem("ANTHROPIC_AUTH_TOKEN", c.authToken)) ||
    (c.apiKey !== undefined && headerValueProblem(c.source === "apiKeyHelper" ? "the key apiKeyHelper printed" : "ANTHROPIC_API_KEY", c.apiKey)) ||
    (env.ANTHROPIC_BASE_URL && baseUrlProblem(env.ANTHROPIC_BASE_URL)) ||
    null;
  if (problem) throw new ProviderConfigError(problem);
  return {
    apiKey: c.apiKey,
    authToken: c.authToken,
    baseURL: env.ANTHROPIC_BASE_URL || undefined,
    maxRetries: Math.min(10, Math.max(0, num("CLAUDE_CODE_MAX_RETRIES", 10))),
    retryBaseMs: num("YOKE_RETRY_BASE_MS", 500),
    timeoutMs: num("API_TIMEOUT_MS", 600_000),
    idleTimeoutMs: num("YOKE_STREAM_IDLE_TIMEOUT_MS", 90_000),
    maxRetryWaitMs: num("YOKE_MAX_RETRY_WAIT_MS", 60_000),
    connectRetries: Math.max(0, num("YOKE_CONNECT_RETRIES", 3)),
    userAgent: `yoke/${version}`,
  };
}
