import { expect, test } from "bun:test";
import { highlightCode } from "../../src/tui/highlight.ts";

// Issue 12 point 2: code blocks in answers are highlighted. NO_COLOR is unset for this file's process by default;
// the assertions read the SGR codes the theme uses (35 magenta keyword, 32 green string, 90 gray comment, 33 number).
const on = !process.env.NO_COLOR;

test.if(on)("keywords, strings, comments and numbers get their colours; the text itself is unchanged", () => {
  const [line] = highlightCode('const x = "if" + 42; // return here', "ts");
  expect(line).toContain("\x1b[35mconst\x1b[39m");
  expect(line).toContain('\x1b[32m"if"\x1b[39m');
  expect(line).toContain("\x1b[33m42\x1b[39m");
  expect(line).toContain("\x1b[90m// return here\x1b[39m");
  expect(line!.replace(/\x1b\[\d+m/g, "")).toBe('const x = "if" + 42; // return here');
});

test.if(on)("a # is a comment in Python and shell, not in TypeScript (private fields) or markdown headings", () => {
  expect(highlightCode("x = 1  # note", "python")[0]).toContain("\x1b[90m# note");
  expect(highlightCode("this.#count = 1", "ts")[0]).not.toContain("\x1b[90m");
  expect(highlightCode("#!/bin/sh", "sh")[0]).not.toContain("\x1b[90m");
});

test("every line of the block comes back, one for one", () => {
  expect(highlightCode("a\n\nb", "js")).toHaveLength(3);
  expect(highlightCode("unterminated 'str", undefined)[0]!.replace(/\x1b\[\d+m/g, "")).toBe("unterminated 'str");
});
