/**
 * Issue 20.5, the class: every tool in the registry as a user meets it (built-ins, Agent, Skill, StructuredOutput,
 * MCP tools and the MCP resource tools, ToolSearch, a plugin's tools) has a time and a memory bound. The registry
 * comes from the compiled binary (system/init `tools` and the tools sent to the model); each name must have a row in
 * src/loop/tool-bounds.ts (or be MCP's or the plugin's), so a tool added without a bound fails here. The plugin's
 * tools, bare Tool objects with no bound of their own, show the generic bound holds: one that hangs is stopped at
 * YOKE_TOOL_TIMEOUT_MS, one that returns 3 million characters is cut.
 */
import { expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { boundOf, BUILTIN_BOUNDS, MAX_TOOL_RESULT_CHARS } from "../../src/loop/tool-bounds.ts";
import { toolResultsOf } from "../helpers/fake-anthropic.ts";
import { yokeBin } from "../helpers/binary.ts";
import { writeTree } from "../helpers/tmp.ts";
import { project, runWith } from "./hooks-helpers.ts";
import { everything } from "./mcp-helpers.ts";

const PLUGIN_TOOLS = ["Hang", "Flood", "Shout"];

const PLUGIN = `
const bare = (name, run) => ({
  name, description: name, jsonSchema: { type: "object", properties: {} }, inputSchema: { safeParse: (x) => ({ success: true, data: x }) },
  readOnly: true, concurrencySafe: true, parse: (x) => ({ ok: true, input: x }), run,
});
export default {
  name: "unbounded",
  setup(host) {
    // Bare tools: no defineTool, no cut, no signal handling of their own.
    host.tools.register(bare("Hang", () => new Promise(() => {})));
    host.tools.register(bare("Flood", async () => ({ content: "x".repeat(3_000_000) })));
    host.tools.define({ name: "Shout", description: "Shouts", inputSchema: { type: "object", properties: {} }, execute: () => "HEY" });
  },
};
`;

test("every tool in the binary's registry has a bound; a plugin's bare tools are held to the generic one", async () => {
  yokeBin();
  const cwd = project({});
  writeTree(cwd, {
    ".yoke/plugins/unbounded/index.js": PLUGIN,
    ".claude/skills/hello/SKILL.md": "---\ndescription: Says hello\n---\nHELLO\n",
    ".mcp.json": JSON.stringify({ mcpServers: { everything: everything() } }),
  });
  mkdirSync(join(cwd, ".claude"), { recursive: true });
  writeFileSync(join(cwd, ".claude", "settings.local.json"), JSON.stringify({ enableAllProjectMcpServers: true }));
  const schema = JSON.stringify({ type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] });
  const r = await runWith(
    cwd,
    [
      { content: [{ type: "tool_use", name: "Hang", input: {} }] },
      { content: [{ type: "tool_use", name: "Flood", input: {} }] },
      { content: [{ type: "tool_use", name: "StructuredOutput", input: { ok: true } }] },
      { content: [{ type: "text", text: "done" }] },
    ],
    ["--output-format", "stream-json", "--verbose", "--json-schema", schema, "--allowedTools", "Hang,Flood"],
    { env: { YOKE_TOOL_TIMEOUT_MS: "1500", ENABLE_TOOL_SEARCH: "true" }, timeoutMs: 60_000 },
  );
  expect(r.code).toBe(0);
  const lines = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
  const init = lines.find((l) => l.type === "system" && l.subtype === "init");
  const names = new Set<string>([...init.tools, ...r.requests.flatMap((q) => (q.body.tools ?? []).map((t: { name: string }) => t.name))]);

  // The registry as the user meets it holds each family, so the table is checked against all of them.
  for (const n of ["Bash", "Read", "Grep", "Task", "Skill", "StructuredOutput", "ToolSearch", "ListMcpResourcesTool", ...PLUGIN_TOOLS]) expect(names).toContain(n);
  expect([...names].some((n) => n.startsWith("mcp__everything__"))).toBe(true);

  const unbounded = [...names].filter((name) => !boundOf({ name }, PLUGIN_TOOLS.includes(name)));
  expect(unbounded).toEqual([]); // a tool here needs a row in src/loop/tool-bounds.ts
  for (const n of names) if (!PLUGIN_TOOLS.includes(n) && !n.startsWith("mcp__")) expect(boundOf({ name: n })).toBe(BUILTIN_BOUNDS[n === "Task" ? "Agent" : n]!);

  const hang = toolResultsOf(r.requests[1]!)[0]!;
  expect(hang.is_error).toBe(true);
  expect(hang.text).toBe("Hang did not finish within 1.5 s (YOKE_TOOL_TIMEOUT_MS) and was stopped. Try a narrower request (a smaller path, a more specific pattern).");
  const flood = toolResultsOf(r.requests[2]!)[0]!;
  expect(flood.text.length <= MAX_TOOL_RESULT_CHARS).toBe(true);
  expect(flood.text.includes("characters truncated; output was 3000000 characters")).toBe(true);
}, 90_000);
