import type { ScopedServer } from "./config.ts";

/**
 * How long the first model request waits for MCP servers that are still starting (issue 21 point 2: the request is
 * built the moment what it needs is ready). Claude Code 2.1.332 waits about 2 s for each server, counted from the
 * server's spawn (observed: a server ready 1.8 s after its spawn was in the first request even though that was 2.5 s
 * after the process started; one ready at 2.0 s was not), then sends the request with the server listed `pending`
 * in system/init and a note that it is still connecting. `MCP_CONNECTION_NONBLOCKING=false` (or 0) keeps the full
 * wait (each server still bounded by MCP_TIMEOUT). `YOKE_MCP_WAIT_MS` sets yoke's bound (tests set it high, so a
 * server slowed down by a loaded machine is not left out of a first request the test looks at).
 */
export const DEFAULT_FIRST_WAIT_MS = 2_000;

export function firstWaitMs(env: Record<string, string | undefined>): number {
  const nb = env.MCP_CONNECTION_NONBLOCKING?.trim().toLowerCase();
  if (nb === "false" || nb === "0" || nb === "no" || nb === "off") return Number.POSITIVE_INFINITY;
  const v = env.YOKE_MCP_WAIT_MS;
  const n = Number(v);
  return v !== undefined && v.trim() !== "" && Number.isFinite(n) && n >= 0 ? n : DEFAULT_FIRST_WAIT_MS;
}

/**
 * Servers the first request always waits for (bounded by MCP_TIMEOUT only), as Claude Code 2.1.332 does: an entry with
 * `alwaysLoad: true` (its tools then go to the model in full, never deferred) and a `--mcp-config` server (observed:
 * the request left after such a server, 5 s slow, had connected).
 */
export const blocksFirstRequest = (s: Pick<ScopedServer, "scope" | "config">): boolean =>
  s.scope === "dynamic" || (s.config as { alwaysLoad?: unknown }).alwaysLoad === true;

/**
 * Resolves when `connected` settles or at `startedAt + boundMs` (performance.now() time), whichever is first; the
 * timer is cleared when the server answers first.
 */
export function waitBounded(connected: Promise<unknown>, startedAt: number, boundMs: number): Promise<void> {
  const settled = connected.then(
    () => {},
    () => {},
  );
  if (!Number.isFinite(boundMs)) return settled;
  const left = startedAt + boundMs - performance.now();
  if (left <= 0) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, left);
    settled.then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
