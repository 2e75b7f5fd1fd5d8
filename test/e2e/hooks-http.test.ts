// Issue 13 review point 2: `http` hooks (contracts §1.2 `url`, `headers`, `allowedEnvVars`; §1.5 response protocol),
// through the compiled binary. Matched side by side with 2.1.332 on the same endpoints: the payload is POSTed as JSON;
// a 2xx JSON object decides like a command hook's stdout; empty 2xx is success; a 2xx non-JSON body, another status
// ("HTTP 500 from URL") and a redirect (never followed) are non-blocking errors; header `$VAR`s only for the listed
// variables. SSRF care (yoke): a redirect elsewhere is never fetched, http(s) only, body size cap, the hook's timeout.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { toolResultsOf } from "../helpers/fake-anthropic.ts";
import { yokeBin } from "../helpers/binary.ts";
import { bashCall, project, requestText, runWith, say } from "./hooks-helpers.ts";

setDefaultTimeout(60_000);

type Seen = { path: string; method: string; headers: Record<string, string>; body: string };
const seen: Seen[] = [];
const elsewhere: string[] = [];
let hookSrv: ReturnType<typeof Bun.serve>;
let otherSrv: ReturnType<typeof Bun.serve>;
const deny = { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "no via http" } };

beforeAll(() => {
  yokeBin();
  otherSrv = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (req) => (elsewhere.push(req.url), Response.json(deny)) });
  hookSrv = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const path = new URL(req.url).pathname;
      seen.push({ path, method: req.method, headers: Object.fromEntries(req.headers), body: await req.text() });
      if (path === "/deny") return Response.json(deny);
      if (path === "/context") return Response.json({ hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: "post-via-http" } });
      if (path === "/empty") return new Response("");
      if (path === "/500") return new Response("boom", { status: 500 });
      if (path === "/text") return new Response("plain words");
      if (path === "/redirect") return Response.redirect(`http://127.0.0.1:${otherSrv.port}/x`, 307);
      if (path === "/huge") return new Response("x".repeat(2 * 1024 * 1024));
      if (path === "/hang") return new Promise<Response>(() => {});
      return new Response("", { status: 404 });
    },
  });
});
afterAll(() => {
  hookSrv.stop(true);
  otherSrv.stop(true);
});

const at = (path: string, more: Record<string, unknown> = {}) => ({ type: "http", url: `http://127.0.0.1:${hookSrv.port}${path}`, ...more });
const run = (hooks: Record<string, unknown>, env: Record<string, string> = {}) => {
  const cwd = project({ hooks });
  return runWith(cwd, [bashCall("echo hi"), say("done")], ["--allowedTools", "Bash"], { env }).then((r) => ({ ...r, cwd }));
};

test("PreToolUse: a JSON deny blocks the call; the payload is POSTed as JSON; header variables only when allowed", async () => {
  const before = seen.length;
  const r = await run(
    { PreToolUse: [{ matcher: "Bash", hooks: [at("/deny", { headers: { "X-Token": "Bearer $SECRET_T", "X-Braced": "${SECRET_T}", "X-Not": "${NOT_ALLOWED}" }, allowedEnvVars: ["SECRET_T"] })] }] },
    { SECRET_T: "s3cret", NOT_ALLOWED: "leak" },
  );
  expect(r.code).toBe(0);
  expect(toolResultsOf(r.requests[1]!)[0]).toMatchObject({ text: "PreToolUse:Bash hook error: no via http", is_error: true });
  const req = seen.slice(before).find((x) => x.path === "/deny")!;
  expect(req.method).toBe("POST");
  expect(req.headers["content-type"]).toBe("application/json");
  expect(req.headers["x-token"]).toBe("Bearer s3cret");
  expect(req.headers["x-braced"]).toBe("s3cret");
  expect(req.headers["x-not"]).toBe("");
  expect(JSON.parse(req.body)).toMatchObject({ hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "echo hi" } });
});

test("PostToolUse: additionalContext from the answer reaches the model; an empty 2xx is a quiet success", async () => {
  const r = await run({ PostToolUse: [{ matcher: "Bash", hooks: [at("/context"), at("/empty")] }] });
  expect(r.code).toBe(0);
  expect(requestText(r.requests[1]!)).toContain("post-via-http");
  expect(r.stderr).not.toContain("http hook");
});

test("failures are non-blocking and named: status, non-JSON body, redirect (not followed), oversize, refused, bad URL, timeout; onFailure block blocks", async () => {
  const closed = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
  const closedPort = closed.port;
  closed.stop(true);
  const r = await run({
    PostToolUse: [
      {
        matcher: "Bash",
        hooks: [
          at("/500"),
          at("/text"),
          at("/redirect"),
          at("/huge"),
          { type: "http", url: `http://127.0.0.1:${closedPort}/x` },
          { type: "http", url: "file:///etc/passwd" },
          at("/hang", { timeout: 1 }),
        ],
      },
    ],
  });
  expect(r.code).toBe(0);
  expect(toolResultsOf(r.requests[1]!)[0]).toMatchObject({ text: "hi", is_error: false });
  const settings = join(r.cwd, ".claude", "settings.json");
  const base = `http://127.0.0.1:${hookSrv.port}`;
  expect(r.stderr).toContain(`http hook ${base}/500 (${settings}) failed with non-blocking status code 1: HTTP 500 from ${base}/500`);
  expect(r.stderr).toContain("HTTP hook must return JSON, but got non-JSON response body: plain words");
  expect(r.stderr).toContain(`HTTP 307 from ${base}/redirect`);
  expect(elsewhere).toEqual([]);
  expect(r.stderr).toContain(`HTTP hook answer from ${base}/huge is larger than 1048576 bytes`);
  expect(r.stderr).toContain(`HTTP hook could not reach http://127.0.0.1:${closedPort}/x`);
  expect(r.stderr).toContain('an http hook needs "url" with an http or https URL (got "file:///etc/passwd")');
  expect(r.stderr).toContain(`http hook ${base}/hang (${settings}) timed out after 1 s`);

  const b = await run({ PreToolUse: [{ matcher: "Bash", hooks: [at("/500", { onFailure: "block" })] }] });
  const res = toolResultsOf(b.requests[1]!)[0]!;
  expect(res.is_error).toBe(true);
  expect(res.text).toContain(`HTTP 500 from ${base}/500`);
});
