import type { CommandRun } from "./command.ts";
import { bounded } from "./mcp-tool.ts";

/**
 * `http` hooks (contracts §1.2, §1.5: `url`, `headers`, `allowedEnvVars`): the payload is POSTed as JSON. Observed in
 * 2.1.332: a 2xx JSON object decides like a command hook's stdout; a 2xx empty body is success; a 2xx body that is not
 * JSON, any other status ("HTTP 500 from URL") and a failed connection are non-blocking errors (a status never
 * blocks); redirects are not followed; `$VAR`/`${VAR}` in header values only for the listed variables (others
 * become ""). yoke adds: only http(s) URLs, the hook's timeout covers the whole exchange, and the body is read up to
 * MAX_HTTP_HOOK_BODY (a larger answer is cut off and is an error), so a hook URL cannot make yoke follow it elsewhere
 * or hold it.
 */
export const MAX_HTTP_HOOK_BODY = 1024 * 1024;

/** Header values with `$VAR` / `${VAR}` filled for allowed variables only; the rest become "". Pure. */
export function httpHookHeaders(headers: unknown, allowed: unknown, env: Record<string, string | undefined>): Record<string, string> {
  if (!headers || typeof headers !== "object" || Array.isArray(headers)) return {};
  const ok = new Set(Array.isArray(allowed) ? allowed.filter((x): x is string => typeof x === "string") : []);
  const fill = (v: string) => v.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (_, a?: string, b?: string) => (ok.has((a ?? b)!) ? (env[(a ?? b)!] ?? "") : ""));
  return Object.fromEntries(Object.entries(headers as Record<string, unknown>).filter(([, v]) => typeof v === "string").map(([k, v]) => [k, fill(v as string)]));
}

async function readCapped(res: Response, cap: number): Promise<{ text: string; over: boolean }> {
  if (!res.body) return { text: "", over: false };
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > cap) {
      await reader.cancel().catch(() => {});
      return { text: "", over: true };
    }
    chunks.push(value);
  }
  return { text: new TextDecoder().decode(Buffer.concat(chunks)), over: false };
}

export function runHttpHook(o: {
  handler: Record<string, unknown>;
  body: string;
  env: Record<string, string | undefined>;
  timeoutMs: number;
  signal?: AbortSignal;
  fetchFn?: typeof fetch;
}): Promise<CommandRun> {
  const raw = typeof o.handler.url === "string" ? o.handler.url : "";
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:"))
    return bounded(o.timeoutMs, o.signal, async () => ({ spawnError: `an http hook needs "url" with an http or https URL (got ${JSON.stringify(o.handler.url ?? null)})` }));
  const target = url;
  const headers = { ...httpHookHeaders(o.handler.headers, o.handler.allowedEnvVars, o.env), "content-type": "application/json" };
  return bounded(o.timeoutMs, o.signal, async (signal) => {
    let res: Response;
    try {
      res = await (o.fetchFn ?? fetch)(target, { method: "POST", headers, body: o.body, redirect: "manual", signal });
    } catch (e) {
      return { exitCode: 1, stderr: `HTTP hook could not reach ${target.href}: ${e instanceof Error ? e.message : String(e)}` };
    }
    const { text, over } = await readCapped(res, MAX_HTTP_HOOK_BODY);
    if (res.status < 200 || res.status > 299) return { exitCode: 1, stderr: `HTTP ${res.status} from ${target.href}` };
    if (over) return { exitCode: 1, stderr: `HTTP hook answer from ${target.href} is larger than ${MAX_HTTP_HOOK_BODY} bytes; it was dropped` };
    if (!text.trim()) return { exitCode: 0 };
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed))
      return { exitCode: 1, stdout: text, stderr: `HTTP hook must return JSON, but got non-JSON response body: ${text.slice(0, 200)}` };
    return { exitCode: 0, stdout: text };
  });
}
