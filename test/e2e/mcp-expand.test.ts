// `${VAR}` / `${VAR:-default}` in an MCP server's config, in the compiled binary (contracts §6.6). Nested defaults
// (`${A:-${B}}`) expand and reach the server; malformed text (an unclosed `${`, an empty or invalid name) and a missing
// variable without a default fail that server with an error naming the file, the server and the field, while the other
// servers and the run go on. Claude Code 2.1.332 (observed with `claude -p --mcp-config` and `claude mcp list`): passes
// `${A:-${B}}` on as the text `${B}`, and malformed text and a missing variable as written (the latter with a warning
// in `mcp list`'s diagnostics) — yoke expands the nesting and refuses the rest instead (README compatibility table).
import { beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isolatedEnv, runYoke, TRUST_WORKSPACE, yokeBin } from "../helpers/binary.ts";
import { project, runWith, say } from "./hooks-helpers.ts";
import { tiny } from "./mcp-helpers.ts";

setDefaultTimeout(120_000);
beforeAll(() => void yokeBin());

/** A server that writes $GOT (its env entry, expanded by yoke) to `out`, then serves as the tiny fixture. */
const recorder = (out: string, got: string) => ({ command: "sh", args: ["-c", `printf %s "$GOT" > '${out}'; exec node '${tiny("ok").args[0]}' ok`], env: { GOT: got } });

test("nested defaults reach the server expanded; malformed or missing text fails just that server, naming file, server and field", async () => {
  const cwd = project({});
  const out = (n: string) => join(cwd, `${n}.out`);
  const cfg = join(cwd, "servers.json");
  const servers = {
    nested: recorder(out("nested"), "${YOKE_T_UNSET:-${YOKE_T_B}}"),
    deep: recorder(out("deep"), "x-${YOKE_T_UNSET:-${YOKE_T_UNSET2:-<${YOKE_T_C}>}}-y"),
    setwins: recorder(out("setwins"), "${YOKE_T_B:-${YOKE_T_UNSET}}"),
    shell: { ...recorder(out("shell"), "${YOKE_T_B}"), args: ["-c", `printf %s "\${GOT%e}" > '${out("shell")}'; exec node '${tiny("ok").args[0]}' ok`] },
    unclosed: { command: "node", args: [tiny("ok").args[0]!, "${YOKE_T_B"] },
    empty: recorder(out("empty"), "${}"),
    emptydefault: { type: "http", url: "https://h.example/mcp", headers: { Authorization: "Bearer ${:-x}" } },
    missing: recorder(out("missing"), "${YOKE_T_UNSET:-${YOKE_T_UNSET2}}"),
  };
  writeFileSync(cfg, JSON.stringify({ mcpServers: servers }));
  const env = { YOKE_T_B: "bee", YOKE_T_C: "sea", MCP_TIMEOUT: "60000" };

  const list = await runYoke(["mcp", "list", "--json", "--mcp-config", cfg], { cwd, env: isolatedEnv({ ...TRUST_WORKSPACE, ...env }) });
  expect(list.code).toBe(0);
  const rows = Object.fromEntries((JSON.parse(list.stdout) as Array<{ name: string; status: string; error?: string }>).map((r) => [r.name, r]));
  for (const n of ["nested", "deep", "setwins", "shell"]) expect({ n, status: rows[n]!.status }).toEqual({ n, status: "connected" });
  expect(readFileSync(out("nested"), "utf8")).toBe("bee");
  expect(readFileSync(out("deep"), "utf8")).toBe("x-<sea>-y");
  expect(readFileSync(out("setwins"), "utf8")).toBe("bee");
  expect(readFileSync(out("shell"), "utf8")).toBe("be");
  const failed: Record<string, string> = {
    unclosed: `${cfg}: mcpServers.unclosed: field "args[1]": unclosed "\${" in "\${YOKE_T_B"`,
    empty: `${cfg}: mcpServers.empty: field "env.GOT": empty variable name in "\${}"`,
    emptydefault: `${cfg}: mcpServers.emptydefault: field "headers.Authorization": empty variable name in "Bearer \${:-x}"`,
    missing: `${cfg}: mcpServers.missing: missing environment variables: YOKE_T_UNSET2 (in "env.GOT"; no default given)`,
  };
  for (const [n, why] of Object.entries(failed)) {
    expect({ n, status: rows[n]!.status }).toEqual({ n, status: "failed" });
    expect(rows[n]!.error).toContain(why);
  }

  const run = await runWith(cwd, [say("ok")], ["--mcp-config", cfg, "--output-format", "stream-json", "--verbose"], { env });
  expect(run.code).toBe(0);
  const init = run.lines!.find((l) => l.subtype === "init");
  expect(Object.fromEntries(init.mcp_servers.map((s: { name: string; status: string }) => [s.name, s.status]))).toEqual({
    nested: "connected",
    deep: "connected",
    setwins: "connected",
    shell: "connected",
    unclosed: "failed",
    empty: "failed",
    emptydefault: "failed",
    missing: "failed",
  });
  for (const why of Object.values(failed)) expect(run.stderr).toContain(why);
});
