import { describe, expect, test } from "bun:test";
import { applyPatch, structuredPatch } from "../../src/tool/structured-patch.ts";

describe("structuredPatch (jsdiff hunk shape, contracts §1.4 structuredPatch)", () => {
  test("identical texts give no hunks", () => {
    expect(structuredPatch("a\nb\n", "a\nb\n")).toEqual([]);
  });

  test("one changed line with 3 lines of context", () => {
    const old = "1\n2\n3\n4\n5\n6\n7\n8\n9\n";
    const h = structuredPatch(old, old.replace("5\n", "five\n"));
    expect(h).toEqual([
      { oldStart: 2, oldLines: 7, newStart: 2, newLines: 7, lines: [" 2", " 3", " 4", "-5", "+five", " 6", " 7", " 8"] },
    ]);
  });

  test("creation from empty: empty old range starts at 0", () => {
    expect(structuredPatch("", "x\ny\n")).toEqual([{ oldStart: 0, oldLines: 0, newStart: 1, newLines: 2, lines: ["+x", "+y"] }]);
  });

  test("a missing final newline is its own change with the jsdiff marker", () => {
    expect(structuredPatch("a\nb", "a\nb\n")).toEqual([
      { oldStart: 1, oldLines: 2, newStart: 1, newLines: 2, lines: [" a", "-b", "\\ No newline at end of file", "+b"] },
    ]);
  });

  test("changes far apart make separate hunks; near ones merge", () => {
    const lines = Array.from({ length: 30 }, (_, i) => `l${i}`);
    const changed = [...lines];
    changed[2] = "X";
    changed[25] = "Y";
    expect(structuredPatch(lines.join("\n") + "\n", changed.join("\n") + "\n")).toHaveLength(2);
    changed[8] = "Z"; // 5 equal lines between 2 and 8 ≤ 2*3 context → merged with the first
    const h = structuredPatch(lines.join("\n") + "\n", changed.join("\n") + "\n");
    expect(h).toHaveLength(2);
    expect(h[0]!.lines.filter((l) => l.startsWith("+"))).toEqual(["+X", "+Z"]);
  });

  test("random texts round-trip through applyPatch and the diff is minimal on a known case", () => {
    let seed = 42;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const gen = () => {
      let s = "";
      const n = Math.floor(rand() * 15);
      for (let i = 0; i < n; i++) s += "abc"[Math.floor(rand() * 3)] + (rand() < 0.92 ? "\n" : "");
      return s;
    };
    for (let t = 0; t < 3000; t++) {
      const a = gen();
      const b = gen();
      const ctx = Math.floor(rand() * 4);
      expect(applyPatch(a, structuredPatch(a, b, ctx))).toBe(b);
    }
    // LCS of abcabba / cbabac has length 4, so exactly 3 deletions and 2 insertions.
    const h = structuredPatch("a\nb\nc\na\nb\nb\na\n", "c\nb\na\nb\na\nc\n", 0);
    const all = h.flatMap((x) => x.lines);
    expect(all.filter((l) => l[0] === "-")).toHaveLength(3);
    expect(all.filter((l) => l[0] === "+")).toHaveLength(2);
  });

  test("one change in a 1M-line text is fast (prefix/suffix trimmed)", () => {
    const big = Array.from({ length: 1_000_000 }, (_, i) => `line ${i}`).join("\n") + "\n";
    const h = structuredPatch(big, big.replace("line 700000\n", "changed\n"));
    expect(h).toHaveLength(1);
    expect(h[0]!.oldStart).toBe(699998);
  });

  test("a wholesale rewrite of a big text still finishes and round-trips", () => {
    const a = Array.from({ length: 100_000 }, (_, i) => `a${i}`).join("\n") + "\n";
    const b = Array.from({ length: 100_000 }, (_, i) => `b${i % 977}`).join("\n") + "\n";
    const h = structuredPatch(a, b);
    expect(applyPatch(a, h)).toBe(b);
  });
});
