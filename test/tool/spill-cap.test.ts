// Issue 20.4: a command's spill file is capped; past the cap it keeps the newest output and says what was cut.
import { expect, test } from "bun:test";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { spillSink } from "../../src/tool/builtin/shell-exec.ts";
import { tempDir } from "./search-ctx.ts";

test("past maxBytes the file keeps its last half, a first line says how much was cut; memory stays bounded", () => {
  const file = join(tempDir(), "out.txt");
  const sink = spillSink(10, file, 4096);
  let total = 0;
  for (let i = 0; i < 1000; i++) {
    const line = Buffer.from(`line ${String(i).padStart(4, "0")} ${"y".repeat(40)}\n`);
    sink.push(line);
    total += line.length;
  }
  sink.close();
  expect(statSync(file).size).toBeLessThanOrEqual(4096 + 200);
  const text = readFileSync(file, "utf8");
  expect(text).toMatch(/^\[yoke: \d+ earlier bytes of this output were cut to keep the file under 4096 bytes\]\n/);
  expect(text.endsWith(`line 0999 ${"y".repeat(40)}\n`)).toBe(true);
  const cut = Number(/^\[yoke: (\d+)/.exec(text)![1]);
  expect(cut).toBe(sink.cutBytes);
  expect(cut + text.length - text.indexOf("\n") - 1).toBe(total);
});

test("under the cap the file is the whole output", () => {
  const file = join(tempDir(), "out.txt");
  const sink = spillSink(4, file, 1 << 20);
  sink.push(Buffer.from("hello world\n"));
  sink.close();
  expect(readFileSync(file, "utf8")).toBe("hello world\n");
  expect(sink.cutBytes).toBe(0);
});
