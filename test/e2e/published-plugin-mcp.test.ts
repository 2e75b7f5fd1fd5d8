// Issue 14 review point 4: a published plugin's MCP server, running. The fixture is the Context7 plugin from the
// official Claude Code plugin marketplace (test/fixtures/claude-plugins/context7, copied unchanged, Apache-2.0, see
// SOURCE.md): its `.mcp.json` starts `npx -y @upstash/context7-mcp` (MIT, on npm, a dev dependency here). Tests
// have no network, so an `npx` on the test's PATH runs the copy bun installed from npm instead of downloading it,
// and the server's CONTEXT7_API_URL points at a fake Context7 API in this file. The compiled binary starts the
// server from the plugin, and the fake Anthropic API drives the tool calls.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { toolResultsOf } from "../helpers/fake-anthropic.ts";
import { isolatedEnv, repoRoot, runYoke, TRUST_WORKSPACE, yokeBin } from "../helpers/binary.ts";
import { tempDir, writeTree } from "../helpers/tmp.ts";
import { project, runWith, say } from "./hooks-helpers.ts";
import { call, toolNames } from "./mcp-helpers.ts";

setDefaultTimeout(60_000);

const PLUGIN = join(repoRoot(), "test", "fixtures", "claude-plugins", "context7");
const SERVER = join(repoRoot(), "node_modules", "@upstash", "context7-mcp", "dist", "index.js");
// contracts §1.3: a plugin's server is plugin_<plugin>_<server> in tool names.
const RESOLVE = "mcp__plugin_context7_context7__resolve-library-id";
const QUERY = "mcp__plugin_context7_context7__query-docs";

/** The fake Context7 API: what the server asked, and fixed answers. */
const asked: string[] = [];
let api: ReturnType<typeof Bun.serve>;
let shimDir: string;

beforeAll(() => {
  yokeBin();
  api = Bun.serve({
    port: 0,
    fetch(req) {
      const u = new URL(req.url);
      asked.push(`${u.pathname}?${u.searchParams.toString()}`);
      if (u.pathname === "/api/v2/libs/search")
        return Response.json({ results: [{ id: "/vercel/next.js", title: "Next.js", description: "FAKE-C7 The React framework", totalSnippets: 42, trustScore: 9, benchmarkScore: 88, versions: [] }] });
      if (u.pathname === "/api/v2/context") return new Response(`FAKE-C7-DOCS for ${u.searchParams.get("libraryId")}: use the app router.`);
      return new Response("not here", { status: 404 });
    },
  });
  shimDir = tempDir("yoke-npx-shim-");
  mkdirSync(shimDir, { recursive: true });
  // Stands in for npx's download: the package named last runs from the copy installed from npm, nothing else.
  writeFileSync(
    join(shimDir, "npx"),
    `#!/bin/sh\nfor a in "$@"; do last="$a"; done\nif [ "$last" = "@upstash/context7-mcp" ]; then exec node "${SERVER}"; fi\necho "npx (test shim): no local copy of $last" >&2\nexit 1\n`,
  );
  chmodSync(join(shimDir, "npx"), 0o755);
});
afterAll(() => api.stop(true));

const env = () => ({ PATH: `${shimDir}:${process.env.PATH}`, CONTEXT7_API_URL: `${api.url.href.replace(/\/$/, "")}/api` });

describe("the Context7 plugin's MCP server (published plugin, server from npm)", () => {
  test("starts from the plugin's .mcp.json; the model calls both of its tools and gets the server's answers", async () => {
    asked.length = 0;
    const cwd = project();
    const r = await runWith(
      cwd,
      [
        call(RESOLVE, { libraryName: "next.js", query: "app router" }),
        call(QUERY, { libraryId: "/vercel/next.js", query: "How do I use the app router?" }),
        say("Next.js docs read"),
      ],
      ["--plugin-dir", PLUGIN, "--output-format", "stream-json", "--verbose"],
      { env: env(), prompt: "how does routing work in next.js?" },
    );
    expect(r.code).toBe(0);
    const init = r.lines!.find((l) => l.type === "system" && l.subtype === "init");
    expect(init.mcp_servers).toContainEqual({ name: "plugin:context7:context7", status: "connected" });
    expect(toolNames(r.requests[0]!)).toEqual(expect.arrayContaining([RESOLVE, QUERY]));
    const [resolved] = toolResultsOf(r.requests[1]!);
    expect(resolved!.is_error).toBe(false);
    expect(resolved!.text).toContain("Context7-compatible library ID: /vercel/next.js");
    expect(resolved!.text).toContain("FAKE-C7 The React framework");
    const [docs] = toolResultsOf(r.requests[2]!);
    expect(docs).toMatchObject({ is_error: false, text: "FAKE-C7-DOCS for /vercel/next.js: use the app router." });
    // The server really asked the (fake) Context7 API with the model's arguments.
    expect(asked).toContain("/api/v2/libs/search?query=app+router&libraryName=next.js");
    expect(asked.some((a) => a.startsWith("/api/v2/context?") && a.includes("libraryId=%2Fvercel%2Fnext.js"))).toBe(true);
    expect(r.lines!.at(-1)).toMatchObject({ type: "result", result: "Next.js docs read" });
    expect(r.stderr).toBe("");
  });

  test("a tool call the server refuses (a missing required argument) comes back as an error result, and the run goes on", async () => {
    const cwd = project();
    const r = await runWith(cwd, [call(QUERY, { query: "no library id" }), say("recovered")], ["--plugin-dir", PLUGIN, "--output-format", "json"], { env: env() });
    expect(r.json.result).toBe("recovered");
    const [res] = toolResultsOf(r.requests[1]!);
    expect(res!.is_error).toBe(true);
    expect(res!.text).toContain("libraryId");
  });

  test("yoke plugins list shows the plugin's MCP server as a loaded part", async () => {
    const cwd = project();
    const r = await runYoke(["plugins", "list", "--plugin-dir", PLUGIN], { cwd, env: isolatedEnv({ ...TRUST_WORKSPACE, ...env() }) });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("context7");
    expect(r.stdout).toMatch(/mcp[^\n]*context7[^\n]*(connected|loaded)/i);
  });

  test("when the server cannot start (npx finds nothing), the run still answers and the failure names the server", async () => {
    const cwd = project();
    const broken = tempDir("yoke-npx-broken-");
    writeFileSync(join(broken, "npx"), "#!/bin/sh\necho 'npm error 404 Not Found' >&2\nexit 1\n");
    chmodSync(join(broken, "npx"), 0o755);
    const r = await runWith(cwd, [say("no docs today")], ["--plugin-dir", PLUGIN, "--output-format", "json"], { env: { ...env(), PATH: `${broken}:${process.env.PATH}` } });
    expect(r.json.result).toBe("no docs today");
    expect(toolNames(r.requests[0]!)).not.toContain(RESOLVE);
    expect(r.stderr).toContain('MCP server "plugin:context7:context7" failed to connect');
    expect(r.stderr).toContain("npm error 404");
  });
});

describe("a plugin's server starts once (it used to be started twice, and the first copy reported as gone)", () => {
  const TINY = join(repoRoot(), "test", "fixtures", "mcp", "tiny-server.mjs");
  test.each([["alone", false], ["beside a --mcp-config server", true]])("%s", async (_name, withOther) => {
    const cwd = project();
    const starts = join(cwd, "starts.log");
    const plug = tempDir("yoke-plug-");
    writeTree(plug, {
      ".claude-plugin/plugin.json": JSON.stringify({ name: "counted" }),
      ".mcp.json": JSON.stringify({ calc: { command: "sh", args: ["-c", `echo started >> ${starts}; exec node ${TINY} ok`] } }),
      "other.json": JSON.stringify({ mcpServers: { other: { command: "node", args: [TINY, "ok"] } } }),
    });
    const r = await runWith(cwd, [call("mcp__plugin_counted_calc__add", { a: 1, b: 1 }), say("two")], ["--plugin-dir", plug, ...(withOther ? ["--mcp-config", join(plug, "other.json")] : [])]);
    expect(toolResultsOf(r.requests[1]!)[0]).toMatchObject({ is_error: false, text: "2" });
    expect(readFileSync(starts, "utf8")).toBe("started\n");
    expect(r.stderr).toBe("");
  });
});
