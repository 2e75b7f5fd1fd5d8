// Policy decides first (contracts §2.2; Claude Code 2.1.332 leaves a server the organization's policy keeps off out of
// `mcp list` and system/init): a server allowedMcpServers / deniedMcpServers blocks is shown as blocked whatever else
// is wrong with it — an entry that does not parse, a missing variable, a project server not approved — in every
// listing: `yoke mcp list`, `yoke mcp get`, system/init `mcp_servers`, and the stderr notice of a run. A broken server
// the policy does not name is still listed as failed (so the test can fail).
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { isolatedEnv, runYoke, TRUST_WORKSPACE, yokeBin } from "../helpers/binary.ts";
import { managedEnv } from "../helpers/managed.ts";
import { project, runWith, say } from "./hooks-helpers.ts";

setDefaultTimeout(120_000);
beforeAll(() => void yokeBin());

type Case = { policy: Record<string, unknown>; servers: Record<string, unknown>; blocked: string[]; failed: string[]; projectServers?: Record<string, unknown> };

const cases: Record<string, Case> = {
  "denied by name, each broken another way": {
    policy: { deniedMcpServers: [{ serverName: "badtype" }, { serverName: "badcmd" }, { serverName: "notobject" }, { serverName: "novar" }, { serverName: "proj" }] },
    servers: {
      badtype: { type: "carrier-pigeon", command: "x" },
      badcmd: { command: 42 },
      notobject: "npx evil",
      novar: { command: "${YOKE_TEST_NOT_SET_ANYWHERE}" },
      broken: { command: 42 },
    },
    projectServers: { proj: { command: 42 } },
    blocked: ["badtype", "badcmd", "notobject", "novar", "proj"],
    failed: ["broken"],
  },
  "denied by url or command with a bad field beside it": {
    policy: { deniedMcpServers: [{ serverUrl: "https://denied.example/*" }, { serverCommand: ["evilcmd", "--x"] }] },
    servers: {
      url: { type: "http", url: "https://denied.example/mcp", headers: "not-an-object" },
      sse: { type: "sse", url: "HTTPS://DENIED.example:443/%6Dcp", timeout: "soon" },
      cmd: { command: "evilcmd", args: ["--x"], env: "not-an-object" },
      broken: { type: "http", url: "https://fine.example/mcp", headers: "not-an-object" },
    },
    blocked: ["url", "sse", "cmd"],
    failed: ["broken"],
  },
  "outside the allowlist": {
    policy: { allowedMcpServers: [{ serverName: "broken" }] },
    servers: { other: { type: "carrier-pigeon" }, also: { command: ["not", "a", "string"] }, broken: { command: 42 } },
    blocked: ["other", "also"],
    failed: ["broken"],
  },
};

function setup(c: Case) {
  const cwd = project({});
  const cfg = join(cwd, "servers.json");
  writeFileSync(cfg, JSON.stringify({ mcpServers: c.servers }));
  if (c.projectServers) writeFileSync(join(cwd, ".mcp.json"), JSON.stringify({ mcpServers: c.projectServers }));
  return { cwd, cfg, env: { ...managedEnv(c.policy), MCP_TIMEOUT: "60000" } };
}

for (const [what, c] of Object.entries(cases))
  describe(what, () => {
    test("yoke mcp list and get", async () => {
      const s = setup(c);
      const env = isolatedEnv({ ...TRUST_WORKSPACE, ...s.env });
      const list = await runYoke(["mcp", "list", "--json", "--mcp-config", s.cfg], { cwd: s.cwd, env });
      expect(list.code).toBe(0);
      const rows = JSON.parse(list.stdout) as Array<{ name: string; status: string }>;
      expect(rows.map((r) => r.name).sort()).toEqual([...c.failed].sort());
      for (const r of rows) expect(r.status).toBe("failed");
      for (const name of c.blocked) {
        const get = await runYoke(["mcp", "get", name, "--mcp-config", s.cfg], { cwd: s.cwd, env });
        expect({ name, code: get.code }).toEqual({ name, code: 1 });
        expect(get.stderr).toContain(`no MCP server named '${name}'`);
      }
    });
    test("a run: system/init and the stderr notice", async () => {
      const s = setup(c);
      const r = await runWith(s.cwd, [say("ok")], ["--mcp-config", s.cfg, "--output-format", "stream-json", "--verbose"], { env: s.env });
      expect(r.code).toBe(0);
      const init = r.lines!.find((l) => l.subtype === "init");
      expect(init.mcp_servers.map((x: { name: string }) => x.name).sort()).toEqual([...c.failed].sort());
      for (const name of c.blocked) expect(r.stderr).toMatch(new RegExp(`server "${name}" \\([^)]*\\) (is blocked by deniedMcpServers|is not in allowedMcpServers)`));
    });
  });
