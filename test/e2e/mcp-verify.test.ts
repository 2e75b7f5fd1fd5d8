// Issue 13 re-verification: the points whose end-to-end proof was missing, through the compiled binary.
// Point 2: a stdio server runs in its configured cwd with its env (${VAR:-default} expanded), and its stderr is
// captured to a log. Point 4: after compaction the deferred MCP tools come back with the startup context (the
// names in the system prompt, ToolSearch, and the schemas the model had loaded).
import { beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { toolResultsOf } from "../helpers/fake-anthropic.ts";
import { repoRoot, yokeBin } from "../helpers/binary.ts";
import { tempDir } from "../helpers/tmp.ts";
import { runWith, say, systemText } from "./hooks-helpers.ts";
import { call, tiny, toolNames } from "./mcp-helpers.ts";
import { projectStateDir } from "../../src/config/paths.ts";

setDefaultTimeout(60_000);
beforeAll(() => void yokeBin());

test("point 2: a stdio server gets its cwd and env (${VAR:-default} expanded, CLAUDE_PROJECT_DIR set); its stderr goes to a log", async () => {
  const cwd = tempDir("yoke-mcpv-");
  mkdirSync(join(cwd, "sub"));
  const cfg = { mcpServers: { h: { command: "node", args: [join(repoRoot(), "test", "fixtures", "mcp", "hook-server.mjs")], cwd: "sub", env: { K: "${KVAL:-dflt}" } } } };
  const yokeDir = tempDir("yoke-mcpv-state-");
  const r = await runWith(cwd, [call("mcp__h__whereami"), say("ok")], ["--output-format", "stream-json", "--verbose", "--mcp-config", JSON.stringify(cfg)], { env: { YOKE_CONFIG_DIR: yokeDir } });
  expect(r.code).toBe(0);
  const where = JSON.parse(toolResultsOf(r.requests[1]!)[0]!.text);
  expect(where).toEqual({ cwd: join(cwd, "sub"), K: "dflt", project: cwd });
  const log = join(projectStateDir(cwd, { YOKE_CONFIG_DIR: yokeDir }), "mcp-logs", "h.log");
  expect(readFileSync(log, "utf8")).toContain("hook-server: started");
});

test("point 4: after /compact the deferred tools come back with the startup context; a schema the model loaded stays loaded", async () => {
  const cwd = tempDir("yoke-mcpv-");
  const cfg = JSON.stringify({ mcpServers: { t: tiny("ok") } });
  const user = (content: string) => JSON.stringify({ type: "user", message: { role: "user", content } });
  const r = await runWith(
    cwd,
    [call("ToolSearch", { query: "select:mcp__t__add" }), call("mcp__t__add", { a: 1, b: 2 }), say("three"), say("<summary>SUMMARY-TEXT</summary>"), say("after")],
    ["--input-format", "stream-json", "--output-format", "stream-json", "--verbose", "--mcp-config", cfg],
    { stdin: `${user("load add")}\n${user("/compact")}\n${user("what now")}\n`, prompt: undefined, env: { ENABLE_TOOL_SEARCH: "true" } },
  );
  expect(r.code).toBe(0);
  const first = r.requests[0]!;
  expect(toolNames(first)).toContain("ToolSearch");
  expect(toolNames(first)).not.toContain("mcp__t__add");
  expect(systemText(first)).toContain("mcp__t__grow");
  expect(toolResultsOf(r.requests[2]!)[0]).toMatchObject({ is_error: false, text: "3" });
  const last = r.requests.at(-1)!;
  expect(JSON.stringify(last.body.messages)).toContain("SUMMARY-TEXT");
  expect(systemText(last)).toContain("# Deferred tools");
  expect(systemText(last)).toContain("mcp__t__grow");
  expect(toolNames(last)).toEqual(expect.arrayContaining(["ToolSearch", "mcp__t__add"]));
  expect(toolNames(last)).not.toContain("mcp__t__grow");
});
