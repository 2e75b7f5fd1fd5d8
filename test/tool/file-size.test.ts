/**
 * Issue 20.5: the tools that hold a file whole (Edit, MultiEdit, Write, NotebookEdit; Read of an image or a
 * notebook) refuse one over their limit, naming the file, its size and the limit, before reading a byte of it.
 * Claude Code 2.1.332 refuses edits over 1 GiB and reads a size-0 (/proc) file to 10 MiB (observed in its
 * binary); yoke keeps the rules and wording with a 256 MiB default (src/tool/builtin/file-size.ts says why).
 * Real sparse files of gigabytes, real /proc files, a real file growing while it is read.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { appendFileSync, closeSync, openSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { editTool } from "../../src/tool/builtin/edit.ts";
import { editMaxBytes, readCapped } from "../../src/tool/builtin/file-size.ts";
import { multiEditTool } from "../../src/tool/builtin/multi-edit.ts";
import { notebookEditTool } from "../../src/tool/builtin/notebook-edit.ts";
import { readTool } from "../../src/tool/builtin/read.ts";
import { writeTool } from "../../src/tool/builtin/write.ts";
import { formatFileSize } from "../../src/util/format-size.ts";
import { killGroup, spawnProcess } from "../../src/util/subprocess.ts";
import { waitFor } from "../helpers/wait-for.ts";
import { makeCtx, tempDir } from "./ctx.ts";

const dirs: string[] = [];
const dir = () => {
  const d = tempDir("yoke-size-");
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const GiB = 1024 * 1024 * 1024;

/** A sparse file of `size` bytes: gigabytes that take no disk. */
function sparse(path: string, size: number): string {
  closeSync(openSync(path, "w"));
  truncateSync(path, size);
  return path;
}

const text = (r: { content: unknown }) => String(r.content);

describe("a sparse 2 GiB file is refused before it is read, naming the file, its size and the limit", () => {
  const d = dir();
  const big = sparse(join(d, "huge.txt"), 2 * GiB);
  const nb = sparse(join(d, "huge.ipynb"), 2 * GiB);
  const limit = "Maximum editable file size is 256MB (YOKE_EDIT_MAX_BYTES).";

  test("Edit (even before a Read, as Claude Code checks the size first)", async () => {
    const r = await editTool.run({ file_path: big, old_string: "a", new_string: "b" }, makeCtx(d));
    expect(r.isError).toBe(true);
    expect(text(r)).toContain(`File is too large to edit: ${big} is 2GB (2147483648 bytes). ${limit}`);
    expect(text(r)).toContain("through Bash");
  });

  test("MultiEdit and Write", async () => {
    const ctx = makeCtx(d);
    ctx.fileState.recordRead(big);
    const m = await multiEditTool.run({ file_path: big, edits: [{ old_string: "a", new_string: "b" }] }, ctx);
    expect(text(m)).toContain(`File is too large to edit: ${big} is 2GB (2147483648 bytes).`);
    const w = await writeTool.run({ file_path: big, content: "small" }, ctx);
    expect(w.isError).toBe(true);
    expect(text(w)).toContain(`${big} is 2GB`);
    expect(statSync(big).size).toBe(2 * GiB); // nothing written
  });

  test("NotebookEdit, and Read of the notebook", async () => {
    const ctx = makeCtx(d);
    ctx.fileState.recordRead(nb);
    const e = await notebookEditTool.run({ notebook_path: nb, cell_id: "cell-0", new_source: "x" }, ctx);
    expect(e.isError).toBe(true);
    expect(text(e)).toContain(`File is too large to edit: ${nb} is 2GB (2147483648 bytes).`);
    const r = await readTool.run({ file_path: nb }, makeCtx(d));
    expect(r.isError).toBe(true);
    expect(text(r)).toContain(`File is too large to read as a notebook: ${nb} is 2GB (2147483648 bytes); Read holds at most 256MB of it.`);
  });

  test("Read of an image", async () => {
    const png = sparse(join(d, "huge.png"), 2 * GiB);
    const r = await readTool.run({ file_path: png }, makeCtx(d));
    expect(r.isError).toBe(true);
    expect(text(r)).toContain(`File is too large to read as an image: ${png} is 2GB (2147483648 bytes)`);
  });
});

describe("YOKE_EDIT_MAX_BYTES", () => {
  test("moves the limit; past Claude Code's 1 GiB it stays at 1 GiB; nonsense keeps the default", async () => {
    expect(editMaxBytes({})).toBe(256 * 1024 * 1024);
    expect(editMaxBytes({ YOKE_EDIT_MAX_BYTES: "4096" })).toBe(4096);
    expect(editMaxBytes({ YOKE_EDIT_MAX_BYTES: String(8 * GiB) })).toBe(GiB);
    expect(editMaxBytes({ YOKE_EDIT_MAX_BYTES: "lots" })).toBe(256 * 1024 * 1024);
    const d = dir();
    const f = join(d, "a.txt");
    writeFileSync(f, "x".repeat(2000) + "\nneedle\n");
    const small = makeCtx(d, { env: { YOKE_EDIT_MAX_BYTES: "1024" } });
    small.fileState.recordRead(f);
    const refused = await editTool.run({ file_path: f, old_string: "needle", new_string: "pin" }, small);
    expect(text(refused)).toContain(`${f} is 2KB (2008 bytes). Maximum editable file size is 1KB (YOKE_EDIT_MAX_BYTES).`);
    const roomy = makeCtx(d, { env: { YOKE_EDIT_MAX_BYTES: "4096" } });
    roomy.fileState.recordRead(f);
    expect((await editTool.run({ file_path: f, old_string: "needle", new_string: "pin" }, roomy)).isError).toBeUndefined();
    const huge = sparse(join(d, "huge.txt"), 1.5 * GiB);
    const all = makeCtx(d, { env: { YOKE_EDIT_MAX_BYTES: String(8 * GiB) } });
    expect(text(await editTool.run({ file_path: huge, old_string: "a", new_string: "b" }, all))).toContain(
      "is 1.5GB (1610612736 bytes). Maximum editable file size is 1GB (YOKE_EDIT_MAX_BYTES).",
    );
  });
});

describe("files whose size says nothing, and files that grow", () => {
  test("a /proc file (size 0) is read to its end, and refused when it holds more than the limit", async () => {
    const r = readCapped("/proc/self/status", 1 << 20);
    expect(r.ok && r.bytes.toString().startsWith("Name:")).toBe(true);
    const over = readCapped("/proc/self/status", 100);
    expect(over).toEqual({ ok: false, size: 0, zeroSized: true });
    const d = dir();
    const ctx = makeCtx(d, { env: { YOKE_EDIT_MAX_BYTES: "100" } });
    ctx.fileState.recordRead("/proc/self/status");
    const e = await editTool.run({ file_path: "/proc/self/status", old_string: "Name", new_string: "Nom" }, ctx);
    expect(text(e)).toContain("File is too large to edit: /proc/self/status reports a size of 0 bytes and holds more than 100 bytes.");
    const read = await readTool.run({ file_path: "/proc/self/status" }, makeCtx(d));
    expect(text(read)).toStartWith("1\tName:");
  });

  test("a file growing while it is read: Read and the edit tools take the size it had when they opened it", async () => {
    const d = dir();
    const f = join(d, "log.txt");
    appendFileSync(f, "first\n");
    const writer = spawnProcess(["sh", "-c", `while :; do echo more >> "${f}"; done`], {});
    try {
      await waitFor(() => statSync(f).size > 8192, "the writer to append");
      const r = readCapped(f, 1 << 30);
      expect(r.ok).toBe(true);
      const ranged = await readTool.run({ file_path: f, offset: 1, limit: 3 }, makeCtx(d));
      expect(text(ranged)).toStartWith("1\tfirst\n2\tmore\n3\tmore");
    } finally {
      await killGroup(writer.pid!, 0);
    }
  });

  test("sizes are worded as Claude Code words them", () => {
    expect([512, 1536, 256 * 1024 * 1024, 2 * GiB].map(formatFileSize)).toEqual(["512 bytes", "1.5KB", "256MB", "2GB"]);
  });
});
