// Issue 14 point 7 (the first start): the commonest frontmatter block (`key: value` lines only) is read with one
// native match and one split (simpleBlock). It must read exactly what the YAML library reads (with the loose reading
// after it, as skills and commands are read), or leave the block to the longer way: never a different value, type,
// body or error. The variants files arrive in, then a generator of blocks that mostly take the one-match path.
import { describe, expect, test } from "bun:test";
import { parseFrontmatter, simpleBlock } from "../../src/util/frontmatter.ts";

const fast = (text: string) => parseFrontmatter(text, { fast: true, loose: true });
const library = (text: string) => parseFrontmatter(text, { loose: true });

describe("one-match frontmatter against the YAML library", () => {
  test.each([
    ["LF", "---\nname: a\ndescription: plain words, with commas\n---\nbody\n", true],
    ["CRLF", "---\r\nname: a\r\ndescription: plain words\r\n---\r\nbody\r\n", true],
    ["a BOM", "\uFEFF---\nname: a\n---\nbody\n", true],
    ["blanks after the fences and the values", "--- \nname: a \t\nmodel: opus\t\n---\t\nbody", true],
    ["no body", "---\nname: a\n---", true],
    ["no frontmatter", "# Title\nname: a\n", false],
    ["`---` inside a value", "---\ndescription: a --- b\n---\nbody", false],
    ["a value ending in `---` (the block ends there, as it always did)", "---\ndescription: ends ---\nmodel: opus\n---\nbody", false],
    ["`--` and `-` inside a value", "---\ndescription: a -- b - c-d\n---\nbody", true],
    ["a very long description", `---\ndescription: ${"word ".repeat(2000).trim()}\n---\nbody`, true],
    ["true, false and null in their spellings", "---\na: true\nb: False\nc: NULL\nd: tRuE\ne: nULL\n---\n", true],
    ["a colon and a blank in a value: read loosely, all text", "---\ndescription: Use this when: the diff is big\ndisable-model-invocation: true\n---\n", true],
    ["a colon at a value's end", "---\ndescription: ends with a colon:\nx: true\n---\n", true],
    ["a colon inside a word", "---\ndescription: http://x.y/z and a:b\nx: false\n---\n", true],
    ["a comment", "---\ndescription: x # a comment\n---\n", false],
    ["a hash inside a word", "---\ndescription: C# and x#y\n---\n", true],
    ["quotes", "---\ndescription: \"quoted: yes\"\nmodel: 'opus'\n---\n", false],
    ["a quote inside", "---\ndescription: it's the team's\n---\n", true],
    ["numbers", "---\nmaxTurns: 5\nx: -1\ny: .5\n---\n", false],
    ["a list", "---\nallowed-tools:\n  - Read\n  - Grep\n---\n", false],
    ["nested hooks", "---\nhooks:\n  PreToolUse:\n    - matcher: Bash\n---\n", false],
    ["a flow list", "---\nallowed-tools: [Read, Grep]\n---\n", false],
    ["a key twice", "---\nname: a\nname: b\n---\n", false],
    ["a __proto__ key", "---\n__proto__: x\nname: a\n---\n", false],
    ["a constructor key", "---\nconstructor: x\n---\n", false],
    ["__proto__ as a value", "---\nname: __proto__\n---\n", true],
    ["a no-break space", "---\ndescription: a\u00a0b\n---\n", false],
    ["a lone CR", "---\ndescription: a\rb: c\n---\n", false],
    ["a tab in a value", "---\ndescription: a\tb\n---\n", true],
    ["the replacement character (bytes that are not UTF-8)", "---\ndescription: caf\ufffd \ufffd\ufffd\n---\n", true],
    ["an empty value", "---\nname:\ndescription: x\n---\n", false],
    ["no blank after the colon", "---\nname:a\n---\n", false],
    ["an indented line", "---\nname: a\n  more\n---\n", false],
    ["broken YAML", "---\nname: [unclosed\n= oops\n---\n", false],
    ["an empty block", "---\n---\nbody", false],
    ["an unclosed block", "---\nname: a\n", false],
  ])("%s", (_what, text, oneMatch) => {
    expect(fast(text)).toEqual(library(text));
    const t = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
    // The path asserted, so a table row cannot pass by falling back unnoticed.
    expect(simpleBlock(t) !== null).toBe(oneMatch);
  });

  // Blocks like real skill and command files, with LF, CRLF and a BOM, values near the edges of the one-match path.
  test("generated blocks: the same data, types, body and error as the library; many take the one-match path", () => {
    const keys = ["name", "description", "allowed-tools", "argument-hint", "model", "when_to_use", "disable-model-invocation", "user-invocable", "paths", "constructor", "__proto__"];
    const vals = [
      "plain words", "Read, Grep", "Bash(git:*)", "<path>", "opus", "true", "False", "NULL", "yes", "a: b", "a:", "a:b", "a --- b", "a ---",
      "---", "a -- b", "-a", "- a", "a - b", "x # c", "x#c", "C#", "'q'", '"q"', "it's", "a\tb", "a\u00a0b", "caf\ufffd", "5", "-1", ".5",
      "~", "[a]", "{a: 1}", "&a", "*a", "|", ">", "?a", ":a", "@a", "`a`", "%a", "!a", ",a", "ü", "a\\b", "${CLAUDE_PLUGIN_ROOT}/x",
      "http://x.y", "a  b", "a ", "__proto__",
    ];
    let x = 12345;
    const rnd = () => (x = (x * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)]!;
    const emit = process.emitWarning;
    // The library warns about unknown tags on stderr; not what is compared here.
    process.emitWarning = () => {};
    let oneMatch = 0;
    const runs = 3000;
    try {
      for (let i = 0; i < runs; i++) {
        const eol = pick(["\n", "\n", "\r\n"]);
        const bom = rnd() < 0.1 ? "\uFEFF" : "";
        const lines = Array.from({ length: 1 + Math.floor(rnd() * 5) }, () => `${pick(keys)}:${pick([" ", " ", " ", "\t", "  "])}${rnd() < 0.7 ? pick(vals.slice(0, 9)) : pick(vals)}${pick(["", "", "", " "])}`);
        const text = `${bom}---${eol}${lines.join(eol)}${eol}---${eol}body${eol}`;
        expect({ lines, fm: fast(text) }).toEqual({ lines, fm: library(text) });
        if (simpleBlock(bom ? text.slice(1) : text)) oneMatch++;
      }
    } finally {
      process.emitWarning = emit;
    }
    // Not vacuous: the one-match path itself read a good part of them (the rest have a key twice or a value it leaves).
    expect(oneMatch).toBeGreaterThan(runs / 5);
  });
});
