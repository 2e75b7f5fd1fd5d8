import { closeSync, openSync, readSync } from "node:fs";

/**
 * Streams a text file once, keeping only the requested line range, so reading the last lines of a
 * 50 MB file neither loads it whole nor takes seconds. Throws on I/O errors (the caller words them).
 */

export const MAX_LINE_CHARS = 2000;
const CHUNK = 1 << 20;
/** Bytes kept per line: enough for MAX_LINE_CHARS characters of 4-byte UTF-8, plus one to notice the cut. */
const MAX_LINE_BYTES = MAX_LINE_CHARS * 4 + 4;

export type LineRange = {
  /** Lines in [start, start+limit), without line terminators or the BOM. */
  lines: string[];
  /** How many of those lines were cut at MAX_LINE_CHARS. */
  longLines: number;
  totalLines: number;
};

function finishLine(parts: Buffer[], first: boolean): { text: string; cut: boolean } {
  let text = Buffer.concat(parts).toString("utf8");
  if (first && text.startsWith("\uFEFF")) text = text.slice(1);
  if (text.endsWith("\r")) text = text.slice(0, -1);
  if (text.length <= MAX_LINE_CHARS) return { text, cut: false };
  return { text: `${text.slice(0, MAX_LINE_CHARS)}… [line cut at ${MAX_LINE_CHARS} characters]`, cut: true };
}

/** `start` is a 0-based line index; at most `maxBytes` of the file are read (what follows is not seen). */
export function readLineRange(path: string, start: number, limit: number, maxBytes = Number.POSITIVE_INFINITY): LineRange {
  const fd = openSync(path, "r");
  try {
    const buf = Buffer.allocUnsafe(CHUNK);
    const out: string[] = [];
    let longLines = 0;
    let line = 0;
    let parts: Buffer[] = [];
    let kept = 0;
    let sawBytes = false;
    let lastByteWasNewline = false;
    const end = start + limit;
    let left = maxBytes;
    for (;;) {
      const n = left > 0 ? readSync(fd, buf, 0, Math.min(CHUNK, left), null) : 0;
      if (n === 0) break;
      left -= n;
      sawBytes = true;
      let pos = 0;
      while (pos < n) {
        const nl = buf.indexOf(10, pos);
        const stop = nl === -1 || nl >= n ? n : nl;
        if (line >= start && line < end && kept < MAX_LINE_BYTES) {
          const take = Math.min(stop - pos, MAX_LINE_BYTES - kept);
          // Copy: buf is reused for the next chunk.
          parts.push(Buffer.from(buf.subarray(pos, pos + take)));
          kept += take;
        }
        if (stop === n) {
          lastByteWasNewline = false;
          break;
        }
        if (line >= start && line < end) {
          const f = finishLine(parts, line === 0);
          out.push(f.text);
          if (f.cut) longLines++;
        }
        parts = [];
        kept = 0;
        line++;
        pos = stop + 1;
        lastByteWasNewline = pos === n;
      }
    }
    let totalLines = line;
    if (sawBytes && !lastByteWasNewline) {
      // The last line has no terminator.
      if (line >= start && line < end) {
        const f = finishLine(parts, line === 0);
        out.push(f.text);
        if (f.cut) longLines++;
      }
      totalLines = line + 1;
    }
    return { lines: out, longLines, totalLines };
  } finally {
    closeSync(fd);
  }
}

/** True when the first `bytes` bytes hold a NUL byte, which text files never contain. Throws on I/O errors. */
export function looksBinary(path: string, bytes = 8192): boolean {
  const fd = openSync(path, "r");
  try {
    const buf = Buffer.alloc(bytes);
    const n = readSync(fd, buf, 0, buf.length, 0);
    return buf.subarray(0, n).includes(0);
  } finally {
    closeSync(fd);
  }
}
