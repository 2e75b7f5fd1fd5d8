/**
 * Where a streaming answer can be cut so the part before it renders the same on its own (src/tui/screen.ts
 * addStream). Re-rendering the whole answer on every frame made a long stream quadratic: pi-tui's Markdown took
 * seconds per frame for a 2,000-line paragraph (bench/tui-vs-claude.ts), and the terminal stopped echoing keys.
 * Finished blocks are frozen into their own components (rendered once, cached) and only the tail is re-rendered.
 *
 * A cut is made after a blank line outside a code fence followed by an unindented line (a block boundary), or, when the tail has grown past
 * `maxLines` without one (a long paragraph or list), after a complete line whose next line is also complete and
 * cannot continue it: not indented (list continuation, indented code), not a setext underline, not a table row.
 * Never inside a fenced code block. Pure.
 */
export type Cut = { at: number; blockEnd: boolean };

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const SETEXT = /^ {0,3}(=+|-+)\s*$/;
const TABLE = /^\s*\|/;

export function stableCut(text: string, from: number, maxLines = 30): Cut | null {
  const lines: Array<{ text: string; end: number }> = [];
  for (let i = from; ; ) {
    const nl = text.indexOf("\n", i);
    if (nl < 0) break;
    lines.push({ text: text.slice(i, nl), end: nl + 1 });
    i = nl + 1;
  }
  let fence: { ch: string; len: number } | null = null;
  let blank: Cut | null = null;
  let forced: Cut | null = null;
  for (let k = 0; k < lines.length; k++) {
    const line = lines[k]!.text;
    const m = FENCE.exec(line);
    if (fence) {
      if (m && m[1]![0] === fence.ch && m[1]!.length >= fence.len && line.trim() === m[1]) fence = null;
      continue;
    }
    if (m) {
      fence = { ch: m[1]![0]!, len: m[1]!.length };
      continue;
    }
    const next = lines[k + 1]?.text;
    if (line.trim() === "") {
      // Only once the next line shows it is not an indented continuation of the block before (a list item's second
      // paragraph, indented code).
      if (next !== undefined && next.trim() !== "" && !/^\s/.test(next)) blank = { at: lines[k]!.end, blockEnd: true };
      continue;
    }
    if (k + 1 >= maxLines && next !== undefined && next.trim() !== "" && !/^\s/.test(next) && !SETEXT.test(next) && !TABLE.test(next) && !TABLE.test(line) && !FENCE.test(next))
      forced = { at: lines[k]!.end, blockEnd: false };
  }
  // A block boundary renders exactly as the whole would; a forced cut only when the tail is long.
  if (blank && (!forced || blank.at >= forced.at)) return blank;
  return forced;
}
