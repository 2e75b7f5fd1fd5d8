import { afterAll, describe, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readLineRange } from "../../src/tool/builtin/read-text.ts";
import { tempDir } from "./ctx.ts";

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const MB = 1 << 20;

describe("readLineRange (streamed line slicing behind Read)", () => {
  test("a line and a CRLF split across the 1 MB chunk boundary", () => {
    const p = join(dir, "boundary.txt");
    // Line 1 ends with "\r" as the chunk's last byte and "\n" as the next chunk's first.
    const first = "a".repeat(MB - 2) + "\r\n";
    writeFileSync(p, first + "bc\r\nlast");
    const r = readLineRange(p, 1, 5);
    expect(r.lines).toEqual(["bc", "last"]);
    expect(r.totalLines).toBe(3);
    const whole = readLineRange(p, 0, 1);
    expect(whole.lines[0]!.startsWith("a".repeat(2000))).toBe(true);
    expect(whole.longLines).toBe(1);
  });

  test("counting: trailing newline, no trailing newline, lone newline, empty", () => {
    const cases: Array<[string, number, string[]]> = [
      ["x\ny\n", 2, ["x", "y"]],
      ["x\ny", 2, ["x", "y"]],
      ["\n", 1, [""]],
      ["", 0, []],
    ];
    for (const [data, total, lines] of cases) {
      const p = join(dir, "c.txt");
      writeFileSync(p, data);
      expect(readLineRange(p, 0, 10)).toEqual({ lines, longLines: 0, totalLines: total });
    }
  });

  test("multi-byte UTF-8 split across chunks decodes intact", () => {
    const p = join(dir, "utf.txt");
    // Line 2 starts at byte MB-2, so the two bytes of "é" sit at MB-1 and MB, one in each chunk.
    writeFileSync(p, "z".repeat(MB - 3) + "\n" + "aéb\n");
    expect(readLineRange(p, 1, 1).lines).toEqual(["aéb"]);
  });
});
