import { statSync } from "node:fs";

type Seen = { mtimeMs: number; size: number };

/**
 * Read-before-write and changed-on-disk detection, shared by every tool that changes files.
 * One per session. Never throws.
 */
export type FileState = {
  /** Called after a successful read, whole or in part (or a write by us, which is as good as a read). */
  recordRead(absPath: string): void;
  /** null when the file may be changed; otherwise an instruction for the model. */
  checkWritable(absPath: string): string | null;
  hasRead(absPath: string): boolean;
  forget(absPath: string): void;
};

function stat(absPath: string): { mtimeMs: number; size: number } | null {
  try {
    const s = statSync(absPath);
    return { mtimeMs: s.mtimeMs, size: s.size };
  } catch {
    return null;
  }
}

export function createFileState(): FileState {
  const seen = new Map<string, Seen>();
  return {
    recordRead(absPath) {
      const s = stat(absPath);
      if (s) seen.set(absPath, s);
    },
    hasRead: (absPath) => seen.has(absPath),
    forget: (absPath) => void seen.delete(absPath),
    checkWritable(absPath) {
      const now = stat(absPath);
      if (!now) return null; // a new file needs no prior read
      const before = seen.get(absPath);
      if (!before)
        return `File has not been read yet. Read ${absPath} with the Read tool first, then try again.`;
      if (now.mtimeMs !== before.mtimeMs || now.size !== before.size)
        return `File has been modified since it was read, by the user or a linter. Read ${absPath} again before changing it.`;
      return null;
    },
  };
}
