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

// Issue 20.4, the same class: a background shell's `.output` file (`yes` in the background filled the disk).
test("a background shell's .output file is capped the same way: newest output kept, first line says what was cut", async () => {
  const { startBackgroundShell } = await import("../../src/tool/builtin/background-shells.ts");
  const { makeShellCtx } = await import("./shell-ctx.ts");
  const { ctx, dir } = makeShellCtx({ env: { YOKE_SPILL_MAX_BYTES: "65536" } });
  const sh = startBackgroundShell(ctx, { command: "seq 1 200000", cwd: dir });
  await sh.done;
  const text = readFileSync(sh.outputFile, "utf8");
  expect(statSync(sh.outputFile).size).toBeLessThanOrEqual(65536 + 200);
  expect(text).toMatch(/^\[yoke: \d+ earlier bytes of this output were cut to keep the file under 65536 bytes\]\n/);
  expect(text.endsWith("199999\n200000\n")).toBe(true);
});

// Chunks of every size against the cap (a flooding command's chunks can be a MiB): between pushes the file is at
// most the cap plus its first line, chunks bigger than the kept half or the whole cap keep only their end, and the
// bytes in are always the bytes cut plus the bytes kept. (Within a push the cut now comes before the write, so a
// reader never sees the file over its cap even mid-push; that window is not reachable from a unit test.)
test("whatever the chunk sizes, the file is never over its cap between pushes, and nothing is miscounted", () => {
  for (const sizes of [[3000], [5000], [10_000], [100, 2100, 2100, 9000, 1, 4095, 4096, 4097, 50]]) {
    const file = join(tempDir(), "out.txt");
    const sink = spillSink(10, file, 4096);
    let total = 0;
    let n = 0;
    for (let round = 0; round < 5; round++)
      for (const size of sizes) {
        const chunk = Buffer.from(Array.from({ length: size }, () => String.fromCharCode(97 + (n++ % 26))).join(""));
        sink.push(chunk);
        total += size;
        if (total > 10) expect(statSync(file).size).toBeLessThanOrEqual(4096 + 200);
      }
    sink.close();
    const text = readFileSync(file, "utf8");
    const body = sink.cutBytes ? text.slice(text.indexOf("\n") + 1) : text;
    expect(sink.cutBytes + body.length).toBe(total);
    if (sink.cutBytes) expect(Number(/^\[yoke: (\d+)/.exec(text)![1])).toBe(sink.cutBytes);
    let m = n;
    const expectedEnd = Array.from({ length: Math.min(body.length, 100) }, () => String.fromCharCode(97 + (--m % 26))).reverse().join("");
    expect(body.endsWith(expectedEnd)).toBe(true);
  }
});
