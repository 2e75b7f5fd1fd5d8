import { z } from "zod";
import { defineTool } from "../define-tool.ts";
import { INPUT_SCHEMAS } from "../input-schemas.ts";
import { normalizeHost } from "../../util/host.ts";
import type { Tool, ToolContext, ToolResult } from "../types.ts";
import description from "./web-fetch.md" with { type: "text" };

/** Input of WebFetch (contracts §7.2). */
export const webFetchInput = () => z.object({
  url: z.string().url().describe("Fully qualified http(s) URL to fetch"),
  prompt: z.string().min(1).describe("What to find out from the page"),
  offset: z.number().int().min(0).optional().describe("Character offset into the page's markdown, to read past the part already seen"),
});

export type WebFetchInput = z.infer<ReturnType<typeof webFetchInput>>;

export type WebFetchToolOptions = {
  /** Clock for the cache (ms since epoch). */
  now?: () => number;
  /** Download cap in bytes (default 10 MB). */
  maxBytes?: number;
  /** Markdown characters kept (default 100,000). */
  maxChars?: number;
  /** Whole-fetch time cap (default 30 s). */
  timeoutMs?: number;
  /** Cache lifetime (default 15 minutes, contracts §7.2). */
  cacheTtlMs?: number;
  maxRedirects?: number;
  /** Pages kept at most; the oldest goes first (default 50). */
  cacheEntries?: number;
};

export type WebFetchDetails = { url: string; code: number; codeText: string; bytes: number; result: string; durationMs: number; cached: boolean };

type Page = { url: string; code: number; codeText: string; bytes: number; markdown: string; fetchedAt: number };

const LOCAL_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

/**
 * http → https, except for loopback hosts (local dev servers and tests have no TLS).
 * Throws a model-facing Error for other schemes.
 */
export function upgradeUrl(raw: string): URL {
  const url = new URL(raw);
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new Error(`WebFetch only fetches http and https URLs, not ${url.protocol}. Call it again with an http(s) URL.`);
  }
  if (url.protocol === "http:" && !LOCAL_HOSTS.has(normalizeHost(url.hostname))) url.protocol = "https:";
  return url;
}

/** Same host for redirect purposes: equal host names, a "www." prefix ignored, port included. */
export function sameHost(a: URL, b: URL): boolean {
  const strip = (h: string) => normalizeHost(h).replace(/^www\./, "");
  return strip(a.hostname) === strip(b.hostname) && a.port === b.port;
}

const TEXT_TYPES = /^(text\/|application\/(json|xml|xhtml\+xml|javascript|ld\+json|rss\+xml|atom\+xml|x-yaml|yaml|toml)|[a-z]+\/[a-z.+-]*\+(json|xml))/i;

/** An Error whose message is already worded for the model (HTTP status, size, time, content type). */
const MODEL_FACING = Symbol("modelFacing");
const problem = (message: string) => Object.assign(new Error(message), { [MODEL_FACING]: true });
const isProblem = (err: unknown): err is Error => err instanceof Error && MODEL_FACING in err;

async function readCapped(res: Response, maxBytes: number, url: string): Promise<Uint8Array> {
  const declared = Number(res.headers.get("content-length") ?? "0");
  if (declared > maxBytes) throw problem(tooBig(url, maxBytes));
  const chunks: Uint8Array[] = [];
  let total = 0;
  if (!res.body) return new Uint8Array();
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      throw problem(tooBig(url, maxBytes));
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

const tooBig = (url: string, max: number) =>
  `The response from ${url} is larger than ${Math.round(max / 1_048_576)} MB, WebFetch's limit. Fetch a more specific page instead.`;

async function toMarkdown(body: Uint8Array, contentType: string): Promise<string> {
  const text = new TextDecoder().decode(body);
  if (/html/i.test(contentType)) {
    const { NodeHtmlMarkdown } = await import("node-html-markdown");
    return NodeHtmlMarkdown.translate(text);
  }
  return text;
}

const SYSTEM = [
  "You answer a question about one web page, using only the page content given.",
  "Be concise and concrete. Quote exact text only briefly (a sentence or two at most) and put it in quotation marks.",
  "If the page does not contain the answer, say so plainly.",
].join(" ");

/**
 * WebFetch (contracts §7.2) with its own 15-minute cache. Never throws from run(): redirects to another host
 * come back as a normal result naming the new URL; HTTP errors, size, time and content-type problems as
 * is_error results.
 */
export function createWebFetchTool(opts: WebFetchToolOptions = {}): Tool<WebFetchInput> {
  const now = opts.now ?? Date.now;
  const maxBytes = opts.maxBytes ?? 10 * 1_048_576;
  const maxChars = opts.maxChars ?? 100_000;
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const ttl = opts.cacheTtlMs ?? 15 * 60_000;
  const maxRedirects = opts.maxRedirects ?? 10;
  const cacheEntries = opts.cacheEntries ?? 50;
  const cache = new Map<string, Page>();
  const remember = (key: string, page: Page) => {
    for (const [k, v] of cache) if (now() - v.fetchedAt >= ttl) cache.delete(k);
    while (cache.size >= cacheEntries) cache.delete(cache.keys().next().value!);
    cache.set(key, page);
  };

  async function fetchPage(start: URL, ctx: ToolContext): Promise<Page | { redirect: URL; from: URL; code: number }> {
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = AbortSignal.any([ctx.signal, timeout]);
    let url = start;
    try {
      for (let hop = 0; ; hop++) {
        const res = await fetch(url, {
          redirect: "manual",
          signal,
          headers: { "user-agent": "yoke-webfetch/0.1", accept: "text/html,text/markdown,text/plain,*/*;q=0.5" },
        });
        const location = res.headers.get("location");
        if (res.status >= 300 && res.status < 400 && location) {
          await res.body?.cancel().catch(() => {});
          const next = new URL(location, url);
          if (!sameHost(url, next)) return { redirect: next, from: url, code: res.status };
          if (hop + 1 > maxRedirects) throw problem(`${start.href} redirected more than ${maxRedirects} times. Try a different URL.`);
          url = next;
          continue;
        }
        if (res.status < 200 || res.status >= 300) {
          await res.body?.cancel().catch(() => {});
          throw problem(
            `Fetching ${url.href} failed with HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ""}. Check the URL, or try another source.`,
          );
        }
        const type = res.headers.get("content-type") ?? "text/plain";
        if (!TEXT_TYPES.test(type)) {
          await res.body?.cancel().catch(() => {});
          throw problem(`${url.href} returned ${type.split(";")[0]}, which WebFetch cannot read: it reads text pages (HTML, plain text, JSON, XML).`);
        }
        const body = await readCapped(res, maxBytes, url.href);
        const markdown = await toMarkdown(body, type);
        return { url: url.href, code: res.status, codeText: res.statusText, bytes: body.byteLength, markdown, fetchedAt: now() };
      }
    } catch (err) {
      if (timeout.aborted && !ctx.signal.aborted) {
        throw problem(`Fetching ${url.href} took longer than ${timeoutMs >= 1000 ? `${timeoutMs / 1000} s` : `${timeoutMs} ms`} and was stopped. Try again later or use another source.`);
      }
      throw err;
    }
  }

  return defineTool({
    name: "WebFetch",
    description,
    input: webFetchInput,
    jsonSchema: INPUT_SCHEMAS.WebFetch,
    readOnly: true,
    async execute(input, ctx): Promise<ToolResult> {
      const started = performance.now();
      const target = upgradeUrl(input.url);
      const key = target.href;
      let page = cache.get(key);
      const cached = !!page && now() - page.fetchedAt < ttl;
      if (!cached) {
        cache.delete(key);
        let got: Awaited<ReturnType<typeof fetchPage>>;
        try {
          got = await fetchPage(target, ctx);
        } catch (err) {
          if (isProblem(err)) return { content: err.message, isError: true };
          if (ctx.signal.aborted) throw err;
          const msg = err instanceof Error ? err.message : String(err);
          return { content: `Fetching ${target.href} failed: ${msg}. Check the URL, or try another source.`, isError: true };
        }
        if ("redirect" in got) {
          const text = [
            `${got.from.href} redirects (HTTP ${got.code}) to a different host: ${got.redirect.href}`,
            `WebFetch does not follow redirects to other hosts. To read it, call WebFetch again with url: "${got.redirect.href}" and the same prompt.`,
          ].join("\n");
          return { content: text, details: { url: target.href, code: got.code, redirectUrl: got.redirect.href } };
        }
        page = got;
        remember(key, page);
      }
      const p = page!;
      const offset = input.offset ?? 0;
      const body = p.markdown.slice(offset, offset + maxChars);
      const cut = p.markdown.length > offset + maxChars;
      const more = cut
        ? `\n\n[Content cut at ${maxChars} characters (${p.markdown.length} in total); call WebFetch again with offset: ${offset + maxChars} for the rest.]`
        : "";
      let result = "";
      let sideError = "";
      if (ctx.sideQuery) {
        try {
          result = await ctx.sideQuery({
            system: SYSTEM,
            prompt: `Web page: ${p.url}\n\n<page>\n${body}\n</page>${cut ? "\n(The page continues beyond this point.)" : ""}\n\nQuestion: ${input.prompt}`,
            signal: ctx.signal,
          });
          result += more;
        } catch (err) {
          if (ctx.signal.aborted) throw err;
          sideError = (err instanceof Error ? err.message : String(err)) || "unknown error";
        }
      }
      if (sideError) {
        result = `The small model that answers the prompt failed (${sideError}), so here is the page itself as markdown.\n\n${body}${more}`;
      } else if (!ctx.sideQuery) {
        result = `No model is available to answer the prompt, so here is the page itself as markdown.\n\n${body}${more}`;
      }
      const details: WebFetchDetails = {
        url: p.url,
        code: p.code,
        codeText: p.codeText,
        bytes: p.bytes,
        result,
        durationMs: Math.round(performance.now() - started),
        cached,
      };
      return { content: result, details };
    },
    // Markdown is already cut to maxChars; leave room for notes.
    maxResultChars: maxChars + 2_000,
  });
}
