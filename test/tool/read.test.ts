import { afterAll, describe, expect, test } from "bun:test";
import { closeSync, mkdirSync, openSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { readTool } from "../../src/tool/builtin/read.ts";
import { makeCtx, tempDir } from "./ctx.ts";

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, data: string | Uint8Array) => {
  const p = join(dir, name);
  writeFileSync(p, data);
  return p;
};
// Smallest valid 1×1 PNG.
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);

describe("Read (contracts §7.2)", () => {
  test("numbers lines as N<tab>line, strips CR and BOM, records a full read", async () => {
    const p = file("a.txt", "\uFEFFone\r\ntwo\r\nthree\r\n");
    const ctx = makeCtx(dir);
    const r = await readTool.run({ file_path: p }, ctx);
    expect(r.isError).toBeFalsy();
    expect(r.content).toBe("1\tone\n2\ttwo\n3\tthree");
    expect(r.details).toEqual({
      type: "text",
      file: { filePath: p, content: "one\ntwo\nthree", numLines: 3, startLine: 1, totalLines: 3 },
    });
    expect(ctx.fileState.hasRead(p)).toBe(true);
    expect(ctx.fileState.checkWritable(p)).toBeNull();
  });

  test("offset is 1-based, 0 means 1; limit cuts and a note says how to read on", async () => {
    const p = file("ten.txt", Array.from({ length: 10 }, (_, i) => `L${i + 1}`).join("\n"));
    const ctx = makeCtx(dir);
    const r0 = await readTool.run({ file_path: p, offset: 0, limit: 2 }, ctx);
    expect(r0.content).toStartWith("1\tL1\n2\tL2\n\n");
    expect(r0.content).toContain("offset=3");
    const r = await readTool.run({ file_path: p, offset: 9 }, ctx);
    expect(r.content).toBe("9\tL9\n10\tL10");
    expect((r.details as any).file).toMatchObject({ startLine: 9, numLines: 2, totalLines: 10 });
  });

  test("default is 2000 lines", async () => {
    const p = file("long.txt", Array.from({ length: 2500 }, (_, i) => `x${i + 1}`).join("\n") + "\n");
    const r = await readTool.run({ file_path: p }, makeCtx(dir));
    const text = r.content as string;
    expect(text).toContain("2000\tx2000");
    expect(text).not.toContain("2001\tx2001");
    expect(text).toContain("Showing lines 1-2000 of 2500");
  });

  test("offset past the end is an error naming the line count", async () => {
    const p = file("three.txt", "a\nb\nc\n");
    const r = await readTool.run({ file_path: p, offset: 10 }, makeCtx(dir));
    expect(r.isError).toBe(true);
    expect(r.content).toContain("has 3 lines");
  });

  test("lines over 2000 characters are cut with a marker", async () => {
    const p = file("wide.txt", "y".repeat(5000) + "\nshort\n");
    const r = await readTool.run({ file_path: p }, makeCtx(dir));
    const first = (r.content as string).split("\n")[0]!;
    expect(first.startsWith(`1\t${"y".repeat(2000)}…`)).toBe(true);
    expect(first).toContain("cut at 2000");
    expect(r.content).toContain("2\tshort");
  });

  test("empty file gives a short notice, not an error", async () => {
    const p = file("empty.txt", "");
    const r = await readTool.run({ file_path: p }, makeCtx(dir));
    expect(r.isError).toBeFalsy();
    expect(r.content).toContain("empty");
  });

  test("relative path is refused with an instruction", async () => {
    const r = await readTool.run({ file_path: "a.txt" }, makeCtx(dir));
    expect(r.isError).toBe(true);
    expect(r.content).toContain("absolute path");
  });

  test("missing file: contract message with cwd and a similar-name suggestion", async () => {
    file("Config.json", "{}");
    const r = await readTool.run({ file_path: join(dir, "config.yaml") }, makeCtx(dir));
    expect(r.isError).toBe(true);
    expect(r.content).toStartWith(`File does not exist. Note: your current working directory is ${dir}.`);
    expect(r.content).toContain(join(dir, "Config.json"));
  });

  test("directory is refused with a pointer to ls / Glob", async () => {
    const d = join(dir, "sub");
    mkdirSync(d, { recursive: true });
    const r = await readTool.run({ file_path: d }, makeCtx(dir));
    expect(r.isError).toBe(true);
    expect(r.content).toContain("is a directory");
    expect(r.content).toContain("Glob");
  });

  test("a FIFO is refused at once instead of blocking", async () => {
    const fifo = join(dir, "pipe");
    Bun.spawnSync(["mkfifo", fifo]);
    const r = await readTool.run({ file_path: fifo }, makeCtx(dir));
    expect(r.isError).toBe(true);
    expect(r.content).toContain("not a regular file");
  });

  test("binary files: NUL bytes or a known extension", async () => {
    const p = file("blob.txt", Buffer.from([0x61, 0x00, 0x62]));
    const r = await readTool.run({ file_path: p }, makeCtx(dir));
    expect(r.isError).toBe(true);
    expect(r.content).toContain("binary");
    const z = file("x.zip", "PK not really");
    expect((await readTool.run({ file_path: z }, makeCtx(dir))).content).toContain("binary");
  });

  test("a file over 256 KB needs offset/limit; with them it reads", async () => {
    const p = file("big.txt", ("z".repeat(99) + "\n").repeat(3000));
    const ctx = makeCtx(dir);
    const r = await readTool.run({ file_path: p }, ctx);
    expect(r.isError).toBe(true);
    expect(r.content).toContain("offset and limit");
    expect(ctx.fileState.hasRead(p)).toBe(false);
    const ok = await readTool.run({ file_path: p, offset: 2999, limit: 5 }, ctx);
    expect(ok.isError).toBeFalsy();
    expect(ok.content).toBe(`2999\t${"z".repeat(99)}\n3000\t${"z".repeat(99)}`);
  });

  test("a huge file (1M lines, ~50 MB) read near the end is quick", async () => {
    const p = join(dir, "huge.txt");
    const fd = openSync(p, "w");
    const block = Array.from({ length: 10_000 }, (_, i) => `${i.toString().padStart(6, "0")} ${"q".repeat(40)}`).join("\n") + "\n";
    for (let i = 0; i < 100; i++) writeSync(fd, block);
    closeSync(fd);
    const r = await readTool.run({ file_path: p, offset: 999_999, limit: 10 }, makeCtx(dir));
    expect(r.content).toBe(`999999\t009998 ${"q".repeat(40)}\n1000000\t009999 ${"q".repeat(40)}`);
    expect((r.details as any).file.totalLines).toBe(1_000_000);
    rmSync(p);
  });

  test("output too large for one read is an error suggesting a smaller limit", async () => {
    const p = file("fat.txt", ("w".repeat(1500) + "\n").repeat(150));
    const r = await readTool.run({ file_path: p }, makeCtx(dir));
    expect(r.isError).toBe(true);
    expect(r.content).toMatch(/limit=\d+/);
  });

  test("images come back as base64 image blocks with details", async () => {
    const p = file("dot.png", PNG);
    const r = await readTool.run({ file_path: p }, makeCtx(dir));
    expect(r.isError).toBeFalsy();
    expect(r.content).toEqual([{ type: "image", source: { type: "base64", media_type: "image/png", data: PNG.toString("base64") } }]);
    expect(r.details).toEqual({ type: "image", file: { base64: PNG.toString("base64"), type: "image/png", originalSize: PNG.length } });
    // The media type follows the bytes, not a wrong extension.
    const misnamed = file("dot.jpg", PNG);
    const m = await readTool.run({ file_path: misnamed }, makeCtx(dir));
    expect((m.details as any).file.type).toBe("image/png");
  });

  test("an image over the size cap is refused", async () => {
    const p = file("huge.png", Buffer.concat([PNG, Buffer.alloc(4 * 1024 * 1024)]));
    const r = await readTool.run({ file_path: p }, makeCtx(dir));
    expect(r.isError).toBe(true);
    expect(r.content).toContain("too large");
  });

  test(".ipynb renders cells with ids, types, sources and text outputs", async () => {
    const nb = {
      nbformat: 4,
      nbformat_minor: 5,
      metadata: { language_info: { name: "python" } },
      cells: [
        { id: "m1", cell_type: "markdown", metadata: {}, source: ["# Title\n", "text"] },
        {
          id: "c1",
          cell_type: "code",
          metadata: {},
          execution_count: 1,
          source: ["print(1)"],
          outputs: [
            { output_type: "stream", name: "stdout", text: ["1\n"] },
            { output_type: "error", ename: "ValueError", evalue: "bad", traceback: ["\u001b[31mTrace\u001b[0m"] },
          ],
        },
      ],
    };
    const p = file("n.ipynb", JSON.stringify(nb));
    const ctx = makeCtx(dir);
    const r = await readTool.run({ file_path: p }, ctx);
    const text = r.content as string;
    expect(text).toContain('<cell id="m1" type="markdown">\n# Title\ntext\n</cell>');
    expect(text).toContain('<cell id="c1" type="code" language="python">\nprint(1)');
    expect(text).toContain("1\nValueError: bad\nTrace");
    expect(ctx.fileState.hasRead(p)).toBe(true);
  });

  test("permission failure is reported with the path (simulated: a path through a regular file)", async () => {
    // Tests run as root, so chmod 000 cannot deny a read; ENOTDIR exercises the same error path.
    const f = file("plain.txt", "x");
    const r = await readTool.run({ file_path: join(f, "inner.txt") }, makeCtx(dir));
    expect(r.isError).toBe(true);
    expect(r.content).toContain(join(f, "inner.txt"));
  });

  test("an aborted signal gives an interrupted result", async () => {
    const p = file("ab.txt", "a\n");
    const ctx = makeCtx(dir);
    ctx.abort.abort();
    const r = await readTool.run({ file_path: p }, ctx);
    expect(r.isError).toBe(true);
    expect(r.content).toContain("interrupted");
  });

  test("schema: unknown fields and negative offset are rejected as input errors", async () => {
    const r = await readTool.run({ file_path: "/x", offset: -1 }, makeCtx(dir));
    expect(r.isError).toBe(true);
    expect(r.content).toContain("offset");
    expect(readTool.readOnly).toBe(true);
  });
});
