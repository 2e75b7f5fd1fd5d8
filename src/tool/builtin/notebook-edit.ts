import { randomBytes } from "../../util/random.ts";
import { extname } from "node:path";
import { z } from "zod";
import { defineTool, interrupted } from "../define-tool.ts";
import { INPUT_SCHEMAS } from "../input-schemas.ts";
import type { ToolResult } from "../types.ts";
import { announceChange, failure, loadForChange, writeText } from "./file-text.ts";
import { cellId, findCell, notebookLanguage, parseNotebook, splitSource, type Notebook, type NotebookCell } from "./notebook.ts";
import description from "./notebook-edit.md" with { type: "text" };

const input = () => z.strictObject({
  notebook_path: z.string().describe("Absolute path of the .ipynb file"),
  new_source: z.string().describe("The new source of the cell"),
  cell_id: z.string().optional().describe("Id of the cell to change; with insert, the new cell goes after it"),
  cell_type: z.enum(["code", "markdown"]).optional().describe("Type of the cell; required for insert"),
  edit_mode: z.enum(["replace", "insert", "delete"]).optional().describe("replace (default), insert or delete"),
});

/** The JSON indent the file uses (Jupyter writes 1 space), so a save does not reformat the whole file. */
function detectIndent(text: string): string | number {
  const m = /\n([ \t]+)"/.exec(text);
  if (!m) return 1;
  return m[1]!.startsWith("\t") ? "\t" : m[1]!.length;
}

/** nbformat 4.5 added cell ids; older notebooks must not get them or they fail schema validation. */
const usesIds = (nb: Notebook) =>
  (nb.nbformat ?? 4) > 4 || (nb.nbformat === 4 && (nb.nbformat_minor ?? 0) >= 5) || nb.cells.some((c) => typeof c.id === "string");

const newId = () => randomBytes(4).toString("hex");

function setType(cell: NotebookCell, type: "code" | "markdown"): void {
  cell.cell_type = type;
  if (type === "code") {
    cell.outputs = [];
    cell.execution_count = null;
  } else {
    delete cell.outputs;
    delete cell.execution_count;
  }
}

export const notebookEditTool = defineTool({
  name: "NotebookEdit",
  description,
  input,
  jsonSchema: INPUT_SCHEMAS.NotebookEdit,
  readOnly: false,
  async execute(args, ctx): Promise<ToolResult> {
    const path = args.notebook_path;
    const mode = args.edit_mode ?? "replace";
    if (extname(path).toLowerCase() !== ".ipynb")
      return failure(`${path} is not a Jupyter notebook (.ipynb). Use Edit or Write for other files.`);
    const loaded = loadForChange(path, ctx, "notebook_path");
    if (!loaded.ok) return failure(loaded.error);
    if (!loaded.original) return failure(`Notebook does not exist. Note: your current working directory is ${ctx.cwd}.`);
    const raw = loaded.original.text;
    const nb = parseNotebook(raw, path);
    const ids = nb.cells.map((c, i) => cellId(c, i));
    const known = ids.length ? ` Cells in this notebook: ${ids.slice(0, 30).join(", ")}${ids.length > 30 ? ", …" : ""}.` : "";

    let index = -1;
    if (args.cell_id !== undefined) {
      index = findCell(nb, args.cell_id);
      if (index === -1) return failure(`No cell with id "${args.cell_id}" in ${path}.${known} Read the notebook to see its cell ids.`);
    } else if (mode !== "insert") {
      return failure(`cell_id is required to ${mode} a cell. Read ${path} to see its cell ids.`);
    }

    let touchedId: string;
    let summary: string;
    let cellType: string;
    if (mode === "insert") {
      if (!args.cell_type) return failure("cell_type (code or markdown) is required when inserting a cell.");
      const cell: NotebookCell = { cell_type: args.cell_type, metadata: {}, source: splitSource(args.new_source) };
      if (usesIds(nb)) cell.id = newId();
      setType(cell, args.cell_type);
      nb.cells.splice(index + 1, 0, cell);
      touchedId = cellId(cell, index + 1);
      cellType = args.cell_type;
      summary = `Inserted a new ${args.cell_type} cell ${touchedId} ${index === -1 ? "at the start" : `after cell ${args.cell_id}`} of ${path}.`;
    } else if (mode === "delete") {
      const [gone] = nb.cells.splice(index, 1);
      touchedId = args.cell_id!;
      cellType = gone!.cell_type;
      summary = `Deleted cell ${touchedId} from ${path}.`;
    } else {
      const cell = nb.cells[index]!;
      cell.source = splitSource(args.new_source);
      if (args.cell_type && args.cell_type !== cell.cell_type) setType(cell, args.cell_type);
      else if (cell.cell_type === "code") setType(cell, "code");
      touchedId = args.cell_id!;
      cellType = cell.cell_type;
      summary = `Replaced the source of cell ${touchedId} in ${path}.`;
    }

    const updated = JSON.stringify(nb, null, detectIndent(raw)) + (raw.endsWith("\n") ? "\n" : "");
    if (ctx.signal.aborted) return interrupted("NotebookEdit");
    await announceChange(ctx, path);
    writeText(path, updated);
    ctx.fileState.recordRead(path);
    return {
      content: summary,
      details: {
        new_source: args.new_source,
        cell_id: touchedId,
        cell_type: cellType,
        language: notebookLanguage(nb),
        edit_mode: mode,
        error: "",
        notebook_path: path,
        original_file: raw,
        updated_file: updated,
      },
    };
  },
});
