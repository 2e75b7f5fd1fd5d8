// Issue 13 points 2 and 7: the same real server (server-everything) over streamable HTTP and SSE, on loopback.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { toolResultsOf } from "../helpers/fake-anthropic.ts";
import { yokeBin } from "../helpers/binary.ts";
import { tempDir } from "../helpers/tmp.ts";
import { runWith, say } from "./hooks-helpers.ts";
import { everythingPath } from "./mcp-helpers.ts";

// Real MCP servers (node packages) start in ~1 s alone and several seconds on a loaded 2-core machine.

type Served = { port: number; proc: Bun.Subprocess };
const served: Served[] = [];

function freePort(): number {
  const s = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
  const port = s.port!;
  s.stop(true);
  return port;
}

/** Starts server-everything in a network mode and resolves once it says it is listening (a barrier, not a sleep). */
async function serve(mode: "streamableHttp" | "sse"): Promise<Served> {
  const port = freePort();
  const proc = Bun.spawn(["node", everythingPath(), mode], { env: { ...process.env, PORT: String(port) }, stdout: "ignore", stderr: "pipe" });
  const reader = proc.stderr.getReader();
  let seen = "";
  while (!/listening on port|running on port/i.test(seen)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`server-everything ${mode} exited before listening:\n${seen}`);
    seen += new TextDecoder().decode(value);
  }
  // Keep draining stderr so the server never blocks on a full pipe.
  void (async () => {
    while (!(await reader.read().catch(() => ({ done: true }))).done);
  })();
  const s = { port, proc };
  served.push(s);
  return s;
}

let http: Served;
let sse: Served;
beforeAll(async () => {
  yokeBin();
  [http, sse] = await Promise.all([serve("streamableHttp"), serve("sse")]);
});
afterAll(() => {
  for (const s of served) s.proc.kill();
});

test("streamable HTTP and SSE: tools listed, called and answered like stdio; init lists both connected", async () => {
  const config = {
    mcpServers: {
      web: { type: "http", url: `http://127.0.0.1:${http.port}/mcp` },
      stream: { type: "sse", url: `http://127.0.0.1:${sse.port}/sse` },
    },
  };
  const r = await runWith(
    tempDir(),
    [
      {
        content: [
          { type: "tool_use", name: "mcp__web__echo", input: { message: "over http" } },
          { type: "tool_use", name: "mcp__stream__get-sum", input: { a: 2, b: 3 } },
        ],
      },
      say("ok"),
    ],
    ["--output-format", "stream-json", "--verbose", "--mcp-config", JSON.stringify(config)],
  );
  expect(r.code).toBe(0);
  const init = r.lines!.find((l) => l.subtype === "init");
  expect(init.mcp_servers).toEqual([
    { name: "web", status: "connected" },
    { name: "stream", status: "connected" },
  ]);
  const [echo, sum] = toolResultsOf(r.requests[1]!);
  expect(echo).toMatchObject({ is_error: false, text: "Echo: over http" });
  expect(sum!.text).toContain("5");
});

test("headers and headersHelper reach an HTTP server; a server that refuses is named with the reason and the run goes on", async () => {
  const seen: Array<Record<string, string>> = [];
  const refuse = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      seen.push(Object.fromEntries(req.headers.entries()));
      return new Response("nope", { status: 403 });
    },
  });
  try {
    const config = {
      mcpServers: {
        gated: {
          type: "http",
          url: `http://127.0.0.1:${refuse.port}/mcp`,
          headers: { "X-Static": "${STATIC_VAL:-fallback}" },
          headersHelper: `echo '{"Authorization":"Bearer from-helper"}'`,
        },
      },
    };
    const r = await runWith(tempDir(), [say("fine")], ["--mcp-config", JSON.stringify(config)]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("fine\n");
    expect(seen[0]).toMatchObject({ "x-static": "fallback", authorization: "Bearer from-helper" });
    expect(r.stderr).toContain(`MCP server "gated" failed to connect`);
    expect(r.stderr).toContain("403");
  } finally {
    refuse.stop(true);
  }
});
