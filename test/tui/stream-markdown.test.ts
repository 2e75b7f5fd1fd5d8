import { expect, test } from "bun:test";
import { Markdown } from "@mariozechner/pi-tui";
import { fencedPiece, stableCut } from "../../src/tui/stream-markdown.ts";
import { markdownTheme } from "../../src/tui/theme.ts";
import { highlightCode } from "../../src/tui/highlight.ts";

const render = (t: string, width = 60) => new Markdown(t, 0, 0, { ...markdownTheme, highlightCode }).render(width).map((l) => l.trimEnd());

/** Streams `text` in small pieces, freezing at every cut, and renders the pieces one by one as the screen does. */
function streamed(text: string, maxLines = 4, step = 3, width = 60): { pieces: string[]; lines: string[] } {
  const pieces: Array<{ text: string; reopen: string | null; open: string | null; blockEnd: boolean }> = [];
  let frozen = 0;
  let reopen: string | null = null;
  for (let i = 1; i <= text.length; i += step) {
    for (let cut = stableCut(text.slice(0, i), frozen, maxLines, reopen); cut; cut = stableCut(text.slice(0, i), frozen, maxLines, reopen)) {
      pieces.push({ text: text.slice(frozen, cut.at), reopen, open: cut.open, blockEnd: cut.blockEnd });
      frozen = cut.at;
      reopen = cut.open;
    }
  }
  pieces.push({ text: text.slice(frozen), reopen, open: null, blockEnd: false });
  const lines: string[] = [];
  for (const p of pieces) {
    const f = fencedPiece(p.text, p.reopen, p.open);
    const r = render(f.source, width);
    const kept = r.slice(f.dropFirst, r.length - f.dropLast);
    lines.push(...kept);
    // A block boundary keeps the blank line the whole answer has between blocks.
    if (p.blockEnd && kept.length && kept.at(-1) !== "") lines.push("");
  }
  return { pieces: pieces.map((p) => p.text), lines };
}

test("nothing to cut in a short tail or a half-written line", () => {
  expect(stableCut("one line, no newline yet", 0)).toBeNull();
  expect(stableCut("a\nb\nc", 0, 30)).toBeNull();
});

test("cuts after a blank line once the next line shows a new block; never inside a code fence", () => {
  expect(stableCut("para\n\nnext", 0)).toBeNull(); // the next line is not complete yet
  expect(stableCut("para\n\nnext\n", 0)).toEqual({ at: 6, blockEnd: true, open: null });
  const fenced = "```ts\nconst a = 1;\n\nconst b = 2;\n";
  expect(stableCut(fenced, 0, 1)).toBeNull();
  const closed = "```ts\nconst a = 1;\n\nconst b = 2;\n```\n\nafter\n";
  expect(closed.slice(0, stableCut(closed, 0)!.at)).toBe("```ts\nconst a = 1;\n\nconst b = 2;\n```\n\n");
  // A list item's indented second paragraph is not a boundary.
  expect(stableCut("- item\n\n    more of the item\n", 0)).toBeNull();
});

test("a long paragraph is cut at a line whose next line cannot continue it", () => {
  const lines = Array.from({ length: 10 }, (_, i) => `line ${i}`);
  expect(stableCut(`${lines.join("\n")}\n`, 0, 4)).toEqual({ at: `${lines.slice(0, 9).join("\n")}\n`.length, blockEnd: false, open: null });
  // Not before a setext underline, a table row or an indented line.
  expect(stableCut("a\nb\nc\nTitle\n=====\n", 0, 3)?.at).toBe("a\nb\nc\n".length);
  expect(stableCut("| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n", 0, 1)).toBeNull();
  expect(stableCut("- a\n  b\n  c\n  d\n", 0, 1)).toBeNull();
});

test("streamed and frozen piece by piece, an answer renders as it does whole", () => {
  const answer = [
    "# Plan",
    "",
    "First a paragraph that goes on",
    "over several lines",
    "and more lines",
    "and still more",
    "and the end of it.",
    "",
    "- one",
    "- two",
    "  continued",
    "- three",
    "",
    "```ts",
    "const x = 1;",
    "",
    "const y = 2;",
    "```",
    "",
    "| a | b |",
    "|---|---|",
    "| 1 | 2 |",
    "",
    "Closing words.",
  ].join("\n");
  const s = streamed(answer, 3);
  expect(s.pieces.length).toBeGreaterThan(4);
  expect(s.lines).toEqual(render(answer));
});

test("a long code block is cut between two code lines; the pieces say which fence is still open", () => {
  const code = Array.from({ length: 8 }, (_, i) => `const v${i} = ${i};`);
  const text = `\`\`\`ts\n${code.join("\n")}\n`;
  const cut = stableCut(text, 0, 4)!;
  expect(cut).toEqual({ at: `\`\`\`ts\n${code.slice(0, 7).join("\n")}\n`.length, blockEnd: false, open: "```ts" });
  // Not before a blank code line, nor before what may be the closing fence, nor in an indented (list) fence.
  expect(stableCut("```\na\nb\nc\n\nd\n", 0, 2, null)?.at).toBe("```\na\nb\n".length);
  expect(stableCut("```\na\nb\n```\n", 0, 1)?.at).toBe("```\na\n".length);
  expect(stableCut("- x\n\n  ```\n  a\n  b\n  c\n", 0, 1)).toBeNull();
  // Continuing inside the fence it opened.
  expect(stableCut("x\ny\nz\n", 0, 2, "~~~~py")).toEqual({ at: 4, blockEnd: false, open: "~~~~py" });
  expect(fencedPiece("a\n", "```ts", "```ts")).toEqual({ source: "```ts\na\n```", dropFirst: 1, dropLast: 1 });
  expect(fencedPiece("a\n", null, "~~~~py")).toEqual({ source: "a\n~~~~", dropFirst: 0, dropLast: 1 });
});

test("streamed and frozen piece by piece, an answer with long code blocks renders as it does whole, at any width", () => {
  const long = Array.from({ length: 25 }, (_, i) => `  if (x${i} > ${i}) return "a string that is long enough to wrap at a narrow width"; // note ${i}`);
  const answer = [
    "Before the code:",
    "```ts",
    ...long,
    "```",
    "",
    "~~~~python",
    ...Array.from({ length: 12 }, (_, i) => `print(${i})  # ${"x".repeat(i)}`),
    "",
    "print('after a blank line')",
    "~~~~",
    "",
    "- a list",
    "- with two items",
    "",
    "```",
    ...Array.from({ length: 9 }, (_, i) => `plain ${i}`),
  ].join("\n");
  for (const width of [100, 40]) {
    const s = streamed(answer, 3, 5, width);
    expect(s.pieces.length).toBeGreaterThan(12);
    expect(s.lines).toEqual(render(answer, width));
  }
});
