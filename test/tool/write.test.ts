import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { decodeText } from "../../src/tool/builtin/file-text.ts";
import { readTool } from "../../src/tool/builtin/read.ts";
import { writeTool } from "../../src/tool/builtin/write.ts";
import { makeCtx, tempDir } from "./ctx.ts";

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("Write (contracts §7.2, tool_response §1.4)", () => {
  test("creates a new file and its parent dirs; create details match the §1.4 example shape", async () => {
    const p = join(dir, "new/deep/out.txt");
    const ctx = makeCtx(dir);
    const r = await writeTool.run({ file_path: p, content: "x\n" }, ctx);
    expect(r.isError).toBeFalsy();
    expect(r.content).toBe(`File created successfully at: ${p}`);
    expect(readFileSync(p, "utf8")).toBe("x\n");
    expect(r.details).toEqual({ type: "create", filePath: p, content: "x\n", structuredPatch: [], originalFile: null, userModified: false });
    expect(ctx.changed).toEqual([p]);
    // A write counts as a read: a second write needs no Read.
    const again = await writeTool.run({ file_path: p, content: "y\n" }, ctx);
    expect(again.isError).toBeFalsy();
  });

  test("an existing file must be read first", async () => {
    const p = join(dir, "existing.txt");
    writeFileSync(p, "old\n");
    const ctx = makeCtx(dir);
    const r = await writeTool.run({ file_path: p, content: "new\n" }, ctx);
    expect(r.isError).toBe(true);
    expect(r.content).toContain("has not been read");
    expect(readFileSync(p, "utf8")).toBe("old\n");
    expect(ctx.changed).toEqual([]);
  });

  test("update after read: message, patch and original in details", async () => {
    const p = join(dir, "upd.txt");
    writeFileSync(p, "a\nb\nc\n");
    const ctx = makeCtx(dir);
    await readTool.run({ file_path: p }, ctx);
    const r = await writeTool.run({ file_path: p, content: "a\nB\nc\n" }, ctx);
    expect(r.content).toBe(`The file ${p} has been updated successfully.`);
    expect(r.details).toMatchObject({
      type: "update",
      originalFile: "a\nb\nc\n",
      structuredPatch: [{ oldStart: 1, oldLines: 3, newStart: 1, newLines: 3, lines: [" a", "-b", "+B", " c"] }],
    });
  });

  test("a file changed on disk since the read is refused", async () => {
    const p = join(dir, "changed.txt");
    writeFileSync(p, "one\n");
    const ctx = makeCtx(dir);
    await readTool.run({ file_path: p }, ctx);
    writeFileSync(p, "someone else\n");
    utimesSync(p, new Date(), new Date(Date.now() + 5000));
    const r = await writeTool.run({ file_path: p, content: "mine\n" }, ctx);
    expect(r.isError).toBe(true);
    expect(r.content).toContain("modified since it was read");
    expect(readFileSync(p, "utf8")).toBe("someone else\n");
  });

  test("overwriting keeps CRLF line endings and the UTF-8 BOM", async () => {
    const p = join(dir, "win.txt");
    writeFileSync(p, "\uFEFFa\r\nb\r\n");
    const ctx = makeCtx(dir);
    await readTool.run({ file_path: p }, ctx);
    await writeTool.run({ file_path: p, content: "x\ny\nz\n" }, ctx);
    expect(readFileSync(p)).toEqual(Buffer.from("\uFEFFx\r\ny\r\nz\r\n"));
  });

  test("relative path, directory target and an unwritable path are errors", async () => {
    const ctx = makeCtx(dir);
    expect((await writeTool.run({ file_path: "rel.txt", content: "" }, ctx)).content).toContain("absolute path");
    expect((await writeTool.run({ file_path: dir, content: "" }, ctx)).content).toContain("is a directory");
    // Root ignores chmod, so the unwritable case is a parent that is a regular file (ENOTDIR).
    const f = join(dir, "afile");
    writeFileSync(f, "");
    const r = await writeTool.run({ file_path: join(f, "child.txt"), content: "x" }, ctx);
    expect(r.isError).toBe(true);
    expect(r.content).toContain(join(f, "child.txt"));
  });

  test("aborted before writing: interrupted, nothing written", async () => {
    const ctx = makeCtx(dir);
    ctx.abort.abort();
    const p = join(dir, "never.txt");
    const r = await writeTool.run({ file_path: p, content: "x" }, ctx);
    expect(r.isError).toBe(true);
    expect(r.content).toContain("interrupted");
    expect(() => readFileSync(p)).toThrow();
  });
});

describe("line-ending detection", () => {
  test("an LF file with one stray CRLF stays LF", () => {
    expect(decodeText(Buffer.from("a\nb\nc\r\nd\n")).crlf).toBe(false);
    expect(decodeText(Buffer.from("a\r\nb\r\nc\n")).crlf).toBe(true);
    expect(decodeText(Buffer.from("\uFEFFx")).bom).toBe(true);
  });
});
