import { z } from "zod";
import { defineTool, interrupted } from "../define-tool.ts";
import { INPUT_SCHEMAS } from "../input-schemas.ts";
import { structuredPatch } from "../structured-patch.ts";
import type { ToolResult } from "../types.ts";
import type { Hunk } from "../structured-patch.ts";
import { commitChange, planEdits } from "./edit.ts";
import {  } from "./file-text.ts";
import description from "./multi-edit.md" with { type: "text" };

const input = () => z.strictObject({
  file_path: z.string().describe("Absolute path of the file to change"),
  edits: z
    .array(
      z.strictObject({
        old_string: z.string().describe("The exact text to replace"),
        new_string: z.string().describe("The text to put in its place"),
        replace_all: z.boolean().default(false).optional().describe("Replace every occurrence (default false)"),
      }),
    )
    .min(1)
    .describe("Edits applied in order, each to the result of the previous one"),
});

/** A hunk's new side, numbered as Read numbers lines, capped so a big rewrite stays short. */
function newSide(h: Hunk): string {
  const rows: string[] = [];
  let line = h.newStart;
  for (const l of h.lines) {
    if (l[0] !== " " && l[0] !== "+") continue;
    rows.push(`${line++}\t${l.slice(1)}`);
  }
  return rows.length > 40 ? [...rows.slice(0, 40), "…"].join("\n") : rows.join("\n");
}

/** Legacy tool (contracts §7.1: removed from Claude Code by 2.0.77), kept for older agents and rules. */
export const multiEditTool = defineTool({
  name: "MultiEdit",
  description,
  input,
  jsonSchema: INPUT_SCHEMAS.MultiEdit,
  readOnly: false,
  async execute(args, ctx): Promise<ToolResult> {
    const path = args.file_path;
    const n = args.edits.length;
    const plan = planEdits(path, args.edits, ctx, (i) => `Edit ${i + 1} of ${n} failed, so no edits were written: `);
    if (!plan.ok) return plan.result;
    if (ctx.signal.aborted) return interrupted("MultiEdit");
    await commitChange(path, plan, ctx);
    const originalText = plan.original?.text ?? "";
    const patch = structuredPatch(originalText, plan.text);
    const verb = plan.original ? `The file ${path} has been updated successfully` : `File created successfully at: ${path}`;
    const regions = patch.slice(0, 5).map(newSide).join("\n…\n");
    return {
      content: `${verb} (${n} edit${n === 1 ? "" : "s"} applied).\nThe changed regions now read:\n${regions}`,
      details: {
        filePath: path,
        edits: args.edits.map((e) => ({ old_string: e.old_string, new_string: e.new_string, replace_all: e.replace_all ?? false })),
        originalFile: plan.original ? originalText : null,
        structuredPatch: patch,
        userModified: false,
      },
    };
  },
});
