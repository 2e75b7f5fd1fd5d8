// Issue 11 point 6: one frontmatter reader for instruction files, rules, memory files and agents (and the
// skills and commands to come). The shapes files arrive in: BOM, CRLF, empty blocks, no block, bad YAML.
import { describe, expect, test } from "bun:test";
import { parseFrontmatter, splitFrontmatter } from "../../src/util/frontmatter.ts";

describe("parseFrontmatter", () => {
  test.each([
    ["LF", "---\nname: a\n---\nbody\n"],
    ["CRLF", "---\r\nname: a\r\n---\r\nbody\n"],
    ["BOM", "\uFEFF---\nname: a\n---\nbody\n"],
    ["trailing spaces on the fences", "--- \nname: a\n---\t\nbody\n"],
  ])("%s", (_what, text) => {
    expect(parseFrontmatter(text)).toEqual({ present: true, data: { name: "a" }, body: "body\n" });
  });

  test("no block, an unclosed block, a block not at the top: the text is all body", () => {
    for (const text of ["just text\n", "---\nname: a\nno end\n", "intro\n---\nname: a\n---\n"])
      expect(parseFrontmatter(text)).toEqual({ present: false, data: null, body: text });
  });

  test("an empty block is an empty mapping; a block that is not a mapping says so", () => {
    expect(parseFrontmatter("---\n---\nbody")).toEqual({ present: true, data: {}, body: "body" });
    expect(parseFrontmatter("---\n- a\n- b\n---\nbody")).toMatchObject({ present: true, data: null, error: { message: "the frontmatter must be a mapping of fields" } });
  });

  test("full YAML keeps types; the fast reader gives strings", () => {
    const text = "---\nmaxTurns: 5\nbackground: true\ntools:\n  - Read\n  - Grep\n---\n";
    expect(parseFrontmatter(text).data).toEqual({ maxTurns: 5, background: true, tools: ["Read", "Grep"] });
    expect(parseFrontmatter(text, { fast: true }).data).toEqual({ maxTurns: "5", background: "true", tools: ["Read", "Grep"] });
  });

  test("bad YAML: an error with its line in the file; loose reading for `key: value: with colons`", () => {
    const text = "---\nname: reviewer\ndescription: Use this when: the diff is big\n---\nPrompt";
    const strict = parseFrontmatter(text);
    expect(strict).toMatchObject({ present: true, data: null, body: "Prompt", error: { line: 3 } });
    expect(strict.error!.message).toStartWith("invalid YAML frontmatter:");
    expect(parseFrontmatter(text, { loose: true })).toEqual({ present: true, data: { name: "reviewer", description: "Use this when: the diff is big" }, body: "Prompt" });
    // Not even loosely readable: a line that is neither `key: value` nor a continuation.
    const hopeless = parseFrontmatter("---\nname: [unclosed\n= oops\n---\n", { loose: true });
    expect(hopeless.data).toBeNull();
    expect(hopeless.error?.line).toBeGreaterThanOrEqual(2);
  });

  test("parse: false only splits", () => {
    expect(parseFrontmatter("---\nname: [x\n---\nbody", { parse: false })).toEqual({ present: true, data: null, body: "body" });
  });
});

test("splitFrontmatter (instruction files, memory files): data and body, unreadable YAML still stripped", () => {
  expect(splitFrontmatter("---\npaths: src/**\n---\nrule")).toEqual({ data: { paths: "src/**" }, body: "rule" });
  expect(splitFrontmatter("---\na: [x\n---\nrule")).toEqual({ data: null, body: "rule" });
  expect(splitFrontmatter("---\na: b\n---\nrule", false)).toEqual({ data: null, body: "rule" });
});

// The fast reader (issue 14 point 7: it runs for every skill and command at startup) must read exactly what the YAML
// parser (with the loose reading after it, as skills and commands are read) reads, as strings, or hand the block to
// the parser: never a different value.
test("the fast reader agrees with the YAML parser and the loose reading, or leaves the block to them", () => {
  const blocks = [
    "name: a\ndescription: plain words, with commas",
    "description: \"quoted: with a colon\"\nmodel: 'single'",
    'description: "escaped \\" quote"',
    "description: 'it''s'",
    "description: x # a comment",
    "tools:\n  - Read\n  - Grep\nmodel: haiku",
    "tools:\n- Read\n- \"Bash(git:*)\"",
    "empty:\nnext: 1",
    "description: >\n  folded\n  text",
    "description: |\n  block",
    "list: [a, b]",
    "map: {a: 1}",
    "anchor: &x v",
    "key_with-dash: v\n# a comment line\n\nafter: blank",
    "description: ends with a colon:",
    "description: \"unterminated",
    "description: \"a\" trailing",
    "  indented: no",
    "- not a mapping",
    "description: tab\there",
    "allowed-tools: Bash(npm run *), Read",
  ];
  for (const b of blocks) {
    const text = `---\n${b}\n---\nbody\n`;
    const fast = parseFrontmatter(text, { fast: true, loose: true });
    const full = parseFrontmatter(text, { loose: true });
    const asStrings = (v: unknown): unknown =>
      v === null || v === undefined ? null : Array.isArray(v) ? v.map(asStrings) : typeof v === "object" ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, asStrings(x)])) : String(v);
    // Either the fast path read it (every value a string) or the parser did (the same result as without `fast`).
    if (full.error || full.data === null) expect({ b, data: fast.data }).toEqual({ b, data: full.data });
    else expect([asStrings(full.data), full.data]).toContainEqual(fast.data);
  }
});

// Agents read typed fields (maxTurns, tools: null): with `exact`, the fast reader must give exactly what the YAML library
// (and the loose reading after it) gives, types included, or hand the block over.
test("fast + exact reads exactly what the YAML library reads, types included, or leaves the block to it", () => {
  const blocks = [
    "name: a\ndescription: plain words, with commas",
    "name: reviewer\ndescription: Use this when: the diff is big",
    "tools:\n  - Read\n  - Grep\nmodel: haiku",
    "maxTurns: 5",
    "maxTurns: -1",
    "maxTurns: +2",
    "x: 0x1F",
    "x: 0o17",
    "x: 1e3",
    "x: .5",
    "x: .inf",
    "x: .NaN",
    "tools: null",
    "tools: Null",
    "tools: NULL",
    "model: ~",
    "background: true",
    "background: False",
    "background: TRUE",
    "background: yes",
    "date: 2024-01-01",
    "tools:\n  - 1\n  - Read",
    "tools:\n  - null",
    "tools:\n  - true",
    "model: '5'",
    'model: "true"',
    "name: 5abc",
    "empty:\nnext: x",
    "description: x # a comment",
    "description: >\n  folded",
  ];
  for (const b of blocks) {
    const text = `---\n${b}\n---\nbody\n`;
    expect({ b, data: parseFrontmatter(text, { fast: true, exact: true, loose: true }).data }).toEqual({ b, data: parseFrontmatter(text, { loose: true }).data });
  }
});
