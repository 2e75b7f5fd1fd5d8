import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import type { SessionStore } from "./types.ts";

/** Append-only JSONL: one writeSync per line, so a killed process loses at most the line being written. */
export function createJsonlStore(path: string, sessionId: string): SessionStore & { close(): void } {
  let fd: number | null = null;
  let failed = false;
  return {
    sessionId,
    path,
    append(entry) {
      if (failed) return;
      try {
        if (fd === null) {
          mkdirSync(dirname(path), { recursive: true });
          fd = openSync(path, "a");
        }
        writeSync(fd, `${JSON.stringify(entry)}\n`);
      } catch (err) {
        failed = true;
        process.stderr.write(`yoke: cannot write the transcript ${path}: ${(err as Error).message}\n`);
      }
    },
    close() {
      if (fd !== null) closeSync(fd);
      fd = null;
    },
  };
}
