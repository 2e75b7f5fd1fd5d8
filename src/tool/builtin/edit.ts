import { z } from "zod";
import { defineTool, interrupted } from "../define-tool.ts";
import { INPUT_SCHEMAS } from "../input-schemas.ts";
import { structuredPatch } from "../structured-patch.ts";
import type { ToolContext, ToolResult } from "../types.ts";
import { applyEdit, snippetAround, type EditSpec } from "./apply-edit.ts";
import description from "./edit.md" with { type: "text" };
import { announceChange, encodeText, failure, loadForChange, writeText, type DecodedText } from "./file-text.ts";

const input = () => z.strictObject({
  file_path: z.string().describe("Absolute path of the file to change"),
  old_string: z.string().describe("The exact text to replace"),
  new_string: z.string().describe("The text to put in its place (must differ from old_string)"),
  replace_all: z.boolean().default(false).optional().describe("Replace every occurrence of old_string (default false)"),
});

/** Result of applying edits to one file in memory, before anything is written. */
export type PlannedChange =
  | { ok: true; original: DecodedText | null; text: string; at: number; changedLength: number; count: number }
  | { ok: false; result: ToolResult };

/**
 * Shared by Edit and MultiEdit: checks the path and read-before-write, then applies `edits` in order.
 * `label(i)` prefixes the error of the i-th edit. Throws only model-worded fs errors.
 */
export function planEdits(path: string, edits: EditSpec[], ctx: ToolContext, label: (i: number) => string): PlannedChange {
  const stop = (content: string): PlannedChange => ({ ok: false, result: failure(content) });
  const loaded = loadForChange(path, ctx);
  if (!loaded.ok) return stop(loaded.error);
  const original = loaded.original;
  if (!original && edits[0]?.old_string !== "")
    return stop(
      `File does not exist. Note: your current working directory is ${ctx.cwd}. To create a file, use Write, or Edit with an empty old_string.`,
    );
  let text = original?.text ?? "";
  let at = 0;
  let changedLength = 0;
  let count = 0;
  for (const [i, raw] of edits.entries()) {
    // The model writes plain newlines; a CRLF file is matched in its LF form and written back as CRLF.
    const e = original?.crlf
      ? { ...raw, old_string: raw.old_string.replaceAll("\r\n", "\n"), new_string: raw.new_string.replaceAll("\r\n", "\n") }
      : raw;
    const r = applyEdit(text, e, path);
    if (!r.ok) return stop(label(i) + r.error);
    text = r.text;
    if (i === 0) {
      at = r.at;
      changedLength = e.new_string.length;
    }
    count += r.count;
  }
  return { ok: true, original, text, at, changedLength, count };
}

/** Writes a planned change (checkpoint first) and records it as read. */
export async function commitChange(path: string, plan: Extract<PlannedChange, { ok: true }>, ctx: ToolContext): Promise<void> {
  await announceChange(ctx, path);
  writeText(path, encodeText(plan.text, plan.original ?? { bom: false, crlf: false }));
  ctx.fileState.recordRead(path);
}

export const editTool = defineTool({
  name: "Edit",
  description,
  input,
  jsonSchema: INPUT_SCHEMAS.Edit,
  readOnly: false,
  async execute(args, ctx): Promise<ToolResult> {
    const path = args.file_path;
    const replaceAll = args.replace_all ?? false;
    const plan = planEdits(path, [{ old_string: args.old_string, new_string: args.new_string, replace_all: replaceAll }], ctx, () => "");
    if (!plan.ok) return plan.result;
    if (ctx.signal.aborted) return interrupted("Edit");
    await commitChange(path, plan, ctx);
    const originalText = plan.original?.text ?? "";
    const head = plan.original
      ? `The file ${path} has been updated successfully.`
      : `File created successfully at: ${path}`;
    const many = plan.count > 1 ? ` All ${plan.count} occurrences were replaced; the first is shown.` : "";
    const content = `${head}${many}\nThe changed region now reads:\n${snippetAround(plan.text, plan.at, plan.changedLength)}`;
    return {
      content,
      details: {
        filePath: path,
        oldString: args.old_string,
        newString: args.new_string,
        originalFile: plan.original ? originalText : null,
        structuredPatch: structuredPatch(originalText, plan.text),
        userModified: false,
        replaceAll,
      },
    };
  },
});
