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

  test("full YAML keeps types, and so does the fast reader", () => {
    const text = "---\nmaxTurns: 5\nbackground: true\ntools:\n  - Read\n  - Grep\n---\n";
    expect(parseFrontmatter(text).data).toEqual({ maxTurns: 5, background: true, tools: ["Read", "Grep"] });
    expect(parseFrontmatter(text, { fast: true }).data).toEqual({ maxTurns: 5, background: true, tools: ["Read", "Grep"] });
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
// parser (with the loose reading after it, as skills and commands are read) reads, or hand the block to the parser:
// never a different value, type or error.
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
    "description: Handles task family 3: reads the files\nallowed-tools: Read, Grep\ndisable-model-invocation: true",
    "description: a: b\nmaxTurns: 5",
    "name: a\nname: b",
    "tools:\n  - a\ntools: b",
    "description: a\u00a0",
    "description: \u00a0a",
    "description: a\fb",
    "description: x\ny: z\rw: v",
    "__proto__: x",
    "description:\n\t",
    "user-invocable: False\nmodel: Null\nx: TRUE\ny: tRuE\nz: nULL",
    "x: 007\ny: -0\nz: +2\nw: 12345678901234567890",
  ];
  for (const b of blocks) {
    const text = `---\n${b}\n---\nbody\n`;
    expect({ b, fm: parseFrontmatter(text, { fast: true, loose: true }) }).toEqual({ b, fm: parseFrontmatter(text, { loose: true }) });
  }
});

// Agents read typed fields (maxTurns, tools: null): the fast reader must give exactly what the YAML library (and the
// loose reading after it) gives, types included, or hand the block over.
test("the fast reader reads exactly what the YAML library reads, types included, or leaves the block to it", () => {
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
    expect({ b, data: parseFrontmatter(text, { fast: true, loose: true }).data }).toEqual({ b, data: parseFrontmatter(text, { loose: true }).data });
  }
});

// A table misses what a generator finds (users and attackers find the class): random blocks of key lines, separators,
// values, list items, comments, blank lines, indents and line ends, each read by the fast reader and by the library
// (with the loose reading after it). Identical every time: data, types, body, and the error with its line. Seeded, so
// a failure repeats.
describe("the fast reader against the YAML library, on generated blocks", () => {
  const keys = ["name", "description", "allowed-tools", "model", "x_y", "a1", "-bad", "1bad", "k k", "ké", "__proto__", "constructor"];
  const seps = [": ", ":\t", ":", ":  ", " : ", "::", ": \t"];
  const vals = [
    "plain words", "a: b", "a:b", "a:", "a:\tb", "'single'", '"double"', "'a: b'", "'it''s'", '"esc \\" q"', "x # c", "x\t#c", "x#c",
    "[a, b]", "{a: 1}", "&a x", "*a", "|", ">", "%x", "@x", "`x`", "5", "-1", "+2", "007", "-0", "1_000", "12345678901234567890",
    "true", "False", "TRUE", "tRuE", "yes", "null", "Null", "nULL", "~", ".5", "0x1F", "0o7", "1e3", ".inf", ".NaN", "2024-01-01", "",
    " ", "a\u00a0", "\u00a0a", "a\f", "a\u2003", "\ufeffa", "a\u2028b", "a\u0085", "- a", "? a", "'unterminated", '"a" b', "a 'b'",
    "Read, Grep", "Bash(git:*)", "a\\b", "ü", "a  b", "a\tb", "a\rb", "http://x.y/z", "a - b", "-", "a,b", "-a",
    "#x", ",a", "]a", "}a", "?a", ":a", "? a", "?", ":", "a ? b", "a]", "a}", "a, b",
  ];
  const run = (seed: number, clean: boolean) => {
    let x = seed;
    const rnd = () => (x = (x * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)]!;
    // Clean: mostly what real files hold (a valid key, `: `, LF), so the fast path itself is exercised.
    const line = (): string => {
      const r = rnd();
      if (r < (clean ? 0.85 : 0.65))
        return (clean ? pick(keys.slice(0, 6)) : pick(keys)) + (clean ? ": " : pick(seps)) + pick(vals) + (clean ? "" : pick(["", "", "", " ", "\t"]));
      if (r < 0.9) return pick(["", " ", "\t", "# comment", "  # c"]);
      if (r < 0.95) return pick(["  - ", "- ", "-\t", "  -", "-"]) + pick(vals);
      return rnd() < 0.5 ? `  ${pick(vals)}` : `${pick(keys)}:`;
    };
    const eol = clean ? "\n" : pick(["\n", "\r\n", "\r"]);
    const lines = Array.from({ length: 1 + Math.floor(rnd() * 4) }, line);
    return { lines, text: `---${eol}${lines.join(eol)}${eol}---${eol}body` };
  };
  for (const clean of [true, false])
    test(clean ? "blocks like real files" : "any blocks", () => {
      const emit = process.emitWarning;
      // The library warns about unknown tags on stderr; not what is compared here.
      process.emitWarning = () => {};
      try {
        for (let seed = 1; seed <= 3000; seed++) {
          const { lines, text } = run(seed * 7919 + (clean ? 1 : 0), clean);
          expect({ lines, fm: parseFrontmatter(text, { fast: true, loose: true }) }).toEqual({ lines, fm: parseFrontmatter(text, { loose: true }) });
        }
      } finally {
        process.emitWarning = emit;
      }
    });
});
