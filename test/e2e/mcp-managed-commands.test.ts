// Every `yoke mcp` subcommand sees the servers a session sees, with the organization's MCP controls (Claude Code's
// "Control MCP server access" docs; the 2.1.332 binary's settings schema and `claude mcp` messages, observed):
//  - managed-mcp.json (exclusive control, scope "enterprise"): list, get and login find its servers and only them;
//    remove refuses one, naming the file ("is provided by your organization ... cannot be removed locally").
//  - managedMcpServers in managed settings (2.1.259+, scope "managed"): remote https servers provided beside the
//    user's own; a bad entry is dropped with a notice naming the file and entry; get shows the URL's host only and the
//    headers' names only; remove refuses; add of the same name saves it but says it is not used.
//  - `yoke mcp add` refuses what the policy keeps off, with Claude Code's words (contracts §2.2).
// The compiled binary, real temp dirs, a real OAuth authorization server on loopback for login.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isolatedEnv, repoRoot, runYoke, TRUST_WORKSPACE, yokeBin } from "../helpers/binary.ts";
import { playMcpLogin } from "../helpers/mcp-login.ts";
import { type OAuthMcpServer, startOAuthMcpServer } from "../helpers/oauth-mcp-server.ts";
import { tempDir, writeTree } from "../helpers/tmp.ts";
import { runWith, say } from "./hooks-helpers.ts";
import { everythingPath, toolNames } from "./mcp-helpers.ts";

setDefaultTimeout(240_000);

let oauth: OAuthMcpServer;
beforeAll(async () => {
  yokeBin();
  oauth = await startOAuthMcpServer();
});
afterAll(() => oauth?.stop());

const TINY = join(repoRoot(), "test", "fixtures", "mcp", "tiny-server.mjs");
const tiny = (...extra: string[]) => ({ command: "node", args: [TINY, "ok", ...extra] });

/**
 * A user (home with ~/.claude/.claude.json holding `userServers`), a trusted project, and a managed folder
 * (YOKE_MANAGED_DIR) holding `managedMcp` as managed-mcp.json and `managedSettings` as managed-settings.json when given.
 */
function setup(o: { userServers?: Record<string, unknown>; managedMcp?: unknown; managedSettings?: Record<string, unknown>; userSettings?: Record<string, unknown> } = {}) {
  const cwd = tempDir("yoke-mcpm-cwd-");
  const home = tempDir("yoke-mcpm-home-");
  const dir = tempDir("yoke-mcpm-managed-");
  mkdirSync(join(home, ".claude"), { recursive: true });
  writeFileSync(join(home, ".claude", ".claude.json"), JSON.stringify({ mcpServers: o.userServers ?? { mine: tiny() } }));
  if (o.userSettings) writeFileSync(join(home, ".claude", "settings.json"), JSON.stringify(o.userSettings));
  if (o.managedMcp !== undefined) writeFileSync(join(dir, "managed-mcp.json"), JSON.stringify(o.managedMcp));
  if (o.managedSettings) writeFileSync(join(dir, "managed-settings.json"), JSON.stringify(o.managedSettings));
  const env = isolatedEnv({ HOME: home, YOKE_MANAGED_DIR: dir, MCP_TIMEOUT: "60000", ...TRUST_WORKSPACE });
  const yoke = (...a: string[]) => runYoke(["mcp", ...a], { cwd, env, timeoutMs: 120_000 });
  const list = async (...a: string[]) => {
    const r = await yoke("list", "--json", ...a);
    expect({ code: r.code, stderr: r.code === 0 ? "" : r.stderr }).toEqual({ code: 0, stderr: "" });
    return JSON.parse(r.stdout) as Array<{ name: string; scope: string; status: string; target: string; source: string }>;
  };
  return { cwd, home, dir, env, yoke, list, managedMcpPath: join(dir, "managed-mcp.json"), managedSettingsPath: join(dir, "managed-settings.json") };
}

describe("managed-mcp.json: every yoke mcp subcommand sees its servers and only them", () => {
  test("login signs in to a managed-mcp.json server; the tokens are stored; a user's own server is not found, said naming the file", async () => {
    const s = setup({ userServers: { mine: { type: "http", url: oauth.url } }, managedMcp: { mcpServers: { corp: { type: "http", url: oauth.url } } } });
    const li = await playMcpLogin(s, "corp");
    expect({ code: li.code, err: li.err }).toEqual({ code: 0, err: "" });
    expect(li.out).toContain('Authenticated with "corp"');
    const creds = JSON.parse(readFileSync(join(s.env.CLAUDE_CONFIG_DIR!, ".credentials.json"), "utf8")).mcpOAuth as Record<string, unknown>;
    expect(Object.keys(creds).some((k) => k.startsWith("corp|"))).toBe(true);
    const mine = await s.yoke("login", "mine", "--no-browser");
    expect(mine.code).toBe(1);
    expect(mine.stderr).toContain("no MCP server named 'mine'. Servers: corp");
    expect(mine.stderr).toContain(`${s.managedMcpPath} has exclusive control`);
  });

  test("list and get show the managed server (scope enterprise) and not the user's; get of the user's says no such server", async () => {
    const s = setup({ managedMcp: { mcpServers: { corp: tiny() } } });
    expect((await s.list()).map((r) => [r.name, r.scope, r.status])).toEqual([["corp", "enterprise", "connected"]]);
    const g = await s.yoke("get", "corp", "--json");
    expect(g.code).toBe(0);
    expect(JSON.parse(g.stdout)).toMatchObject({ name: "corp", scope: "enterprise", source: s.managedMcpPath, config: tiny() });
    const mine = await s.yoke("get", "mine");
    expect(mine.code).toBe(1);
    expect(mine.stderr).toContain("no MCP server named 'mine'");
  });

  test("remove refuses a managed-mcp.json server, naming the file; the file is left as it was", async () => {
    const s = setup({ managedMcp: { mcpServers: { corp: tiny() } } });
    const before = readFileSync(s.managedMcpPath, "utf8");
    const r = await s.yoke("remove", "corp");
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`MCP server "corp" is provided by your organization (${s.managedMcpPath}) and cannot be removed locally.`);
    expect(readFileSync(s.managedMcpPath, "utf8")).toBe(before);
  });
});

// managedMcpServers needs https: a TLS front (a cert made here with openssl, trusted through NODE_EXTRA_CA_CERTS) for
// server-everything's streamable HTTP endpoint on loopback; it records the headers each request brought.
type Front = { url: string; ca: string; seen: Array<Record<string, string>>; stop(): void };
let front: Front;
let backend: Bun.Subprocess | undefined;

async function startBackend(): Promise<number> {
  const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
  const port = probe.port!;
  probe.stop(true);
  const proc = Bun.spawn(["node", everythingPath(), "streamableHttp"], { env: { ...process.env, PORT: String(port) }, stdout: "ignore", stderr: "pipe" });
  backend = proc;
  const reader = proc.stderr.getReader();
  let seen = "";
  while (!/listening on port|running on port/i.test(seen)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`server-everything exited before listening:\n${seen}`);
    seen += new TextDecoder().decode(value);
  }
  void (async () => {
    while (!(await reader.read().catch(() => ({ done: true }))).done);
  })();
  return port;
}

function startFront(backendPort: number): Front {
  const dir = tempDir("yoke-mcpm-tls-");
  const made = Bun.spawnSync(
    ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem"), "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"],
    { stdout: "pipe", stderr: "pipe" },
  );
  if (made.exitCode !== 0) throw new Error(`openssl could not make the test certificate: ${made.stderr.toString()}`);
  const seen: Array<Record<string, string>> = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    tls: { cert: readFileSync(join(dir, "cert.pem"), "utf8"), key: readFileSync(join(dir, "key.pem"), "utf8") },
    async fetch(req) {
      const u = new URL(req.url);
      const headers = Object.fromEntries(req.headers.entries());
      seen.push(headers);
      delete headers.host;
      const body = req.method === "GET" || req.method === "HEAD" ? undefined : await req.arrayBuffer();
      return fetch(`http://127.0.0.1:${backendPort}${u.pathname}${u.search}`, { method: req.method, headers, body });
    },
  });
  return { url: `https://127.0.0.1:${server.port}/mcp`, ca: join(dir, "cert.pem"), seen, stop: () => server.stop(true) };
}

describe("managedMcpServers: the organization's remote servers beside the user's own", () => {
  beforeAll(async () => {
    front = startFront(await startBackend());
  });
  afterAll(() => {
    front?.stop();
    backend?.kill();
  });

  /** A user with servers `mine` and `docs` (both stdio) and the organization providing `docs` over https. */
  const provided = (more: Record<string, unknown> = {}, o: Parameters<typeof setup>[0] = {}) => {
    const s = setup({ userServers: { mine: tiny(), docs: tiny() }, managedSettings: { managedMcpServers: { docs: { type: "http", url: front.url, headers: { "X-Org-Key": "org-key-1" } } }, ...more }, ...o });
    s.env.NODE_EXTRA_CA_CERTS = front.ca;
    return s;
  };
  const init = (r: { lines?: any[] }) => r.lines!.find((l) => l.subtype === "init");
  const statuses = (r: { lines?: any[] }) => Object.fromEntries((init(r).mcp_servers as Array<{ name: string; status: string }>).map((x) => [x.name, x.status]));

  test("a run connects it and the model gets its tools, its header reaches the server; it beats the user's server of its name and a plugin's server at its URL", async () => {
    const s = provided();
    const plug = tempDir("yoke-mcpm-plug-");
    writeTree(plug, { ".claude-plugin/plugin.json": JSON.stringify({ name: "kit" }), ".mcp.json": JSON.stringify({ mcpServers: { same: { type: "http", url: front.url } } }) });
    const r = await runWith(s.cwd, [say("ok")], ["--output-format", "stream-json", "--verbose", "--plugin-dir", plug], { env: s.env, timeoutMs: 120_000 });
    expect(r.code).toBe(0);
    expect(statuses(r)).toEqual({ docs: "connected", mine: "connected" });
    const tools = toolNames(r.requests[0]!);
    expect(tools).toContain("mcp__docs__echo");
    expect(tools).not.toContain("mcp__docs__add");
    expect(tools.some((t) => t.startsWith("mcp__plugin_kit_same__"))).toBe(false);
    expect(front.seen.some((h) => h["x-org-key"] === "org-key-1")).toBe(true);
    // yoke mcp list sees the same set; the provided server shows its host only.
    const rows = await s.list("--plugin-dir", plug);
    expect(rows.map((x) => [x.name, x.scope]).sort()).toEqual([["docs", "managed"], ["mine", "user"]]);
    expect(rows.find((x) => x.name === "docs")!.target).toBe(`${new URL(front.url).origin}/…`);
  });

  test("yoke mcp get shows its URL's host and its headers' names, never their values", async () => {
    const s = provided();
    for (const args of [["get", "docs"], ["get", "docs", "--json"]]) {
      const g = await s.yoke(...args);
      expect({ args, code: g.code }).toEqual({ args, code: 0 });
      expect(g.stdout).toContain(`${new URL(front.url).origin}/…`);
      expect(g.stdout).toContain("X-Org-Key");
      expect(g.stdout).not.toContain("org-key-1");
      expect(g.stdout).not.toContain(front.url);
    }
  });

  test("remove refuses it naming the managed settings file; add of its name saves the user's entry and says it is not used", async () => {
    const s = provided();
    const r = await s.yoke("remove", "docs");
    // The user's own `docs` lives in ~/.claude.json, which yoke never edits: the organization's entry is what answers.
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`MCP server "docs" is provided by your organization (managed settings, ${s.managedSettingsPath}) and cannot be removed locally.`);
    const a = await s.yoke("add", "-s", "user", "docs", "--", "node", TINY, "ok");
    expect(a.code).toBe(0);
    expect(a.stdout).toContain(`your organization provides a server named docs (managed settings, ${s.managedSettingsPath}); yours is saved but not used`);
    expect(JSON.parse(readFileSync(join(s.home, ".yoke", "mcp.json"), "utf8")).mcpServers.docs).toEqual(tiny());
    expect((await s.list()).find((x) => x.name === "docs")!.scope).toBe("managed");
  });

  test("login finds it (the sign-in is tried against its URL, not refused as unknown)", async () => {
    const s = provided();
    const r = await s.yoke("login", "docs", "--no-browser");
    expect(r.stdout).toContain('Starting authentication for "docs"');
    expect(r.stderr).not.toContain("no MCP server named");
  });

  test("--strict-mcp-config leaves it out; the plugin-only lock keeps it; --mcp-config of its name replaces it for the run", async () => {
    const s = provided({ strictPluginOnlyCustomization: ["mcp"] });
    // The user's own servers are listed as not started under the lock (said why); the provided one runs.
    expect(Object.fromEntries((await s.list()).map((x) => [x.name, x.status]))).toEqual({ docs: "connected", mine: "disabled" });
    expect(await s.list("--strict-mcp-config", "--mcp-config", JSON.stringify({ mcpServers: { other: tiny() } }))).toMatchObject([{ name: "other", scope: "dynamic" }]);
    const replaced = await s.list("--mcp-config", JSON.stringify({ mcpServers: { docs: tiny() } }));
    expect(replaced.find((x) => x.name === "docs")).toMatchObject({ scope: "dynamic", transport: "stdio" });
  });

  test("with managed-mcp.json both load, the file's entry winning a shared name; the user's own do not", async () => {
    const s = provided({}, { managedMcp: { mcpServers: { corp: tiny(), docs: tiny() } } });
    const rows = await s.list();
    expect(rows.map((x) => [x.name, x.scope]).sort()).toEqual([["corp", "enterprise"], ["docs", "enterprise"]]);
    const s2 = provided({}, { managedMcp: { mcpServers: { corp: tiny() } } });
    expect((await s2.list()).map((x) => [x.name, x.scope]).sort()).toEqual([["corp", "enterprise"], ["docs", "managed"]]);
  });

  test("deniedMcpServers: the user's own entry blocks it; a project's own entry does not; an empty allowlist does not", async () => {
    const denied = provided({}, { userSettings: { deniedMcpServers: [{ serverUrl: `${new URL(front.url).origin}/*` }] } });
    expect((await denied.list()).map((x) => x.name)).toEqual(["mine"]);
    const s = provided({ allowedMcpServers: [] });
    writeTree(s.cwd, { ".claude/settings.json": JSON.stringify({ deniedMcpServers: [{ serverName: "docs" }] }) });
    expect((await s.list()).map((x) => x.name)).toEqual(["docs"]);
  });

  test("bad entries are each dropped with a notice naming the file and entry; the good one loads; the key outside managed settings is ignored, said", async () => {
    const s = setup({
      userServers: {},
      userSettings: { managedMcpServers: { sneaky: { type: "http", url: front.url } } },
      managedSettings: {
        managedMcpServers: {
          docs: { type: "streamable-http", url: front.url },
          runs: { type: "stdio", command: "node", args: [TINY, "ok"] },
          plain: { type: "http", url: "http://127.0.0.1:9/mcp" },
          vars: { type: "http", url: "https://${ORG_HOST}/mcp" },
          "bad name": { type: "http", url: front.url },
          helper: { type: "http", url: front.url, headersHelper: "echo {}" },
          hidden: { type: "http", url: front.url, headers: { "X-A": "a\u200bb" } },
        },
      },
    });
    s.env.NODE_EXTRA_CA_CERTS = front.ca;
    mkdirSync(join(s.dir, "managed-settings.d"), { recursive: true });
    writeFileSync(join(s.dir, "managed-settings.d", "10-desktop.json"), JSON.stringify({ managedMcpServers: [{ name: "x", url: front.url }] }));
    const r = await runWith(s.cwd, [say("ok")], ["--output-format", "stream-json", "--verbose"], { env: s.env, timeoutMs: 120_000 });
    expect(r.code).toBe(0);
    expect(statuses(r)).toEqual({ docs: "connected" });
    const said = (needle: string) => r.stderr.split("\n").filter((l) => l.includes(needle));
    for (const name of ["runs", "plain", "vars", '"bad name"', "helper", "hidden"])
      expect({ name, said: said(`${s.managedSettingsPath}: managedMcpServers.${name}: Managed MCP server was ignored`).length }).toEqual({ name, said: 1 });
    expect(said('"command" is not allowed in managed settings')).toHaveLength(1);
    expect(said("https://")).not.toHaveLength(0);
    expect(said(`${join(s.home, ".claude", "settings.json")}: field "managedMcpServers" is read only from managed settings`)).toHaveLength(1);
    expect(said(`${join(s.dir, "managed-settings.d", "10-desktop.json")}: field "managedMcpServers" must be an object keyed by server name`)).toHaveLength(1);
  });
});

// allowedMcpServers / deniedMcpServers (contracts §2.2; the docs' matching rules and examples): `yoke mcp add` refuses
// what a session would keep off, with Claude Code's words and the policy's file; a run and `yoke mcp list` agree.
const BLOCKED = "server is explicitly blocked by enterprise policy";
const NOT_ALLOWED = "not allowed by enterprise policy";
type AddCase = [label: string, args: string[], expected: "ok" | typeof BLOCKED | typeof NOT_ALLOWED];
const policies: Array<[policy: Record<string, unknown>, cases: AddCase[]]> = [
  [
    { deniedMcpServers: [{ serverName: "bad" }] },
    [
      ["deny by name", ["bad", "--", "node", "x.js"], BLOCKED],
      ["another name", ["good", "--", "node", "x.js"], "ok"],
    ],
  ],
  [
    { deniedMcpServers: [{ serverCommand: ["npx", "-y", "pkg"] }] },
    [
      ["deny by the exact command", ["s1", "--", "npx", "-y", "pkg"], BLOCKED],
      ["the command with an extra argument", ["s2", "--", "npx", "-y", "pkg", "--flag"], "ok"],
      ["the command missing an argument", ["s3", "--", "npx", "pkg"], "ok"],
    ],
  ],
  [
    { deniedMcpServers: [{ serverUrl: "https://*.untrusted.example.com/*" }, { serverUrl: "https://mcp.example.com" }] },
    [
      ["deny by a wildcard URL", ["-t", "http", "u1", "https://api.untrusted.example.com/mcp"], BLOCKED],
      ["the host in capitals, with a trailing dot", ["-t", "http", "u2", "https://API.Untrusted.Example.COM./mcp"], BLOCKED],
      ["a host that only ends like it", ["-t", "http", "u3", "https://untrusted.example.com.evil.test/mcp"], "ok"],
      ["a pattern with no path covers every path", ["-t", "sse", "u4", "https://mcp.example.com/deep/path"], BLOCKED],
      ["another host", ["-t", "http", "u5", "https://example.org/mcp"], "ok"],
    ],
  ],
  [
    { allowedMcpServers: [] },
    [
      ["an empty allowlist: stdio", ["s", "--", "node", "x.js"], NOT_ALLOWED],
      ["an empty allowlist: http", ["-t", "http", "h", "https://mcp.example.com/mcp"], NOT_ALLOWED],
    ],
  ],
  [
    { allowedMcpServers: [{ serverUrl: "https://*.example.com/*" }], deniedMcpServers: [{ serverUrl: "https://staging.example.com/*" }] },
    [
      ["on both lists: the denylist wins", ["-t", "http", "st", "https://staging.example.com/api"], BLOCKED],
      ["on the allowlist", ["-t", "http", "ok1", "https://mcp.example.com/api"], "ok"],
      ["off the allowlist", ["-t", "http", "off", "https://other.com/mcp"], NOT_ALLOWED],
      ["stdio, with no name or command entries to match", ["local", "--", "node", "x.js"], NOT_ALLOWED],
    ],
  ],
  [
    { allowedMcpServers: [{ serverCommand: ["node", "server.js"] }, { serverUrl: "https://h.example.com/API/*" }, { serverUrl: "http://localhost:*/*" }] },
    [
      ["the exact command", ["c1", "--", "node", "server.js"], "ok"],
      ["the command with extra arguments", ["c2", "--", "node", "server.js", "--extra"], NOT_ALLOWED],
      ["the path in the pattern's case", ["-t", "http", "p1", "https://h.example.com/API/x"], "ok"],
      ["the path in another case (paths are case-sensitive)", ["-t", "http", "p2", "https://h.example.com/api/x"], NOT_ALLOWED],
      ["a wildcard port", ["-t", "http", "p3", "http://localhost:8080/mcp"], "ok"],
      ["another host on that port", ["-t", "http", "p4", "http://127.0.0.1:8080/mcp"], NOT_ALLOWED],
    ],
  ],
];

describe("allowedMcpServers / deniedMcpServers in yoke mcp add", () => {
  for (const [policy, cases] of policies)
    test(`${JSON.stringify(policy)}: ${cases.map((c) => c[0]).join("; ")}`, async () => {
      const s = setup({ userServers: {}, managedSettings: policy });
      for (const [label, args, expected] of cases) {
        const r = await s.yoke("add", "-s", "user", ...args);
        const name = args.find((a, i) => !a.startsWith("-") && (i === 0 || !args[i - 1]!.startsWith("-")))!;
        if (expected === "ok") expect({ label, code: r.code, stderr: r.stderr }).toEqual({ label, code: 0, stderr: "" });
        else {
          expect({ label, code: r.code }).toEqual({ label, code: 1 });
          expect({ label, said: r.stderr.includes(`Cannot add MCP server "${name}": ${expected}`) && r.stderr.includes(s.managedSettingsPath) }).toEqual({ label, said: true });
        }
      }
    });
});

describe("allowManagedMcpServersOnly", () => {
  test("without it a user's own allowlist broadens the managed one; with it only the managed list counts (in a user's settings it is ignored)", async () => {
    const managedList = { allowedMcpServers: [{ serverName: "corp" }] };
    const userList = { allowedMcpServers: [{ serverName: "mine" }] };
    const cases: Array<[string, Record<string, unknown>, Record<string, unknown>, number]> = [
      ["soft allowlist", managedList, userList, 0],
      ["locked in managed settings", { ...managedList, allowManagedMcpServersOnly: true }, userList, 1],
      ["the lock in user settings", managedList, { ...userList, allowManagedMcpServersOnly: true }, 0],
    ];
    for (const [label, managedSettings, userSettings, code] of cases) {
      const s = setup({ userServers: {}, managedSettings, userSettings });
      const r = await s.yoke("add", "-s", "user", "mine", "--", "node", "x.js");
      expect({ label, code: r.code }).toEqual({ label, code });
      if (code) expect(r.stderr).toContain(`Cannot add MCP server "mine": ${NOT_ALLOWED} (allowedMcpServers in ${s.managedSettingsPath})`);
    }
  });
});

describe("one policy, every path of a session and yoke mcp list agree", () => {
  test("exact command allowed, extra arguments not, a denied name on the allowlist denied, a denied URL and an allowed one", async () => {
    const closed = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("gone", { status: 404 }) });
    const port = closed.port!;
    closed.stop(true);
    const s = setup({
      userServers: {
        exact: tiny(),
        extra: tiny("x"),
        "named-bad": tiny(),
        remoteok: { type: "http", url: `http://127.0.0.1:${port}/mcp` },
        remotebad: { type: "http", url: "http://127.0.0.1:9/mcp" },
      },
      managedSettings: {
        allowedMcpServers: [{ serverCommand: ["node", TINY, "ok"] }, { serverUrl: "http://127.0.0.1:*/*" }],
        deniedMcpServers: [{ serverName: "named-bad" }, { serverUrl: "http://127.0.0.1:9/*" }],
      },
    });
    const r = await runWith(s.cwd, [say("ok")], ["--output-format", "stream-json", "--verbose"], { env: s.env, timeoutMs: 120_000 });
    expect(r.code).toBe(0);
    const init = r.lines!.find((l) => l.subtype === "init");
    const names = (init.mcp_servers as Array<{ name: string }>).map((x) => x.name).sort();
    expect(names).toEqual(["exact", "remoteok"]);
    const expected: Array<[string, string]> = [["extra", "is not in allowedMcpServers"], ["named-bad", "is blocked by deniedMcpServers"], ["remotebad", "is blocked by deniedMcpServers"]];
    for (const [name, why] of expected)
      expect({ name, said: r.stderr.split("\n").filter((l) => l.includes(`server "${name}"`) && l.includes(why)).length }).toEqual({ name, said: 1 });
    expect((await s.list()).map((x) => x.name).sort()).toEqual(names);
  });
});
