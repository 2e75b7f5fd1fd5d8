// Issue 21: `yoke -p` spawns its stdio MCP servers from its prelude (src/cli/run-prelude.ts) before the rest of yoke
// loads, so what the prelude's module loads is on every configured server's critical path. It reads settings and
// server entries without zod (util/json-check.ts), and loads neither the model's SDK, nor the MCP SDK, nor compose,
// nor the permission engine (the starting mode is read by run-mode.ts), nor compaction (session modules, not the barrel).
import { expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../helpers/binary.ts";
import { tempDir } from "../helpers/tmp.ts";

const root = repoRoot();

test("the headless module and the prelude it runs load no zod, no SDK, no compose, no tool, no permission engine, no compaction", async () => {
  const dir = tempDir("yoke-prelude-loads-");
  const log = join(dir, "modules.json");
  const entry = join(dir, "entry.ts");
  writeFileSync(entry, `await import(${JSON.stringify(join(root, "src/cli/headless.ts"))});\n`);
  const p = Bun.spawn([process.execPath, "--preload", join(root, "test/helpers/module-log.ts"), entry], { cwd: dir, env: { ...process.env, YOKE_MODULE_LOG: log }, stdout: "pipe", stderr: "pipe" });
  const err = await new Response(p.stderr).text();
  expect({ code: await p.exited, err }).toEqual({ code: 0, err: "" });
  const mods = (JSON.parse(readFileSync(log, "utf8")) as string[]).map((m) => (m.startsWith(root) ? m.slice(root.length + 1) : m));
  expect(mods).toContain("src/cli/run-prelude.ts");
  expect(mods).toContain("src/cli/mcp-wiring.ts");
  const heavy = mods.filter((m) => /node_modules\/(zod|@anthropic-ai\/sdk|@modelcontextprotocol\/sdk)\//.test(m) || m === "src/cli/compose.ts" || m.startsWith("src/tool/builtin/") || m === "src/config/schema.ts" || m === "src/permission/evaluator.ts" || m === "src/session/compact.ts" || m.startsWith("src/permission/auto/"));
  expect(heavy).toEqual([]);
  // The session's modules load when a session is set up: a fresh one after the spawn (session-wiring.ts), a resumed one
  // in the prelude (it may refuse the run). Importing the headless module sets none up.
  expect(mods.filter((m) => /^src\/session\/(store|load|list|fork|checkpoints|git-snapshot)\.ts$/.test(m))).toEqual([]);
});
