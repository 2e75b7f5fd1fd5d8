import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { formatFileSize } from "../../util/format-size.ts";

export { formatFileSize };

/**
 * How much of a file the tools that hold one whole (Edit, MultiEdit, Write, NotebookEdit, Read of an image or
 * a notebook) may take into memory (issue 20.5).
 *
 * Claude Code 2.1.332 (observed in its binary) refuses to edit a file whose size is over 1 GiB, "File is too
 * large to edit (…). Maximum editable file size is 1GB.", and reads a file that reports a size of 0 (a /proc
 * file) to at most 10 MiB. yoke keeps both rules and the wording, but its default limit is 256 MiB: an edit
 * holds the file about five times over (bytes, text, new text, the patch, the transcript's originalFile: a
 * 64 MiB edit peaked at 296 MiB), so a 1 GiB edit would take ~5 GiB. `YOKE_EDIT_MAX_BYTES` moves it, up to Claude Code's 1 GiB.
 */
export const CLAUDE_CODE_EDIT_MAX_BYTES = 1024 * 1024 * 1024;
export const DEFAULT_EDIT_MAX_BYTES = 256 * 1024 * 1024;
/** A file whose size says 0 (procfs, some device-backed files) is read to at most this much. */
export const ZERO_SIZE_MAX_BYTES = 10 * 1024 * 1024;

/** The edit limit from YOKE_EDIT_MAX_BYTES, within (0, 1 GiB]; the default when unset or not a positive number. Pure. */
export function editMaxBytes(env: Record<string, string | undefined>): number {
  const n = Number(env.YOKE_EDIT_MAX_BYTES);
  return Number.isFinite(n) && n > 0 ? Math.min(Math.floor(n), CLAUDE_CODE_EDIT_MAX_BYTES) : DEFAULT_EDIT_MAX_BYTES;
}

export type CappedRead = { ok: true; bytes: Buffer } | { ok: false; size: number; zeroSized: boolean };

/**
 * Reads a regular file whole if it holds at most `max` bytes. The size at open is what is read, so a file
 * growing while it is read stops there; a file that reports size 0 is read to ZERO_SIZE_MAX_BYTES (or `max`,
 * if smaller). Throws fs errors as they are (the caller words them).
 */
export function readCapped(path: string, max: number): CappedRead {
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    if (size > max) return { ok: false, size, zeroSized: false };
    const want = size > 0 ? size : Math.min(max, ZERO_SIZE_MAX_BYTES);
    // One byte more than allowed tells a size-0 file that holds more apart from one that fits exactly.
    const buf = Buffer.allocUnsafe(size > 0 ? size : want + 1);
    let got = 0;
    while (got < buf.length) {
      const n = readSync(fd, buf, got, buf.length - got, null);
      if (n === 0) break;
      got += n;
    }
    if (size === 0 && got > want) return { ok: false, size: 0, zeroSized: true };
    return { ok: true, bytes: buf.subarray(0, got) };
  } finally {
    closeSync(fd);
  }
}

/** The refusal for a file over the limit, naming the file, its size and the limit. */
export function tooLargeMessage(path: string, r: Extract<CappedRead, { ok: false }>, max: number, verb = "edit"): string {
  const way = `Change it with a shell command through Bash (sed, awk, a script) instead.`;
  if (r.zeroSized)
    return `File is too large to ${verb}: ${path} reports a size of 0 bytes and holds more than ${formatFileSize(Math.min(max, ZERO_SIZE_MAX_BYTES))}. ${way}`;
  return `File is too large to ${verb}: ${path} is ${formatFileSize(r.size)} (${r.size} bytes). Maximum editable file size is ${formatFileSize(max)} (YOKE_EDIT_MAX_BYTES). ${way}`;
}
