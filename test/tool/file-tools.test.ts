import { describe, expect, test } from "bun:test";
import { fileTools } from "../../src/tool/builtin/file-tools.ts";
import { declarationOf } from "../../src/tool/declarations.ts";

describe("fileTools registry (contracts §7.1/§7.2 names and schemas)", () => {
  test("names, the field their rules match (from the declaration table) and read-only flags", () => {
    expect(fileTools.map((t) => [t.name, declarationOf(t).ruleTarget?.field, t.readOnly])).toEqual([
      ["Read", "file_path", true],
      ["Write", "file_path", false],
      ["Edit", "file_path", false],
      ["MultiEdit", "file_path", false],
      ["NotebookEdit", "notebook_path", false],
    ]);
  });

  test("JSON schemas carry the contract's required fields and descriptions load from .md", () => {
    const req = Object.fromEntries(fileTools.map((t) => [t.name, [...(t.jsonSchema.required as string[])].sort()]));
    expect(req).toEqual({
      Read: ["file_path"],
      Write: ["content", "file_path"],
      Edit: ["file_path", "new_string", "old_string"],
      MultiEdit: ["edits", "file_path"],
      NotebookEdit: ["new_source", "notebook_path"],
    });
    for (const t of fileTools) expect(t.description.length).toBeGreaterThan(100);
  });
});
