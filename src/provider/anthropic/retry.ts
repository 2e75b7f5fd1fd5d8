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

/** Exponential backoff with ±25% jitter, capped; a server's retry-after wins when it is given. */
export function retryDelay(attempt: number, baseMs: number, retryAfterMs: number | null, random = Math.random): number {
  if (retryAfterMs !== null) return Math.min(retryAfterMs, 5 * 60_000);
  const exp = Math.min(baseMs * 2 ** (attempt - 1), 32_000);
  return Math.round(exp * (0.75 + random() * 0.5));
}
