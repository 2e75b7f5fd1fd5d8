import { declarationOf } from "../../src/tool/declarations.ts";
import { afterAll, expect, test } from "bun:test";
import { createWebFetchTool, sameHost, upgradeUrl } from "../../src/tool/builtin/web-fetch.ts";
import type { SideQuery } from "../../src/tool/types.ts";
import { makeCtx, removeTempDirs, tempDir } from "./search-ctx.ts";

let hits = 0;
const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(req) {
    const url = new URL(req.url);
    hits++;
    switch (url.pathname) {
      case "/page":
        return new Response(
          "<html><head><title>T</title><style>p{}</style><script>alert(1)</script></head><body><h1>Install &amp; run</h1><p>Run <code>yoke -p</code> then <a href=\"https://example.com/docs\">read docs</a>.</p><ul><li>one</li><li>two</li></ul></body></html>",
          { headers: { "content-type": "text/html; charset=utf-8" } },
        );
      case "/text":
        return new Response("plain body\n", { headers: { "content-type": "text/plain" } });
      case "/hop1":
        return Response.redirect(`${url.origin}/hop2`, 301);
      case "/hop2":
        return new Response(null, { status: 302, headers: { location: "/text" } });
      case "/loop":
        return new Response(null, { status: 302, headers: { location: "/loop" } });
      case "/away":
        return Response.redirect("https://other.example.org/landing?x=1", 302);
      case "/missing":
        return new Response("nope", { status: 404, statusText: "Not Found" });
      case "/image":
        return new Response(new Uint8Array([137, 80, 78, 71]), { headers: { "content-type": "image/png" } });
      case "/big":
        return new Response("x".repeat(2_000_000), { headers: { "content-type": "text/plain" } });
      case "/long":
        return new Response("abcdefghij".repeat(30), { headers: { "content-type": "text/plain" } });
      case "/slow":
        // Never answers while the client waits (a 2 s answer could beat a timer or an abort that a busy machine ran
        // late); gives up once the client has gone.
        await new Promise((resolve) => {
          req.signal.addEventListener("abort", resolve, { once: true });
          setTimeout(resolve, 60_000);
        });
        return new Response("late", { headers: { "content-type": "text/plain" } });
      default:
        return new Response("?", { status: 500 });
    }
  },
});
afterAll(() => {
  server.stop(true);
  removeTempDirs();
});
const base = `http://127.0.0.1:${server.port}`;
const ctx = (extra = {}) => makeCtx(tempDir(), extra);

test("http is upgraded to https except for loopback hosts; other schemes are refused (contracts §7.2)", () => {
  expect(upgradeUrl("http://example.com/a?b=1").href).toBe("https://example.com/a?b=1");
  expect(upgradeUrl("https://example.com/").href).toBe("https://example.com/");
  expect(upgradeUrl("http://localhost:8080/x").href).toBe("http://localhost:8080/x");
  expect(upgradeUrl("http://127.0.0.1/x").protocol).toBe("http:");
  expect(() => upgradeUrl("file:///etc/passwd")).toThrow("only fetches http and https");
  expect(sameHost(new URL("https://a.com/x"), new URL("https://www.a.com/y"))).toBe(true);
  expect(sameHost(new URL("https://a.com/x"), new URL("https://b.com/y"))).toBe(false);
});

test("HTML becomes markdown; without a side query the markdown itself comes back, saying so", async () => {
  const tool = createWebFetchTool();
  const r = await tool.run({ url: `${base}/page`, prompt: "how to run?" }, ctx());
  expect(r.isError).toBeUndefined();
  const text = String(r.content);
  expect(text).toStartWith("No model is available to answer the prompt, so here is the page itself as markdown.");
  expect(text).toContain("# Install & run");
  expect(text).toContain("Run `yoke -p` then [read docs](https://example.com/docs).");
  expect(text).toContain("* one\n* two");
  expect(text).not.toContain("alert(1)");
  expect(r.details).toMatchObject({ code: 200, url: `${base}/page`, cached: false });
});

test("with a side query the prompt is answered over the content", async () => {
  const seen: Array<Parameters<SideQuery>[0]> = [];
  const sideQuery: SideQuery = async (args) => {
    seen.push(args);
    return "Answer: run yoke -p";
  };
  const r = await createWebFetchTool().run({ url: `${base}/text`, prompt: "what is it?" }, ctx({ sideQuery }));
  expect(r.content).toBe("Answer: run yoke -p");
  expect(seen[0]!.prompt).toContain("plain body");
  expect(seen[0]!.prompt).toContain("Question: what is it?");
});

test("a failing side query falls back to the markdown, saying why", async () => {
  const sideQuery: SideQuery = async () => {
    throw new Error("rate limited");
  };
  const r = await createWebFetchTool().run({ url: `${base}/text`, prompt: "q" }, ctx({ sideQuery }));
  expect(r.isError).toBeUndefined();
  expect(String(r.content)).toBe("The small model that answers the prompt failed (rate limited), so here is the page itself as markdown.\n\nplain body\n");
});

test("the cache holds at most cacheEntries pages, dropping the oldest", async () => {
  const tool = createWebFetchTool({ cacheEntries: 1 });
  const before = hits;
  await tool.run({ url: `${base}/text`, prompt: "a" }, ctx());
  await tool.run({ url: `${base}/long`, prompt: "a" }, ctx());
  await tool.run({ url: `${base}/text`, prompt: "a" }, ctx());
  expect(hits - before).toBe(3);
});

test("same-host redirects are followed; a loop stops after the cap", async () => {
  const r = await createWebFetchTool().run({ url: `${base}/hop1`, prompt: "p" }, ctx());
  expect(String(r.content)).toContain("plain body");
  expect(r.details).toMatchObject({ url: `${base}/text` });
  const loop = await createWebFetchTool({ maxRedirects: 3 }).run({ url: `${base}/loop`, prompt: "p" }, ctx());
  expect(loop.isError).toBe(true);
  expect(String(loop.content)).toContain("redirected more than 3 times");
});

test("a redirect to another host is reported, not followed", async () => {
  const r = await createWebFetchTool().run({ url: `${base}/away`, prompt: "p" }, ctx());
  expect(r.isError).toBeUndefined();
  expect(String(r.content)).toBe(
    `${base}/away redirects (HTTP 302) to a different host: https://other.example.org/landing?x=1\nWebFetch does not follow redirects to other hosts. To read it, call WebFetch again with url: "https://other.example.org/landing?x=1" and the same prompt.`,
  );
});

test("non-200, non-text, too big and too slow are errors worded for the model", async () => {
  // Only the slow fetch meets the 300 ms limit: the others answer at once, but not always within 300 ms on a busy machine.
  const tool = createWebFetchTool({ maxBytes: 1_000_000 });
  const c = ctx();
  const missing = await tool.run({ url: `${base}/missing`, prompt: "p" }, c);
  expect(missing).toMatchObject({ isError: true, content: `Fetching ${base}/missing failed with HTTP 404 Not Found. Check the URL, or try another source.` });
  const image = await tool.run({ url: `${base}/image`, prompt: "p" }, c);
  expect(image.isError).toBe(true);
  expect(String(image.content)).toContain("returned image/png, which WebFetch cannot read");
  const big = await tool.run({ url: `${base}/big`, prompt: "p" }, c);
  expect(big.isError).toBe(true);
  expect(String(big.content)).toContain("larger than 1 MB");
  const slow = await createWebFetchTool({ timeoutMs: 300 }).run({ url: `${base}/slow`, prompt: "p" }, c);
  expect(slow.isError).toBe(true);
  expect(String(slow.content)).toContain("took longer than 300 ms and was stopped");
});

test("the cache serves a url for 15 minutes, then fetches again", async () => {
  let now = 1_000_000;
  const tool = createWebFetchTool({ now: () => now });
  const before = hits;
  await tool.run({ url: `${base}/text`, prompt: "a" }, ctx());
  now += 14 * 60_000;
  const again = await tool.run({ url: `${base}/text`, prompt: "b" }, ctx());
  expect(hits - before).toBe(1);
  expect(again.details).toMatchObject({ cached: true });
  now += 2 * 60_000;
  await tool.run({ url: `${base}/text`, prompt: "c" }, ctx());
  expect(hits - before).toBe(2);
  // Caches are per tool instance: no module-level state.
  await createWebFetchTool().run({ url: `${base}/text`, prompt: "d" }, ctx());
  expect(hits - before).toBe(3);
});

test("long content is cut and offset reads on", async () => {
  const tool = createWebFetchTool({ maxChars: 100 });
  const first = String((await tool.run({ url: `${base}/long`, prompt: "p" }, ctx())).content);
  expect(first).toContain("abcdefghij".repeat(10));
  expect(first).toContain("[Content cut at 100 characters (300 in total); call WebFetch again with offset: 100 for the rest.]");
  const last = String((await tool.run({ url: `${base}/long`, prompt: "p", offset: 200 }, ctx())).content);
  expect(last).not.toContain("Content cut");
  expect(last.endsWith("abcdefghij".repeat(10))).toBe(true);
});

test("invalid input and user abort", async () => {
  const bad = await createWebFetchTool().run({ url: "not a url", prompt: "p" }, ctx());
  expect(bad.isError).toBe(true);
  expect(String(bad.content)).toContain("InputValidationError");
  const ac = new AbortController();
  const pending = createWebFetchTool().run({ url: `${base}/slow`, prompt: "p" }, ctx({ signal: ac.signal }));
  setTimeout(() => ac.abort(), 50);
  expect(await pending).toEqual({ content: "WebFetch was interrupted by the user.", isError: true });
});

test("WebFetch is read-only and keyed by url for permissions", () => {
  const tool = createWebFetchTool();
  expect(tool.readOnly).toBe(true);
  expect(declarationOf(tool).ruleTarget).toEqual({ kind: "domain", field: "url" });
});
