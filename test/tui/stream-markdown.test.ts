import { expect, test } from "bun:test";
import { Markdown } from "@mariozechner/pi-tui";
import { stableCut } from "../../src/tui/stream-markdown.ts";
import { markdownTheme } from "../../src/tui/theme.ts";

const render = (t: string) => new Markdown(t, 0, 0, markdownTheme).render(60).map((l) => l.trimEnd());

/** Streams `text` in small pieces, freezing at every cut, and renders the pieces one by one as the screen does. */
function streamed(text: string, maxLines = 4): { pieces: string[]; lines: string[] } {
  const pieces: string[] = [];
  let frozen = 0;
  for (let i = 1; i <= text.length; i += 3) {
    const cut = stableCut(text.slice(0, i), frozen, maxLines);
    if (cut) {
      pieces.push(text.slice(frozen, cut.at));
      frozen = cut.at;
    }
  }
  pieces.push(text.slice(frozen));
  const lines: string[] = [];
  for (const [n, p] of pieces.entries()) {
    const r = render(p);
    lines.push(...r);
    // A block boundary keeps the blank line the whole answer has between blocks.
    if (n < pieces.length - 1 && p.endsWith("\n\n") && r.length && r.at(-1) !== "") lines.push("");
  }
  return { pieces, lines };
}

test("nothing to cut in a short tail or a half-written line", () => {
  expect(stableCut("one line, no newline yet", 0)).toBeNull();
  expect(stableCut("a\nb\nc", 0, 30)).toBeNull();
});

test("cuts after a blank line once the next line shows a new block; never inside a code fence", () => {
  expect(stableCut("para\n\nnext", 0)).toBeNull(); // the next line is not complete yet
  expect(stableCut("para\n\nnext\n", 0)).toEqual({ at: 6, blockEnd: true });
  const fenced = "```ts\nconst a = 1;\n\nconst b = 2;\n";
  expect(stableCut(fenced, 0, 1)).toBeNull();
  const closed = "```ts\nconst a = 1;\n\nconst b = 2;\n```\n\nafter\n";
  expect(closed.slice(0, stableCut(closed, 0)!.at)).toBe("```ts\nconst a = 1;\n\nconst b = 2;\n```\n\n");
  // A list item's indented second paragraph is not a boundary.
  expect(stableCut("- item\n\n    more of the item\n", 0)).toBeNull();
});

test("a long paragraph is cut at a line whose next line cannot continue it", () => {
  const lines = Array.from({ length: 10 }, (_, i) => `line ${i}`);
  expect(stableCut(`${lines.join("\n")}\n`, 0, 4)).toEqual({ at: `${lines.slice(0, 9).join("\n")}\n`.length, blockEnd: false });
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
