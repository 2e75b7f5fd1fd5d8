import { readdirSync } from "node:fs";
import { basename, dirname, extname, join } from "node:path";
import { z } from "zod";
import { defineTool, interrupted } from "../define-tool.ts";
import { INPUT_SCHEMAS } from "../input-schemas.ts";
import type { ToolContext, ToolResult } from "../types.ts";
import { editMaxBytes, formatFileSize, readCapped, ZERO_SIZE_MAX_BYTES } from "./file-size.ts";
import { describeFsError, failure, numberLines, requireAbsolute, statOrNull } from "./file-text.ts";
import { parseNotebook, renderNotebook } from "./notebook.ts";
import description from "./read.md" with { type: "text" };
import { looksBinary, MAX_LINE_CHARS, readLineRange } from "./read-text.ts";

/** Lines shown when no limit is given (contracts §7.2). */
export const DEFAULT_READ_LINES = 2000;
/** Without offset/limit, larger files are refused so one read cannot flood the context. */
export const MAX_WHOLE_FILE_BYTES = 256 * 1024;
/** Base64 size the Messages API accepts for one image. */
export const MAX_IMAGE_BASE64 = 5 * 1024 * 1024;
/** Characters of numbered text one read may return. */
export const MAX_READ_OUTPUT_CHARS = 100_000;

const IMAGE_TYPES: Record<string, string> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
};

const BINARY_EXTENSIONS = new Set(
  (
    ".exe .dll .so .dylib .o .a .lib .obj .class .jar .war .pyc .pyo .wasm .bin .dat .db .sqlite .sqlite3 " +
    ".zip .gz .tgz .bz2 .xz .zst .7z .rar .tar .iso .dmg .deb .rpm .apk " +
    ".mp3 .mp4 .m4a .wav .flac .ogg .mov .avi .mkv .webm .bmp .ico .tiff .tif .psd .heic " +
    ".woff .woff2 .ttf .otf .eot .pdf .doc .docx .xls .xlsx .ppt .pptx .node"
  ).split(" "),
);

const input = () => z.strictObject({
  file_path: z.string().describe("Absolute path of the file to read"),
  offset: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe("Line number to start reading at (1-based). Use it with limit for files too large to read at once"),
  limit: z.number().int().positive().optional().describe("How many lines to read"),
});

/** Recognizes the image format from its first bytes, so a mislabelled file still gets the right media type. */
function sniffImage(buf: Buffer): string | null {
  if (buf.length >= 8 && buf.readUInt32BE(0) === 0x89504e47) return "image/png";
  if (buf.length >= 3 && buf[0] === 0xff && buf[1] === 0xd8 && buf[2] === 0xff) return "image/jpeg";
  if (buf.length >= 6 && buf.subarray(0, 4).toString("latin1") === "GIF8") return "image/gif";
  if (buf.length >= 12 && buf.subarray(0, 4).toString("latin1") === "RIFF" && buf.subarray(8, 12).toString("latin1") === "WEBP")
    return "image/webp";
  return null;
}

/** A sibling whose name differs only in case or extension, to suggest when a path is missing. */
function similarName(absPath: string): string | null {
  let entries: string[];
  try {
    entries = readdirSync(dirname(absPath));
  } catch {
    return null;
  }
  const name = basename(absPath);
  const stem = basename(name, extname(name)).toLowerCase();
  const hit =
    entries.find((e) => e.toLowerCase() === name.toLowerCase()) ??
    entries.find((e) => basename(e, extname(e)).toLowerCase() === stem);
  return hit ? join(dirname(absPath), hit) : null;
}

/** Reads a file Read must hold whole (an image, a notebook), within `max` bytes; null with the refusal otherwise. */
function readWhole(path: string, max: number, what: string): { bytes: Buffer } | { refusal: ToolResult } {
  let r;
  try {
    r = readCapped(path, max);
  } catch (err) {
    throw new Error(describeFsError(err, path, "reading"));
  }
  if (r.ok) return { bytes: r.bytes };
  const size = r.zeroSized ? `reports a size of 0 bytes and holds more than ${formatFileSize(max)}` : `is ${formatFileSize(r.size)} (${r.size} bytes)`;
  return { refusal: failure(`File is too large to read as ${what}: ${path} ${size}; Read holds at most ${formatFileSize(max)} of it. Look at it through Bash instead.`) };
}

function readImage(path: string, fallbackType: string, ctx: ToolContext): ToolResult {
  // Base64 grows 4/3; one byte past what can fit is enough to tell the model it is too large (issue 20.5).
  const whole = readWhole(path, Math.floor((MAX_IMAGE_BASE64 * 3) / 4) + 3, "an image");
  if ("refusal" in whole) return whole.refusal;
  const buf = whole.bytes;
  const base64 = buf.toString("base64");
  if (base64.length > MAX_IMAGE_BASE64)
    return failure(
      `${path} is too large to view as an image (${buf.length} bytes; at most ${MAX_IMAGE_BASE64} bytes once base64-encoded). Shrink it first, e.g. with ImageMagick via Bash, and read the smaller copy.`,
    );
  const type = sniffImage(buf) ?? fallbackType;
  ctx.fileState.recordRead(path);
  return {
    content: [{ type: "image", source: { type: "base64", media_type: type, data: base64 } }],
    details: { type: "image", file: { base64, type, originalSize: buf.length } },
  };
}

function readNotebook(path: string, ctx: ToolContext): ToolResult {
  const whole = readWhole(path, editMaxBytes(ctx.env), "a notebook");
  if ("refusal" in whole) return whole.refusal;
  const nb = parseNotebook(whole.bytes.toString("utf8"), path);
  const rendered = renderNotebook(nb);
  if (rendered.length > MAX_READ_OUTPUT_CHARS)
    return failure(
      `${path} renders to ${rendered.length} characters, more than the ${MAX_READ_OUTPUT_CHARS} one read may return. Look at it in parts with Bash, e.g. \`jq '.cells[0:10]' ${path}\`.`,
    );
  ctx.fileState.recordRead(path);
  return {
    content: rendered || "(The notebook has no cells.)",
    details: { type: "notebook", file: { filePath: path, cells: nb.cells } },
  };
}

export const readTool = defineTool({
  name: "Read",
  description,
  input,
  jsonSchema: INPUT_SCHEMAS.Read,
  readOnly: true,
  // Read enforces its own size limits with instructions; the generic middle cut would hide line numbers.
  maxResultChars: MAX_READ_OUTPUT_CHARS * 2,
  execute(args, ctx): ToolResult {
    const path = args.file_path;
    const notAbs = requireAbsolute(path);
    if (notAbs) return failure(notAbs);
    const st = statOrNull(path);
    if (!st) {
      const similar = similarName(path);
      return failure(
        `File does not exist. Note: your current working directory is ${ctx.cwd}.${similar ? ` Did you mean ${similar}?` : ""}`,
      );
    }
    if (st.isDirectory())
      return failure(`${path} is a directory, not a file. List its contents with Bash (ls) or the Glob tool instead.`);
    if (!st.isFile())
      return failure(`${path} is not a regular file (a device, socket or pipe), so Read cannot show it. Use Bash if you really need it.`);
    const ext = extname(path).toLowerCase();
    const imageType = IMAGE_TYPES[ext];
    if (imageType) return readImage(path, imageType, ctx);
    if (ext === ".ipynb") return readNotebook(path, ctx);
    if (BINARY_EXTENSIONS.has(ext))
      return failure(`${path} is a binary file (${ext}), which Read cannot show as text. Inspect it with Bash tools suited to the format instead.`);
    const ranged = args.offset !== undefined || args.limit !== undefined;
    if (!ranged && st.size > MAX_WHOLE_FILE_BYTES)
      return failure(
        `${path} is ${Math.round(st.size / 1024)} KB, more than the ${MAX_WHOLE_FILE_BYTES / 1024} KB Read returns at once. Read a part with offset and limit (e.g. offset=1, limit=500), or search it with Grep.`,
      );
    let range;
    try {
      if (looksBinary(path))
        return failure(`${path} looks like a binary file (it contains NUL bytes), which Read cannot show as text. Inspect it with Bash tools suited to the format instead.`);
      const startLine = Math.max(1, args.offset ?? 1);
      // The size it has now is what is read: a file growing while it is read (a log being written) ends (issue 20.5).
      range = readLineRange(path, startLine - 1, args.limit ?? DEFAULT_READ_LINES, st.size || ZERO_SIZE_MAX_BYTES);
    } catch (err) {
      throw new Error(describeFsError(err, path, "reading"));
    }
    if (ctx.signal.aborted) return interrupted("Read");
    const startLine = Math.max(1, args.offset ?? 1);
    const { lines, totalLines } = range;
    const details = {
      type: "text",
      file: { filePath: path, content: lines.join("\n"), numLines: lines.length, startLine, totalLines },
    };
    if (totalLines === 0) {
      ctx.fileState.recordRead(path);
      return { content: `(${path} exists but is empty.)`, details };
    }
    if (lines.length === 0)
      return failure(
        `${path} has ${totalLines} lines, so offset ${args.offset} is past its end. Use an offset between 1 and ${totalLines}.`,
      );
    let content = numberLines(lines, startLine);
    if (content.length > MAX_READ_OUTPUT_CHARS) {
      const fit = Math.max(1, Math.floor((lines.length * MAX_READ_OUTPUT_CHARS) / content.length));
      return failure(
        `Lines ${startLine}-${startLine + lines.length - 1} of ${path} come to ${content.length} characters, more than the ${MAX_READ_OUTPUT_CHARS} one read may return. Read fewer lines at a time, e.g. offset=${startLine}, limit=${fit}, or search with Grep.`,
      );
    }
    const lastShown = startLine + lines.length - 1;
    if (lastShown < totalLines)
      content += `\n\n(Showing lines ${startLine}-${lastShown} of ${totalLines}. To read on, call Read with offset=${lastShown + 1}.)`;
    if (range.longLines > 0)
      content += `\n\n(${range.longLines} line(s) longer than ${MAX_LINE_CHARS} characters were cut; use Grep or Bash to see them whole.)`;
    ctx.fileState.recordRead(path);
    return { content, details };
  },
});
