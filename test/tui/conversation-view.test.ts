import { afterEach, expect, test } from "bun:test";
import { Markdown, TUI, type Terminal } from "@mariozechner/pi-tui";
import { createScreen, type Screen } from "../../src/tui/screen.ts";
import { markdownTheme } from "../../src/tui/theme.ts";
import { highlightCode } from "../../src/tui/highlight.ts";

// Issue 12 point 2: "no flicker on long streams (render only what changed)". The screen is driven frame by frame
// (one frame per delta, the worst case; pi-tui itself coalesces to one per 16 ms) on a terminal that records what
// is written. Markdown and TUI are pi-tui's (the library at the boundary); their prototypes are only counted.

type Internal = { doRender(): void; applyLineResets(lines: string[]): string[] };

function fakeTerminal(cols: number, rows: number) {
  let resize = () => {};
  let written = "";
  const term: Terminal & { cols: number; resize(c: number): void; take(): string } = {
    cols,
    start: (_input, onResize) => void (resize = onResize),
    stop: () => {},
    drainInput: async () => {},
    write: (d) => void (written += d),
    get columns() {
      return term.cols;
    },
    get rows() {
      return rows;
    },
    get kittyProtocolActive() {
      return false;
    },
    moveBy: () => {},
    hideCursor: () => {},
    showCursor: () => {},
    clearLine: () => {},
    clearFromCursor: () => {},
    clearScreen: () => {},
    setTitle: () => {},
    setProgress: () => {},
    resize(c) {
      term.cols = c;
      resize();
    },
    take() {
      const w = written;
      written = "";
      return w;
    },
  };
  return term;
}

const restore: Array<() => void> = [];
afterEach(() => {
  for (const r of restore.splice(0)) r();
});

/** Counts calls of a prototype method of pi-tui (what it was asked to do per frame), leaving it working. */
function count<K extends string>(proto: Record<K, (...a: any[]) => any>, name: K, tally: (self: any, args: any[]) => void) {
  const orig = proto[name];
  proto[name] = function (this: unknown, ...args: any[]) {
    tally(this, args);
    return orig.apply(this, args);
  } as never;
  restore.push(() => (proto[name] = orig));
}

function open(cols = 100, rows = 30): { screen: Screen; term: ReturnType<typeof fakeTerminal>; frame(): void } {
  const term = fakeTerminal(cols, rows);
  const screen = createScreen(term);
  screen.tui.start();
  const frame = () => (screen.tui as unknown as Internal).doRender();
  frame();
  restore.push(() => screen.stop());
  return { screen, term, frame };
}

const answer = (n: number) =>
  [
    "# Report",
    "",
    ...Array.from({ length: n }, (_, i) => `Paragraph ${i} says something about the code, long enough to wrap at a narrow width.\n`),
    "```ts",
    "const a = 1;",
    "```",
    "",
    "The end.",
  ].join("\n");

const chunks = (text: string, size = 7) => Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, (i + 1) * size));
const plain = (lines: string[]) => lines.map((l) => l.replace(/\x1b\[[0-9;]*m|\x1b\]8;;\x07|\x1b_pi:c\x07/g, "").trimEnd());
const whole = (text: string, width: number) => plain(new Markdown(text, 0, 0, { ...markdownTheme, highlightCode }).render(width));

test("a frozen block renders once, not once per frame, across a whole stream; only the live tail re-renders", () => {
  // Per Markdown component: the texts it was rendered with, and how often.
  const renders = new Map<object, { texts: Set<string>; n: number }>();
  count(Markdown.prototype as never, "render", (self: { text: string }) => {
    const r = renders.get(self) ?? { texts: new Set<string>(), n: 0 };
    r.texts.add(self.text);
    r.n++;
    renders.set(self, r);
  });
  const { screen, frame } = open(100);
  const text = answer(40);
  const s = screen.addStream();
  const pieces = chunks(text);
  for (const c of pieces) {
    s.append(c);
    frame();
  }
  // Every Markdown component (a frozen block, or the tail as it was at one frame) was rendered once: a frozen block
  // is not asked again per frame. So the renders are about one per frame plus one per frozen block, and none of
  // them parsed the whole answer.
  const all = [...renders.values()];
  for (const r of all) expect({ block: [...r.texts][0], n: r.n }).toEqual({ block: [...r.texts][0], n: 1 });
  expect(all.length).toBeGreaterThan(10);
  expect(all.length).toBeLessThanOrEqual(pieces.length + text.split("\n").length);
  expect(Math.max(...all.map((r) => [...r.texts][0]!.length))).toBeLessThan(text.length / 4);
  expect(plain(screen.tui.render(100)).slice(0, whole(text, 100).length)).toEqual(whole(text, 100));
});

test("a resize re-flows the frozen output: each block renders once more at the new width, the screen as the whole answer", () => {
  const widths: number[] = [];
  count(Markdown.prototype as never, "render", (_self, [w]) => widths.push(w));
  const { screen, term, frame } = open(100);
  const text = answer(30);
  const s = screen.addStream();
  for (const c of chunks(text, 11)) {
    s.append(c);
    frame();
  }
  s.finish(text);
  frame();
  const at100 = widths.filter((w) => w === 100).length;
  widths.length = 0;
  term.take();
  term.resize(44);
  frame();
  for (let i = 0; i < 5; i++) frame();
  // Every block once at 44 (the frames after the resize render nothing again).
  expect(widths.every((w) => w === 44)).toBe(true);
  expect(widths.length).toBeLessThan(at100);
  expect(widths.length).toBeGreaterThan(5);
  const lines = plain(screen.tui.render(44));
  expect(lines.slice(0, whole(text, 44).length)).toEqual(whole(text, 44));
  expect(lines.every((l) => l.length <= 44)).toBe(true);
  // The resize redrew the screen (pi-tui clears and writes everything on a width change) at the new width.
  expect(term.take()).toContain("Paragraph 29 says");
});

test("a frame of a long session hands pi-tui's per-line steps only the lines that changed, not the conversation", () => {
  const perFrame: number[] = [];
  count(TUI.prototype as never, "applyLineResets", (_self, [lines]) => perFrame.push(lines.length));
  const { screen, frame } = open(100, 30);
  for (let k = 0; k < 150; k++) {
    screen.add(`› question ${k}`);
    const s = screen.addStream();
    s.finish(`answer ${k}\n\n${"- a point worth making\n".repeat(8)}`);
    screen.add("");
  }
  const row = screen.add("⏺ Bash(sleep 1) running");
  frame();
  const total = screen.tui.render(100).length;
  expect(total).toBeGreaterThan(1500);
  perFrame.length = 0;
  const s = screen.addStream();
  for (const c of chunks("Streaming now, word by word, over a few lines.\n\nAnd a second paragraph to end it.", 5)) {
    s.append(c);
    frame();
  }
  row.setText("⏺ Bash(sleep 1) done");
  frame();
  expect(perFrame.length).toBeGreaterThan(10);
  expect(Math.max(...perFrame)).toBeLessThan(40);
  expect(plain(screen.tui.render(100)).filter((l) => l.startsWith("⏺ Bash"))).toEqual(["⏺ Bash(sleep 1) done"]);
});
