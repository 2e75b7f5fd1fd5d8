import { mkdirSync, statSync, writeFileSync, type Stats } from "node:fs";
import { dirname, isAbsolute } from "node:path";
import type { ToolContext, ToolResult } from "../types.ts";
import { editMaxBytes, readCapped, tooLargeMessage } from "./file-size.ts";

/**
 * Helpers shared by the file tools: path checks, decoding a text file while remembering its BOM and
 * line endings, and writing text back in the same style. Functions that touch disk throw an Error whose
 * message names the path and is worded for the model; defineTool turns it into an is_error result.
 */

/** The file's text as the model sees it (no BOM, LF endings) plus how to write it back. */
export type DecodedText = { text: string; bom: boolean; crlf: boolean };

const BOM = "\uFEFF";

/** Returns an instruction when `path` is not absolute, else null. */
export function requireAbsolute(path: string, field = "file_path"): string | null {
  if (isAbsolute(path)) return null;
  return `${field} must be an absolute path, but got "${path}". Call the tool again with the full path (starting with /).`;
}

export const failure = (message: string): ToolResult => ({ content: message, isError: true });

/** Says what went wrong with an fs call on `path` in words the model can act on. */
export function describeFsError(err: unknown, path: string, action: string): string {
  const code = (err as NodeJS.ErrnoException)?.code;
  switch (code) {
    case "EACCES":
    case "EPERM":
      return `Permission denied ${action} ${path}. Choose a path you can access or ask the user to fix the permissions.`;
    case "EROFS":
      return `Cannot ${action.replace(/ing$/, "")} ${path}: the file system is read-only.`;
    case "ENOTDIR":
      return `Cannot ${action.replace(/ing$/, "")} ${path}: a parent of this path is a file, not a directory.`;
    case "EISDIR":
      return `${path} is a directory, not a file.`;
    case "ENOSPC":
      return `Cannot ${action.replace(/ing$/, "")} ${path}: no space left on the device.`;
    default:
      return `Failed ${action} ${path}: ${err instanceof Error ? err.message : String(err)}`;
  }
}

/** stat that returns null for a missing path and throws a model-worded Error for anything else. */
export function statOrNull(path: string): Stats | null {
  try {
    return statSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return null;
    throw new Error(describeFsError(err, path, "reading"));
  }
}

/** Decodes UTF-8 bytes: strips a BOM and normalizes CRLF to LF when CRLF is the file's dominant style. */
export function decodeText(buf: Uint8Array): DecodedText {
  let text = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength).toString("utf8");
  const bom = text.startsWith(BOM);
  if (bom) text = text.slice(1);
  let lfCount = 0;
  let crlfCount = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) {
    lfCount++;
    if (i > 0 && text.charCodeAt(i - 1) === 13) crlfCount++;
  }
  // Mixed files count as CRLF when most of their line breaks are; they are written back all CRLF.
  const crlf = crlfCount > 0 && crlfCount * 2 >= lfCount;
  if (crlf) text = text.replaceAll("\r\n", "\n");
  return { text, bom, crlf };
}

/** Turns LF text back into the file's style. Text the model already wrote with CRLF is left alone. */
export function encodeText(text: string, style: { bom: boolean; crlf: boolean }): string {
  let out = text;
  if (style.crlf) out = out.replaceAll("\r\n", "\n").replaceAll("\n", "\r\n");
  if (style.bom && !out.startsWith(BOM)) out = BOM + out;
  return out;
}

/** Creates parent directories and writes. Throws a model-worded Error on failure. */
export function writeText(path: string, data: string): void {
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, data);
  } catch (err) {
    throw new Error(describeFsError(err, path, "writing"));
  }
}

/** `N\t<line>` rows as Read shows them (contracts §7.2, 2.1.332 format). */
export function numberLines(lines: string[], firstLine: number): string {
  return lines.map((l, i) => `${firstLine + i}\t${l}`).join("\n");
}

/**
 * The checks every tool that changes a file makes first: an absolute path to a regular file (or to
 * nothing yet), read before and unchanged since (FileState). Resolves to the current text, null
 * when the file does not exist, or an instruction for the model. Throws model-worded fs errors.
 */
export function loadForChange(
  path: string,
  ctx: ToolContext,
  field = "file_path",
): { ok: true; original: DecodedText | null } | { ok: false; error: string } {
  const notAbs = requireAbsolute(path, field);
  if (notAbs) return { ok: false, error: notAbs };
  const st = statOrNull(path);
  if (!st) return { ok: true, original: null };
  if (st.isDirectory()) return { ok: false, error: `${path} is a directory, not a file. Give the path of a file inside it.` };
  if (!st.isFile()) return { ok: false, error: `${path} is not a regular file (a device, socket or pipe), so it cannot be changed.` };
  // Held whole in memory, so bounded (issue 20.5); checked before read-first, as Claude Code does.
  const max = editMaxBytes(ctx.env);
  if (st.size > max) return { ok: false, error: tooLargeMessage(path, { ok: false, size: st.size, zeroSized: false }, max) };
  const refusal = ctx.fileState.checkWritable(path);
  if (refusal) return { ok: false, error: refusal };
  let read;
  try {
    read = readCapped(path, max);
  } catch (err) {
    throw new Error(describeFsError(err, path, "reading"));
  }
  if (!read.ok) return { ok: false, error: tooLargeMessage(path, read, max) };
  return { ok: true, original: decodeText(read.bytes) };
}

/** Runs ctx.beforeFileChange (checkpoints) for a path about to change. */
export async function announceChange(ctx: ToolContext, absPath: string): Promise<void> {
  if (ctx.beforeFileChange) await ctx.beforeFileChange(absPath);
}
