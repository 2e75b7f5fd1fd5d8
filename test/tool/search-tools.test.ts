import { expect, test } from "bun:test";
import { createWebFetchTool, searchTools } from "../../src/tool/builtin/search-tools.ts";

test("searchTools holds Glob and Grep, read-only, with the contract's input names (contracts §7.2)", () => {
  expect(searchTools.map((t) => t.name)).toEqual(["Glob", "Grep"]);
  for (const t of searchTools) {
    expect(t.readOnly).toBe(true);
    expect(t.concurrencySafe).toBe(true);
    expect(t.description.length).toBeGreaterThan(200);
  }
  const [glob, grep] = searchTools as [(typeof searchTools)[0], (typeof searchTools)[0]];
  expect(glob.jsonSchema.required).toEqual(["pattern"]);
  expect(Object.keys(glob.jsonSchema.properties as object)).toEqual(["pattern", "path"]);
  expect(grep.jsonSchema.required).toEqual(["pattern"]);
  expect(Object.keys(grep.jsonSchema.properties as object).sort()).toEqual(
    ["-A", "-B", "-C", "-i", "-n", "-o", "context", "glob", "head_limit", "multiline", "offset", "output_mode", "path", "pattern", "type"].sort(),
  );
  const wf = createWebFetchTool();
  expect(wf.jsonSchema.required).toEqual(["url", "prompt"]);
});
