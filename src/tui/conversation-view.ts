import type { Component, TUI } from "@mariozechner/pi-tui";

/**
 * The conversation's lines, built so a frame costs what changed, not what the conversation holds (issue 12
 * point 2, bench/tui-vs-claude.ts). pi-tui re-renders its whole tree every frame: it asks every component for its
 * lines, appends a style reset to every line (a new string each time, after scanning it for images and Thai/Lao
 * vowels), scans every line for Kitty images again and compares every line with the last frame's. With a long
 * session that was most of a frame, and it grew with every turn.
 *
 * Here each child's lines get their reset once and are kept. A child says when it changed (`changed`): the lines
 * before the first changed child stay as they are, only the rest is rebuilt, and children after it whose lines are
 * the same array as before keep their reset lines. Frozen blocks (`frozen`) render once per terminal width. The
 * lines reach pi-tui's diff as the very strings of the last frame, which it compares by pointer, and its reset and
 * image steps skip them (they went through those steps once). pi-tui is wrapped, not forked: the two steps are
 * replaced on this TUI by ones that hand pi-tui's own only the lines after the conversation.
 */
export type ConversationView = Component & {
  addChild(c: Component): void;
  /** Puts `c` just before `ref` (a streaming answer's frozen blocks go before its live tail). */
  insertBefore(c: Component, ref: Component): void;
  removeChild(c: Component): void;
  clear(): void;
  /** `c`'s lines may differ from the last frame's: every change to a child must be told (nothing else looks). */
  changed(c: Component): void;
};

type Internals = {
  applyLineResets(lines: string[]): string[];
  collectKittyImageIds(lines: string[]): Set<number>;
};

/** A finished block: `render` runs once per terminal width (a resize re-flows it), never per frame. */
export function frozen(render: (width: number) => string[]): Component {
  let width = -1;
  let lines: string[] = [];
  return {
    render(w) {
      if (w !== width) {
        lines = render(w);
        width = w;
      }
      return lines;
    },
    invalidate() {
      width = -1;
    },
  };
}

/** The view must be the TUI's first child: its lines are the first of every frame. */
export function createConversationView(tui: TUI): ConversationView {
  const t = tui as unknown as Internals;
  const resets = t.applyLineResets.bind(tui);
  const images = t.collectKittyImageIds.bind(tui);
  const children: Component[] = [];
  /** Per child, in the same order: the array it returned last, and those lines with their reset applied. */
  const seen: Array<{ src: string[]; out: string[] } | null> = [];
  const flat: string[] = [];
  /** starts[i]: where child i's lines begin in `flat`; starts[n]: the end. Right for children below `valid`. */
  const starts = [0];
  let valid = 0;
  let width = -1;
  const touched = (i: number) => (valid = Math.min(valid, i));
  /** How many of a frame's first lines are this view's, already reset (none while an overlay is drawn over them). */
  const settled = (lines: string[]) => (tui.hasOverlay() ? 0 : Math.min(flat.length, lines.length));
  t.applyLineResets = (lines) => {
    const from = settled(lines);
    if (from === 0) return resets(lines);
    const rest = resets(lines.slice(from));
    for (let k = 0; k < rest.length; k++) lines[from + k] = rest[k]!;
    return lines;
  };
  t.collectKittyImageIds = (lines) => images(lines.slice(settled(lines)));

  return {
    addChild(c) {
      children.push(c);
      seen.push(null);
    },
    insertBefore(c, ref) {
      const i = children.lastIndexOf(ref);
      if (i < 0) return this.addChild(c);
      children.splice(i, 0, c);
      seen.splice(i, 0, null);
      touched(i);
    },
    removeChild(c) {
      const i = children.lastIndexOf(c);
      if (i < 0) return;
      children.splice(i, 1);
      seen.splice(i, 1);
      touched(i);
    },
    clear() {
      children.length = 0;
      seen.length = 0;
      touched(0);
    },
    changed(c) {
      const i = children.lastIndexOf(c);
      if (i >= 0) touched(i);
    },
    invalidate() {
      for (const c of children) c.invalidate();
      seen.fill(null);
      touched(0);
    },
    render(w) {
      if (w !== width) {
        width = w;
        touched(0);
      }
      let i = valid;
      flat.length = starts[i]!;
      for (; i < children.length; i++) {
        const src = children[i]!.render(w);
        let e = seen[i];
        if (e?.src !== src) seen[i] = e = { src, out: resets(src.slice()) };
        starts[i] = flat.length;
        for (const l of e!.out) flat.push(l);
      }
      starts[children.length] = flat.length;
      starts.length = children.length + 1;
      valid = children.length;
      // pi-tui copies these into the frame it keeps, so the same array can be handed out each time.
      return flat;
    },
  };
}
