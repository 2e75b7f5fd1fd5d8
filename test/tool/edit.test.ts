import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { editTool } from "../../src/tool/builtin/edit.ts";
import { multiEditTool } from "../../src/tool/builtin/multi-edit.ts";
import { readTool } from "../../src/tool/builtin/read.ts";
import { applyPatch } from "../../src/tool/structured-patch.ts";
import { makeCtx, tempDir } from "./ctx.ts";

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
/** A file already read into a fresh context. */
async function prepared(data: string | Buffer) {
  const p = join(dir, `f${n++}.txt`);
  writeFileSync(p, data);
  const ctx = makeCtx(dir);
  await readTool.run({ file_path: p }, ctx);
  return { p, ctx };
}

describe("Edit (contracts §7.2)", () => {
  test("replaces a unique match; result has message and numbered snippet; details per brief", async () => {
    const { p, ctx } = await prepared("alpha\nbeta\ngamma\n");
    const r = await editTool.run({ file_path: p, old_string: "beta", new_string: "BETA" }, ctx);
    expect(r.isError).toBeFalsy();
    expect(readFileSync(p, "utf8")).toBe("alpha\nBETA\ngamma\n");
    expect(r.content).toStartWith(`The file ${p} has been updated successfully.`);
    expect(r.content).toContain("2\tBETA");
    expect(r.details).toEqual({
      filePath: p,
      oldString: "beta",
      newString: "BETA",
      originalFile: "alpha\nbeta\ngamma\n",
      structuredPatch: [{ oldStart: 1, oldLines: 3, newStart: 1, newLines: 3, lines: [" alpha", "-beta", "+BETA", " gamma"] }],
      userModified: false,
      replaceAll: false,
    });
    expect(ctx.changed).toEqual([p]);
    // The edit counts as a read: a second edit goes through.
    expect((await editTool.run({ file_path: p, old_string: "gamma", new_string: "G" }, ctx)).isError).toBeFalsy();
  });

  test("must read first", async () => {
    const p = join(dir, "unread.txt");
    writeFileSync(p, "x\n");
    const r = await editTool.run({ file_path: p, old_string: "x", new_string: "y" }, makeCtx(dir));
    expect(r.isError).toBe(true);
    expect(r.content).toContain("has not been read");
  });

  test("changed on disk since read is refused", async () => {
    const { p, ctx } = await prepared("x\n");
    writeFileSync(p, "x and more\n");
    const r = await editTool.run({ file_path: p, old_string: "x", new_string: "y" }, ctx);
    expect(r.isError).toBe(true);
    expect(r.content).toContain("modified since");
  });

  test("no match: error says how to fix, and spots a pasted line-number prefix", async () => {
    const { p, ctx } = await prepared("  indented\n");
    const r = await editTool.run({ file_path: p, old_string: "indented  ", new_string: "z" }, ctx);
    expect(r.isError).toBe(true);
    expect(r.content).toContain("not found");
    expect(r.content).toContain("whitespace");
    const r2 = await editTool.run({ file_path: p, old_string: "1\t  indentedX", new_string: "z" }, ctx);
    expect(r2.content).toContain("line number");
    expect(readFileSync(p, "utf8")).toBe("  indented\n");
  });

  test("ambiguous match names the count; replace_all replaces all", async () => {
    const { p, ctx } = await prepared("foo bar foo baz foo\n");
    const r = await editTool.run({ file_path: p, old_string: "foo", new_string: "qux" }, ctx);
    expect(r.isError).toBe(true);
    expect(r.content).toContain("3 times");
    const ok = await editTool.run({ file_path: p, old_string: "foo", new_string: "$&q" , replace_all: true }, ctx);
    expect(ok.isError).toBeFalsy();
    // "$&" must be literal, not a regex replacement pattern.
    expect(readFileSync(p, "utf8")).toBe("$&q bar $&q baz $&q\n");
    expect((ok.details as any).replaceAll).toBe(true);
  });

  test("old_string equal to new_string is refused", async () => {
    const { p, ctx } = await prepared("same\n");
    const r = await editTool.run({ file_path: p, old_string: "same", new_string: "same" }, ctx);
    expect(r.isError).toBe(true);
    expect(r.content).toContain("identical");
  });

  test("empty old_string on a missing path creates the file", async () => {
    const p = join(dir, "made/by/edit.txt");
    const ctx = makeCtx(dir);
    const r = await editTool.run({ file_path: p, old_string: "", new_string: "hello\n" }, ctx);
    expect(r.isError).toBeFalsy();
    expect(readFileSync(p, "utf8")).toBe("hello\n");
    expect((r.details as any).originalFile).toBeNull();
    const miss = await editTool.run({ file_path: join(dir, "nope.txt"), old_string: "a", new_string: "b" }, ctx);
    expect(miss.content).toStartWith(`File does not exist. Note: your current working directory is ${dir}.`);
  });

  test("empty old_string on a non-empty file is refused", async () => {
    const { p, ctx } = await prepared("content\n");
    const r = await editTool.run({ file_path: p, old_string: "", new_string: "x" }, ctx);
    expect(r.isError).toBe(true);
    expect(r.content).toContain("already has content");
  });

  test("CRLF file: LF old_string matches, file stays CRLF; BOM kept", async () => {
    const { p, ctx } = await prepared("\uFEFFline one\r\nline two\r\nline three\r\n");
    const r = await editTool.run({ file_path: p, old_string: "line one\nline two", new_string: "first\nsecond\nextra" }, ctx);
    expect(r.isError).toBeFalsy();
    expect(readFileSync(p)).toEqual(Buffer.from("\uFEFFfirst\r\nsecond\r\nextra\r\nline three\r\n"));
    const d = r.details as any;
    expect(applyPatch(d.originalFile, d.structuredPatch)).toBe("first\nsecond\nextra\nline three\n");
  });

  test("straight quotes in old_string match typographic quotes in the file", async () => {
    const { p, ctx } = await prepared("say \u201Chello\u201D\n");
    const r = await editTool.run({ file_path: p, old_string: 'say "hello"', new_string: "say hi" }, ctx);
    expect(r.isError).toBeFalsy();
    expect(readFileSync(p, "utf8")).toBe("say hi\n");
  });

  test("deleting a line's whole text removes the line", async () => {
    const { p, ctx } = await prepared("keep\ndrop me\nkeep too\n");
    await editTool.run({ file_path: p, old_string: "drop me", new_string: "" }, ctx);
    expect(readFileSync(p, "utf8")).toBe("keep\nkeep too\n");
  });

  test("relative path, directory and aborted signal", async () => {
    const ctx = makeCtx(dir);
    expect((await editTool.run({ file_path: "x.txt", old_string: "a", new_string: "b" }, ctx)).content).toContain("absolute path");
    expect((await editTool.run({ file_path: dir, old_string: "a", new_string: "b" }, ctx)).content).toContain("is a directory");
    const { p, ctx: c2 } = await prepared("a\n");
    c2.abort.abort();
    const r = await editTool.run({ file_path: p, old_string: "a", new_string: "b" }, c2);
    expect(r.content).toContain("interrupted");
    expect(readFileSync(p, "utf8")).toBe("a\n");
  });

  test("an edit near the end of a big file is quick", async () => {
    const big = Array.from({ length: 300_000 }, (_, i) => `row ${i}`).join("\n") + "\n";
    const p = join(dir, "big.txt");
    writeFileSync(p, big);
    const ctx = makeCtx(dir);
    await readTool.run({ file_path: p, offset: 299_990, limit: 10 }, ctx);
    const r = await editTool.run({ file_path: p, old_string: "row 299995\n", new_string: "ROW\n" }, ctx);
    expect(r.content).toContain("299996\tROW");
  });
});

describe("Edit deleting text", () => {
  test("deleting a whole line's text removes the line", async () => {
    const { p, ctx } = await prepared("keep\ndrop me\nkeep too\n");
    await editTool.run({ file_path: p, old_string: "drop me", new_string: "" }, ctx);
    expect(readFileSync(p, "utf8")).toBe("keep\nkeep too\n");
  });

  test("deleting the end of a line keeps the line break, so lines are never joined", async () => {
    const { p, ctx } = await prepared("foo bar\nbaz\n");
    await editTool.run({ file_path: p, old_string: " bar", new_string: "" }, ctx);
    expect(readFileSync(p, "utf8")).toBe("foo\nbaz\n");
  });
});

describe("MultiEdit (legacy, contracts §7.1/§7.2)", () => {
  test("applies edits in order to the in-memory text", async () => {
    const { p, ctx } = await prepared("a = 1\nb = 2\n");
    const r = await multiEditTool.run(
      {
        file_path: p,
        edits: [
          { old_string: "a = 1", new_string: "a = 10" },
          { old_string: "a = 10\nb", new_string: "a = 10\nbee" },
        ],
      },
      ctx,
    );
    expect(r.isError).toBeFalsy();
    expect(readFileSync(p, "utf8")).toBe("a = 10\nbee = 2\n");
    expect(r.content).toContain("2 edits applied");
    expect((r.details as any).originalFile).toBe("a = 1\nb = 2\n");
    expect((r.details as any).edits).toHaveLength(2);
  });

  test("all or nothing: a failing edit names its index and nothing is written", async () => {
    const { p, ctx } = await prepared("x\ny\nx\n");
    const r = await multiEditTool.run(
      {
        file_path: p,
        edits: [
          { old_string: "y", new_string: "Y" },
          { old_string: "x", new_string: "X" },
        ],
      },
      ctx,
    );
    expect(r.isError).toBe(true);
    expect(r.content).toContain("Edit 2 of 2 failed");
    expect(r.content).toContain("2 times");
    expect(readFileSync(p, "utf8")).toBe("x\ny\nx\n");
    expect(ctx.changed).toEqual([]);
  });

  test("empty edits list is an input error", async () => {
    const r = await multiEditTool.run({ file_path: join(dir, "q"), edits: [] }, makeCtx(dir));
    expect(r.isError).toBe(true);
    expect(r.content).toContain("InputValidationError");
  });

  test("first edit with empty old_string creates a missing file", async () => {
    const p = join(dir, "multi-new.txt");
    const r = await multiEditTool.run(
      { file_path: p, edits: [{ old_string: "", new_string: "one\ntwo\n" }, { old_string: "two", new_string: "2" }] },
      makeCtx(dir),
    );
    expect(r.isError).toBeFalsy();
    expect(readFileSync(p, "utf8")).toBe("one\n2\n");
  });
});
