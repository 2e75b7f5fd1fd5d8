import { z } from "zod";
import { defineTool, interrupted } from "../define-tool.ts";
import { INPUT_SCHEMAS } from "../input-schemas.ts";
import { structuredPatch } from "../structured-patch.ts";
import type { ToolResult } from "../types.ts";
import { announceChange, encodeText, failure, loadForChange, writeText } from "./file-text.ts";
import description from "./write.md" with { type: "text" };

const input = () => z.strictObject({
  file_path: z.string().describe("Absolute path of the file to write"),
  content: z.string().describe("The complete new content of the file"),
});

export const writeTool = defineTool({
  name: "Write",
  description,
  input,
  jsonSchema: INPUT_SCHEMAS.Write,
  readOnly: false,
  async execute(args, ctx): Promise<ToolResult> {
    const path = args.file_path;
    const loaded = loadForChange(path, ctx);
    if (!loaded.ok) return failure(loaded.error);
    const original = loaded.original;
    const style = original ?? { bom: false, crlf: false };
    // The patch compares logical text (LF, no BOM); the file gets the original's style back.
    const logical = style.crlf ? args.content.replaceAll("\r\n", "\n") : args.content;
    if (ctx.signal.aborted) return interrupted("Write");
    await announceChange(ctx, path);
    writeText(path, encodeText(logical, style));
    ctx.fileState.recordRead(path);
    const details = {
      type: original ? "update" : "create",
      filePath: path,
      content: args.content,
      structuredPatch: original ? structuredPatch(original.text, logical) : [],
      originalFile: original ? original.text : null,
      userModified: false,
    };
    const content = original
      ? `The file ${path} has been updated successfully.`
      : `File created successfully at: ${path}`;
    return { content, details };
  },
});
