import { expect, test } from "bun:test";
import { diffLines as coloured, keyArgument, oneLine, proposedDiff, toolLine as colouredLine } from "../../src/tui/tool-lines.ts";

const plain = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, "");
const toolLine = (...a: Parameters<typeof colouredLine>) => plain(colouredLine(...a));
const diffLines = (...a: Parameters<typeof coloured>) => coloured(...a).map(plain);

test("one compact line per tool call: tool, key argument (paths relative to the folder), status, duration", () => {
  expect(keyArgument("Bash", { command: "npm test" }, "/p")).toBe("npm test");
  expect(keyArgument("Edit", { file_path: "/p/src/a.ts" }, "/p")).toBe("src/a.ts");
  expect(keyArgument("Read", { file_path: "/elsewhere/x" }, "/p")).toBe("/elsewhere/x");
  expect(keyArgument("Grep", { pattern: "TODO", path: "src" }, "/p")).toBe("TODO");
  expect(keyArgument("mcp__x__y", { q: "hello", n: 3 }, "/p")).toBe("hello");
  expect(toolLine("Bash", "npm test", { state: "done", ms: 1234 })).toContain("Bash(npm test) 1.2s");
  expect(toolLine("Bash", "false", { state: "error", ms: 5, message: "Exit code 1\nmore" })).toContain("⎿ Exit code 1 …");
});

test("a tool input cannot move the cursor or recolour the screen: control characters are blanked", () => {
  expect(oneLine("ok\x1b[2J\x07rest")).toBe("ok [2J rest");
  expect(keyArgument("Bash", { command: "echo \x1b]0;title\x07" }, "/p")).not.toContain("\x1b");
});

test("the permission prompt shows an edit as a diff; long diffs are cut with a count", () => {
  const d = proposedDiff("Edit", { file_path: "a", old_string: "one\n", new_string: "two\n" }, "/p")!;
  expect(diffLines(d)).toEqual(["@@ -1,1 +1,1 @@", "-one", "+two"]);
  const big = proposedDiff("Write", { file_path: "/nonexistent/dir/f", content: Array.from({ length: 50 }, (_, i) => `l${i}`).join("\n") }, "/p")!;
  const lines = diffLines(big, 10);
  expect(lines.length).toBe(11);
  expect(lines.at(-1)).toMatch(/more lines/);
  expect(proposedDiff("Bash", { command: "ls" }, "/p")).toBeUndefined();
});
