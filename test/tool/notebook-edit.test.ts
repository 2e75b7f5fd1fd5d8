import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { notebookEditTool } from "../../src/tool/builtin/notebook-edit.ts";
import { readTool } from "../../src/tool/builtin/read.ts";
import { makeCtx, tempDir } from "./ctx.ts";

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

const modern = () => ({
  nbformat: 4,
  nbformat_minor: 5,
  metadata: { kernelspec: { language: "python" } },
  cells: [
    { id: "intro", cell_type: "markdown", metadata: {}, source: ["# Intro"] },
    { id: "code1", cell_type: "code", metadata: {}, execution_count: 3, source: ["x = 1\n", "x"], outputs: [{ output_type: "execute_result", data: { "text/plain": ["1"] }, metadata: {}, execution_count: 3 }] },
  ],
});

async function prepared(nb: unknown, indent: number | string = 1) {
  const p = join(dir, `nb${n++}.ipynb`);
  writeFileSync(p, JSON.stringify(nb, null, indent) + "\n");
  const ctx = makeCtx(dir);
  await readTool.run({ file_path: p }, ctx);
  return { p, ctx };
}
const load = (p: string) => JSON.parse(readFileSync(p, "utf8"));

describe("NotebookEdit (contracts §7.2)", () => {
  test("replace sets source as a list of lines and clears code outputs", async () => {
    const { p, ctx } = await prepared(modern());
    const r = await notebookEditTool.run({ notebook_path: p, cell_id: "code1", new_source: "y = 2\nprint(y)\n" }, ctx);
    expect(r.isError).toBeFalsy();
    const cell = load(p).cells[1];
    expect(cell.source).toEqual(["y = 2\n", "print(y)\n"]);
    expect(cell.outputs).toEqual([]);
    expect(cell.execution_count).toBeNull();
    expect(ctx.changed).toEqual([p]);
    expect(r.details).toMatchObject({ cell_id: "code1", cell_type: "code", edit_mode: "replace", language: "python", notebook_path: p });
  });

  test("indentation style of the file is kept", async () => {
    const { p, ctx } = await prepared(modern(), 2);
    await notebookEditTool.run({ notebook_path: p, cell_id: "intro", new_source: "# New" }, ctx);
    const text = readFileSync(p, "utf8");
    expect(text).toStartWith('{\n  "nbformat"');
    expect(text.endsWith("}\n")).toBe(true);
  });

  test("insert after a cell and at the start; new cells get ids and code-cell fields", async () => {
    const { p, ctx } = await prepared(modern());
    const r = await notebookEditTool.run({ notebook_path: p, cell_id: "intro", new_source: "z = 3", cell_type: "code", edit_mode: "insert" }, ctx);
    expect(r.isError).toBeFalsy();
    let cells = load(p).cells;
    expect(cells.map((c: any) => c.cell_type)).toEqual(["markdown", "code", "code"]);
    expect(cells[1]).toMatchObject({ cell_type: "code", source: ["z = 3"], outputs: [], execution_count: null, metadata: {} });
    expect(typeof cells[1].id).toBe("string");
    expect((r.details as any).cell_id).toBe(cells[1].id);
    await notebookEditTool.run({ notebook_path: p, new_source: "top", cell_type: "markdown", edit_mode: "insert" }, ctx);
    cells = load(p).cells;
    expect(cells[0]).toMatchObject({ cell_type: "markdown", source: ["top"] });
    expect(cells[0].outputs).toBeUndefined();
  });

  test("insert without cell_type is refused", async () => {
    const { p, ctx } = await prepared(modern());
    const r = await notebookEditTool.run({ notebook_path: p, new_source: "x", edit_mode: "insert" }, ctx);
    expect(r.isError).toBe(true);
    expect(r.content).toContain("cell_type");
  });

  test("delete removes the cell", async () => {
    const { p, ctx } = await prepared(modern());
    await notebookEditTool.run({ notebook_path: p, cell_id: "intro", new_source: "", edit_mode: "delete" }, ctx);
    expect(load(p).cells.map((c: any) => c.id)).toEqual(["code1"]);
  });

  test("replace with a new cell_type converts the cell", async () => {
    const { p, ctx } = await prepared(modern());
    await notebookEditTool.run({ notebook_path: p, cell_id: "code1", new_source: "now prose", cell_type: "markdown" }, ctx);
    const cell = load(p).cells[1];
    expect(cell.cell_type).toBe("markdown");
    expect(cell.outputs).toBeUndefined();
    expect(cell.execution_count).toBeUndefined();
  });

  test("unknown cell id lists the real ids", async () => {
    const { p, ctx } = await prepared(modern());
    const r = await notebookEditTool.run({ notebook_path: p, cell_id: "nope", new_source: "x" }, ctx);
    expect(r.isError).toBe(true);
    expect(r.content).toContain("intro, code1");
  });

  test("old notebooks (nbformat 4.4) are addressed as cell-N and get no ids", async () => {
    const nb = modern();
    nb.nbformat_minor = 4;
    for (const c of nb.cells) delete (c as any).id;
    const { p, ctx } = await prepared(nb);
    const read = await readTool.run({ file_path: p }, ctx);
    expect(read.content).toContain('<cell id="cell-1" type="code"');
    await notebookEditTool.run({ notebook_path: p, cell_id: "cell-1", new_source: "changed" }, ctx);
    await notebookEditTool.run({ notebook_path: p, cell_id: "cell-0", new_source: "md", cell_type: "markdown", edit_mode: "insert" }, ctx);
    const cells = load(p).cells;
    expect(cells[2].source).toEqual(["changed"]);
    expect(cells.some((c: any) => "id" in c)).toBe(false);
  });

  test("read-before-write, relative path, non-notebook, invalid JSON", async () => {
    const p = join(dir, "unread.ipynb");
    writeFileSync(p, JSON.stringify(modern()));
    const ctx = makeCtx(dir);
    expect((await notebookEditTool.run({ notebook_path: p, cell_id: "intro", new_source: "x" }, ctx)).content).toContain("has not been read");
    expect((await notebookEditTool.run({ notebook_path: "a.ipynb", cell_id: "intro", new_source: "x" }, ctx)).content).toContain("absolute path");
    expect((await notebookEditTool.run({ notebook_path: join(dir, "a.py"), new_source: "x" }, ctx)).content).toContain("not a Jupyter notebook");
    const bad = join(dir, "bad.ipynb");
    writeFileSync(bad, "{not json");
    ctx.fileState.recordRead(bad);
    const r = await notebookEditTool.run({ notebook_path: bad, cell_id: "x", new_source: "x" }, ctx);
    expect(r.isError).toBe(true);
    expect(r.content).toContain("not valid JSON");
  });

  test("aborted signal: interrupted, nothing written", async () => {
    const { p, ctx } = await prepared(modern());
    const before = readFileSync(p, "utf8");
    ctx.abort.abort();
    const r = await notebookEditTool.run({ notebook_path: p, cell_id: "intro", new_source: "x" }, ctx);
    expect(r.content).toContain("interrupted");
    expect(readFileSync(p, "utf8")).toBe(before);
  });
});
