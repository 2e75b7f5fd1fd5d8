/**
 * Where a streaming answer can be cut so the part before it renders the same on its own (src/tui/screen.ts
 * addStream). Re-rendering the whole answer on every frame made a long stream quadratic: pi-tui's Markdown took
 * seconds per frame for a 2,000-line paragraph (bench/tui-vs-claude.ts), and the terminal stopped echoing keys.
 * Finished blocks are frozen into their own components (rendered once, cached) and only the tail is re-rendered.
 *
 * A cut is made after a blank line outside a code fence followed by an unindented line (a block boundary), or, when the tail has grown past
 * `maxLines` without one (a long paragraph or list), after a complete line whose next line is also complete and
 * cannot continue it: not indented (list continuation, indented code), not a setext underline, not a table row.
 * Inside a fenced code block (one that opens at the line's start) only when it has grown past `maxLines`: after a
 * complete code line whose next line is complete code too (not blank, not a fence). The cut then says which fence
 * is still open (`open`, its opening line): the piece before it renders as a block closed there without its closing
 * line, the piece after it as a block opened by that line without its opening line (`fencedPiece`). Pure.
 */
export type Cut = { at: number; blockEnd: boolean; open: string | null };

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const SETEXT = /^ {0,3}(=+|-+)\s*$/;
const TABLE = /^\s*\|/;

export function stableCut(text: string, from: number, maxLines = 30, open: string | null = null): Cut | null {
  const lines: Array<{ text: string; end: number }> = [];
  for (let i = from; ; ) {
    const nl = text.indexOf("\n", i);
    if (nl < 0) break;
    lines.push({ text: text.slice(i, nl), end: nl + 1 });
    i = nl + 1;
  }
  const opening = (line: string) => {
    const m = FENCE.exec(line)!;
    return { ch: m[1]![0]!, len: m[1]!.length, line, top: /^[`~]/.test(line) };
  };
  let fence: ReturnType<typeof opening> | null = open === null ? null : opening(open);
  let blank: Cut | null = null;
  let forced: Cut | null = null;
  for (let k = 0; k < lines.length; k++) {
    const line = lines[k]!.text;
    const m = FENCE.exec(line);
    const next = lines[k + 1]?.text;
    if (fence) {
      if (m && m[1]![0] === fence.ch && m[1]!.length >= fence.len && line.trim() === m[1]) fence = null;
      else if (fence.top && k + 1 >= maxLines && line.trim() !== "" && next !== undefined && next.trim() !== "" && !FENCE.test(next))
        forced = { at: lines[k]!.end, blockEnd: false, open: fence.line };
      continue;
    }
    if (m) {
      fence = opening(line);
      continue;
    }
    if (line.trim() === "") {
      // Only once the next line shows it is not an indented continuation of the block before (a list item's second
      // paragraph, indented code).
      if (next !== undefined && next.trim() !== "" && !/^\s/.test(next)) blank = { at: lines[k]!.end, blockEnd: true, open: null };
      continue;
    }
    if (k + 1 >= maxLines && next !== undefined && next.trim() !== "" && !/^\s/.test(next) && !SETEXT.test(next) && !TABLE.test(next) && !TABLE.test(line) && !FENCE.test(next))
      forced = { at: lines[k]!.end, blockEnd: false, open: null };
  }
  // A block boundary renders exactly as the whole would; a forced cut only when the tail is long.
  if (blank && (!forced || blank.at >= forced.at)) return blank;
  return forced;
}

/**
 * What to render for a piece of a streamed answer: the Markdown source and how many lines to drop from its start
 * and end. A piece that starts inside a code fence (`reopen`, the fence's opening line) is rendered with that line
 * before it and without the opening border it draws; one that ends inside a fence (`open`) with a closing line
 * after it and without the closing border. Pure.
 */
export function fencedPiece(text: string, reopen: string | null, open: string | null): { source: string; dropFirst: number; dropLast: number } {
  const close = open === null ? "" : FENCE.exec(open)![1]!;
  return {
    source: `${reopen === null ? "" : `${reopen}\n`}${text}${open === null ? "" : close}`,
    dropFirst: reopen === null ? 0 : 1,
    dropLast: open === null ? 0 : 1,
  };
}
