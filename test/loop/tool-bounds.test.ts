/**
 * Issue 20.5: the bounds table (src/loop/tool-bounds.ts) against the built-in tool set, table-driven. Every tool
 * builtinTools() makes needs a row; each row's proof files exist; `own` rows are exactly the tools
 * YOKE_TOOL_TIMEOUT_MS leaves alone. The whole registry, MCP and plugin tools included, is walked through the
 * binary in test/e2e/tool-bounds.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { builtinTools } from "../../src/cli/builtin-tools.ts";
import { boundOf, BUILTIN_BOUNDS, MAX_TOOL_RESULT_CHARS, MCP_BOUND, REGISTERED_BOUND } from "../../src/loop/tool-bounds.ts";
import { capResult, toolDeadlineMs } from "../../src/loop/tool-deadline.ts";

const repo = join(import.meta.dir, "..", "..");

describe.each(builtinTools().map((t) => [t.name]))("built-in %s (issue 20.5)", (name) => {
  test("has a row with a time and a memory bound, proved by test files that exist", () => {
    const b = boundOf({ name });
    expect(b).toBe(BUILTIN_BOUNDS[name]!);
    expect(b!.time.length > 0 && b!.memory.length > 0).toBe(true);
    for (const f of b!.proof) expect(existsSync(join(repo, f))).toBe(true);
  });
  test("ends by itself or under YOKE_TOOL_TIMEOUT_MS", () => {
    expect(toolDeadlineMs(name, {}) === undefined).toBe(BUILTIN_BOUNDS[name]!.deadline === "own");
  });
});

test("every row, the MCP rule and the generic rule name proof files that exist", () => {
  for (const b of [...Object.values(BUILTIN_BOUNDS), MCP_BOUND, REGISTERED_BOUND]) for (const f of b.proof) expect(existsSync(join(repo, f))).toBe(true);
});

test("a tool yoke ships without a row has no bound (the e2e fails on it); MCP and registered tools get their rules", () => {
  expect(boundOf({ name: "Teleport" })).toBeUndefined();
  expect(boundOf({ name: "Teleport" }, true)).toBe(REGISTERED_BOUND);
  expect(boundOf({ name: "mcp__srv__x" })).toBe(MCP_BOUND);
  expect(boundOf({ name: "Task" })).toBe(BUILTIN_BOUNDS.Agent!);
  expect(toolDeadlineMs("mcp__srv__x", {})).toBeUndefined();
  expect(toolDeadlineMs("Teleport", {})).toBe(600_000);
});

test("capResult cuts any text past MAX_TOOL_RESULT_CHARS, a string or text blocks, and says so", () => {
  const big = "y".repeat(MAX_TOOL_RESULT_CHARS + 10);
  const s = capResult({ content: big });
  expect((s.content as string).length <= MAX_TOOL_RESULT_CHARS).toBe(true);
  expect(s.content as string).toContain(`output was ${MAX_TOOL_RESULT_CHARS + 10} characters`);
  const blocks = capResult({ content: [{ type: "text", text: big }] });
  expect(((blocks.content as Array<{ text: string }>)[0]!.text.length <= MAX_TOOL_RESULT_CHARS)).toBe(true);
  expect(capResult({ content: "small" }).content).toBe("small");
});
