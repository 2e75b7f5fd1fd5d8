/**
 * Jupyter notebook (nbformat 4) helpers shared by Read and NotebookEdit. Pure functions; parseNotebook
 * throws an Error naming the file when the JSON is not a notebook.
 */

export type NotebookCell = {
  cell_type: string;
  id?: string;
  source: string | string[];
  metadata?: Record<string, unknown>;
  outputs?: NotebookOutput[];
  execution_count?: number | null;
  [k: string]: unknown;
};

type NotebookOutput = {
  output_type: string;
  text?: string | string[];
  data?: Record<string, string | string[]>;
  ename?: string;
  evalue?: string;
  traceback?: string[];
};

export type Notebook = {
  cells: NotebookCell[];
  metadata?: { language_info?: { name?: string }; kernelspec?: { language?: string } };
  nbformat?: number;
  nbformat_minor?: number;
  [k: string]: unknown;
};

export const joinSource = (s: string | string[] | undefined): string => (Array.isArray(s) ? s.join("") : (s ?? ""));

/** nbformat stores source as lines that keep their "\n", the last one without. */
export function splitSource(text: string): string[] {
  if (text === "") return [];
  const parts = text.split("\n");
  return parts.map((p, i) => (i < parts.length - 1 ? `${p}\n` : p)).filter((p) => p !== "");
}

export function parseNotebook(text: string, path: string): Notebook {
  let nb: unknown;
  try {
    nb = JSON.parse(text);
  } catch (err) {
    throw new Error(`${path} is not valid JSON (${(err as Error).message}), so it cannot be handled as a notebook.`);
  }
  if (!nb || typeof nb !== "object" || !Array.isArray((nb as Notebook).cells))
    throw new Error(`${path} has no "cells" array, so it is not a Jupyter notebook.`);
  return nb as Notebook;
}

/** The id the model uses for a cell: its own id, or `cell-<index>` for notebooks older than nbformat 4.5. */
export const cellId = (cell: NotebookCell, index: number): string => cell.id ?? `cell-${index}`;

/** Index of the cell named `id` (a real id or `cell-<index>`), or -1. */
export function findCell(nb: Notebook, id: string): number {
  const byId = nb.cells.findIndex((c) => c.id === id);
  if (byId !== -1) return byId;
  const m = /^cell-(\d+)$/.exec(id);
  if (m) {
    const i = Number(m[1]);
    if (i < nb.cells.length) return i;
  }
  return -1;
}

export const notebookLanguage = (nb: Notebook): string =>
  nb.metadata?.language_info?.name ?? nb.metadata?.kernelspec?.language ?? "python";

// Tracebacks carry terminal colour codes that are noise to the model.
const stripAnsi = (s: string) => s.replace(/\u001b\[[0-9;]*[A-Za-z]/g, "");

function renderOutput(o: NotebookOutput): string {
  if (o.output_type === "stream") return joinSource(o.text);
  if (o.output_type === "error") return stripAnsi([`${o.ename}: ${o.evalue}`, ...(o.traceback ?? [])].join("\n"));
  const data = o.data ?? {};
  if (data["text/plain"] !== undefined) return joinSource(data["text/plain"]);
  const kinds = Object.keys(data);
  return kinds.length ? `[${kinds.join(", ")} output not shown]` : "";
}

/** The notebook as text: each cell tagged with its id and type, then its source and text outputs. */
export function renderNotebook(nb: Notebook): string {
  const lang = notebookLanguage(nb);
  return nb.cells
    .map((cell, i) => {
      const head = `<cell id="${cellId(cell, i)}" type="${cell.cell_type}"${cell.cell_type === "code" ? ` language="${lang}"` : ""}>`;
      const body = joinSource(cell.source);
      const outs = (cell.outputs ?? []).map((o) => renderOutput(o).replace(/\n+$/, "")).filter((s) => s.trim() !== "");
      const outText = outs.length ? `\n<outputs>\n${outs.join("\n")}\n</outputs>` : "";
      return `${head}\n${body}${outText}\n</cell>`;
    })
    .join("\n\n");
}
