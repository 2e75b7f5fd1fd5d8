import type { ProviderError } from "../types.ts";

export type Classified = ProviderError & { retryable: boolean; retryAfterMs: number | null };

const KIND_BY_TYPE: Record<string, ProviderError["kind"]> = {
  rate_limit_error: "rate_limit",
  overloaded_error: "overloaded",
  authentication_error: "authentication_failed",
  permission_error: "authentication_failed",
  billing_error: "billing_error",
  invalid_request_error: "invalid_request",
  not_found_error: "model_not_found",
  api_error: "server_error",
};

function kindFor(status: number | null, type?: string): ProviderError["kind"] {
  if (type && KIND_BY_TYPE[type]) return KIND_BY_TYPE[type]!;
  if (status === 429) return "rate_limit";
  if (status === 529) return "overloaded";
  if (status === 401 || status === 403) return "authentication_failed";
  if (status === 402) return "billing_error";
  if (status === 404) return "model_not_found";
  if (status === 400 || status === 413 || status === 422) return "invalid_request";
  if (status !== null && status >= 500) return "server_error";
  return "unknown";
}

function retryAfter(headers: any): number | null {
  const get = (k: string): string | null => (headers && typeof headers.get === "function" ? headers.get(k) : headers?.[k]) ?? null;
  const ms = get("retry-after-ms");
  if (ms && !Number.isNaN(Number(ms))) return Number(ms);
  const s = get("retry-after");
  if (!s) return null;
  if (!Number.isNaN(Number(s))) return Number(s) * 1000;
  const date = Date.parse(s);
  return Number.isNaN(date) ? null : Math.max(0, date - Date.now());
}

/** Maps whatever the SDK threw (HTTP error, connection error, cut stream, in-stream error event) to one shape. */
export function classifyError(err: unknown): Classified {
  const e = err as any;
  const status: number | null = typeof e?.status === "number" ? e.status : null;
  const type: string | undefined = e?.error?.error?.type ?? e?.error?.type ?? e?.type;
  const inner: string | undefined = e?.error?.error?.message ?? e?.error?.message;
  const message = inner ?? (e instanceof Error ? e.message : String(err));
  const kind = kindFor(status, typeof type === "string" ? type : undefined);
  const retryable =
    status === null
      ? kind !== "invalid_request" && kind !== "authentication_failed"
      : status === 408 || status === 409 || status === 429 || status >= 500;
  return { status, kind, message, retryable, retryAfterMs: retryAfter(e?.headers) };
}

/** Exponential backoff with ±25% jitter, capped at 32 s. */
export function backoffDelay(attempt: number, baseMs: number, random = Math.random): number {
  const exp = Math.min(baseMs * 2 ** (attempt - 1), 32_000);
  return Math.round(exp * (0.75 + random() * 0.5));
}

/**
 * The wait before retry number `attempt`: the server's retry-after when it asks for longer, but never less than
 * the jittered backoff (a `retry-after: 0` storm must not become ten requests in half a second).
 */
export function retryDelay(attempt: number, baseMs: number, retryAfterMs: number | null, random = Math.random): number {
  return Math.max(backoffDelay(attempt, baseMs, random), retryAfterMs ?? 0);
}

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

/**
 * Whether to retry, and after how long. A wait the server asks for beyond `maxWaitMs` is not waited out: the run
 * ends with an error that names the header (raise YOKE_MAX_RETRY_WAIT_MS to wait longer).
 */
export function decideRetry(
  c: Classified,
  attempt: number,
  o: { maxRetries: number; baseMs: number; maxWaitMs: number },
  random = Math.random,
): { retry: true; delayMs: number } | { retry: false; message?: string } {
  if (!c.retryable || attempt > o.maxRetries) return { retry: false };
  const delayMs = retryDelay(attempt, o.baseMs, c.retryAfterMs, random);
  if (c.retryAfterMs !== null && c.retryAfterMs > o.maxWaitMs)
    return {
      retry: false,
      message: `${c.message} (HTTP ${c.status ?? "-"}); the API's retry-after header asks for a wait of ${seconds(c.retryAfterMs)}, longer than the ${seconds(o.maxWaitMs)} yoke waits (set YOKE_MAX_RETRY_WAIT_MS to wait longer)`,
    };
  return { retry: true, delayMs: Math.min(delayMs, Math.max(o.maxWaitMs, o.baseMs)) };
}
