import { afterAll, expect, test } from "bun:test";
import path from "node:path";
import { createGrepTool, type GrepInput } from "../../src/tool/builtin/grep.ts";
import { requiredLiteral } from "../../src/tool/builtin/search/regex.ts";
import { makeCtx, removeTempDirs, tempDir, writeTree } from "./search-ctx.ts";

// Rust-regex syntax the built-in engine must read as ripgrep does (contracts §7.2 Grep: "ripgrep regex").
const hasRg = !!Bun.which("rg");
const root = tempDir();
writeTree(root, { "a.txt": "Abcd\nxabc\nzz]abc\nLabc\nC:\\Admin\\x\nfoo\nbar foo\n", "b.txt": "a#b-c~d\n" });
afterAll(removeTempDirs);

const lines = (...ns: number[]) => {
  const text = ["Abcd", "xabc", "zz]abc", "Labc", "C:\\Admin\\x", "foo", "bar foo"];
  return ns.map((n) => `${path.join(root, "a.txt")}:${n}:${text[n - 1]}`).join("\n");
};

const cases: Array<[GrepInput, string]> = [
  [{ pattern: "\\x41bcd" }, lines(1)],
  [{ pattern: "\\x{41}bcd" }, lines(1)],
  [{ pattern: "\\u0041bcd" }, lines(1)],
  [{ pattern: "\\U{41}dmin" }, lines(5)],
  [{ pattern: "\\U00000041dmin" }, lines(5)],
  [{ pattern: "\\pLabc" }, lines(2, 4)],
  [{ pattern: "[\\]x]abc" }, lines(2, 3)],
  [{ pattern: "[^]]abc" }, lines(2, 4)],
  [{ pattern: "C:\\\\Admin" }, lines(5)],
  [{ pattern: "\\\\x" }, lines(5)],
  [{ pattern: "\\Afoo" }, lines(6)],
  [{ pattern: "foo\\z" }, lines(6, 7)],
];

test.each(cases)("built-in engine reads %j as ripgrep does", async (q, want) => {
  const r = await createGrepTool({ engine: "builtin" }).run({ ...q, output_mode: "content" }, makeCtx(root));
  expect(r.content).toBe(want);
});

test.skipIf(!hasRg)("rg gives the same answers (the expectations above are ripgrep's)", async () => {
  for (const [q, want] of cases) {
    const r = await createGrepTool({ engine: "rg" }).run({ ...q, output_mode: "content" }, makeCtx(root));
    expect({ q, out: r.content }).toEqual({ q, out: want });
  }
  // One ripgrep process per case: more than the 5 s default on a loaded 2-core machine.
});

test.each(["\\Qa.b\\E", "\\y", "\\Z", "\\0"])("an escape ripgrep rejects (%s) is an error, not a literal letter", async (pattern) => {
  const r = await createGrepTool({ engine: "builtin" }).run({ pattern }, makeCtx(root));
  expect(r.isError).toBe(true);
  expect(String(r.content)).toStartWith("Error: Invalid regular expression");
  if (hasRg) expect((await createGrepTool({ engine: "rg" }).run({ pattern }, makeCtx(root))).isError).toBe(true);
});

test("escaped punctuation stands for itself", async () => {
  const r = await createGrepTool({ engine: "builtin" }).run({ pattern: "a\\#b\\-c\\~d", output_mode: "content" }, makeCtx(root));
  expect(r.content).toBe(`${path.join(root, "b.txt")}:1:a#b-c~d`);
});

test("\\A and \\z anchor the whole file in multiline mode", async () => {
  const r = await createGrepTool({ engine: "builtin" }).run({ pattern: "\\Afoo", multiline: true }, makeCtx(root));
  expect(r.content).toBe("No files found");
  const z = await createGrepTool({ engine: "builtin" }).run({ pattern: "foo\\n\\z", multiline: true }, makeCtx(root));
  expect(z.content).toBe(path.join(root, "a.txt"));
});

test("the literal prefilter never demands text a match may lack", () => {
  expect(requiredLiteral("[\\]x]abc", false)).toBe("abc");
  expect(requiredLiteral("[^]]abc", false)).toBe("abc");
  expect(requiredLiteral("[[:alpha:]]abc", false)).toBe("abc");
  expect(requiredLiteral("\\x41bcd", false)).toBe("bcd");
  expect(requiredLiteral("\\x{41}bcd", false)).toBe("bcd");
  expect(requiredLiteral("\\pLabc", false)).toBe("abc");
  expect(requiredLiteral("\\p{Lu}abc", false)).toBe("abc");
  expect(requiredLiteral("\\u0041bcd", false)).toBe("bcd");
});
