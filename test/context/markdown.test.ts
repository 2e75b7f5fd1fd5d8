import { describe, expect, test } from "bun:test";
import { parse as parseYaml } from "yaml";
import { expandBraces, findImports, isTextPath, parsePathsField, stripBlockHtmlComments } from "../../src/context/markdown.ts";
import { splitFrontmatter } from "../../src/util/frontmatter.ts";

describe("frontmatter and paths (internals §1.1)", () => {
  test("frontmatter is split off and parsed", () => {
    const r = splitFrontmatter("---\npaths:\n  - src/**/*.ts\n---\n# Rule\nbody");
    expect(r.body).toBe("# Rule\nbody");
    expect(r.data).toEqual({ paths: ["src/**/*.ts"] });
  });
  test("broken YAML is still stripped", () => {
    const r = splitFrontmatter("---\npaths: [unclosed\n---\nbody");
    expect(r.data).toBeNull();
    expect(r.body).toBe("body");
  });
  test.each([
    [{ paths: ["src/*.{ts,tsx}"] }, ["src/*.ts", "src/*.tsx"]],
    [{ paths: "a/**, b/{x,y}.md" }, ["a", "b/x.md", "b/y.md"]],
    [{ paths: ["**"] }, null],
    [{ paths: [] }, null],
    [{ other: 1 }, null],
    [{ paths: "docs/**" }, ["docs"]],
  ] as const)("parsePathsField(%j) → %j", (data, want) => {
    expect(parsePathsField(data as Record<string, unknown>)).toEqual(want as string[] | null);
  });
  test.each([
    "paths:\n  - src/**/*.ts\n  - \"lib/*.{js,mjs}\"",
    "paths: \"src/**\"\ndescription: a rule",
    "paths: src/*.{ts,tsx}, docs/**",
    "paths: [a, b]",
    "paths:\n  - a # comment",
    "paths:",
    "paths: 'single'",
  ])("the fast frontmatter reader agrees with the yaml library on %j", (fm) => {
    expect(splitFrontmatter(`---\n${fm}\n---\nbody`).data).toEqual(parseYaml(fm));
  });
  test("a value with a colon is read as text, as Claude Code's quoting retry would", () => {
    expect(splitFrontmatter("---\ndescription: says: something\ntype: feedback\n---\n").data).toEqual({ description: "says: something", type: "feedback" });
  });
  test("nested braces expand", () => {
    expect(expandBraces("{a,b{1,2}}.md")).toEqual(["a.md", "b1.md", "b2.md"]);
  });
});

describe("block HTML comments (internals §1.1)", () => {
  test.each([
    ["a\n<!-- note -->\nb", "a\nb"],
    ["<!-- multi\nline -->\nkept", "kept"],
    ["<!-- c --> tail", " tail"],
    ["text <!-- inline --> text", "text <!-- inline --> text"],
    ["<!-- unclosed\nstill here", "<!-- unclosed\nstill here"],
    ["```\n<!-- in code -->\n```", "```\n<!-- in code -->\n```"],
  ])("%j → %j", (input, want) => {
    expect(stripBlockHtmlComments(input)).toBe(want);
  });
});

describe("@imports (contracts §8)", () => {
  test.each([
    ["See @docs/a.md and @./b.md", ["docs/a.md", "./b.md"]],
    ["@~/x.md\n@/abs/y.md", ["~/x.md", "/abs/y.md"]],
    ["mail me: a@b.com", []],
    ["`@code.md` and ``@x.md``", []],
    ["```\n@fenced.md\n```\n@after.md", ["after.md"]],
    ["text\n\n    @indented.md\n", []],
    ["- item\n\n    @list-continuation.md", ["list-continuation.md"]],
    ["@file\\ with\\ space.md", ["file with space.md"]],
    ["@a.md#section", ["a.md"]],
    ["@@double @#hash", []],
    ["<!-- @commented.md -->", []],
  ])("%j → %j", (text, want) => {
    expect(findImports(text)).toEqual(want);
  });
  test("text extensions", () => {
    expect(isTextPath("/a/b.md")).toBe(true);
    expect(isTextPath("/a/Makefile")).toBe(true);
    expect(isTextPath("/a/pic.png")).toBe(false);
  });
});
