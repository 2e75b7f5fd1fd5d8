import { realpathSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";

// tinyglobby is required on first use, not imported: imported at the top, it put 17 MiB of peak RSS and about 80 ms
// before the first request on every `yoke -p` of the compiled binary (measured: 88 vs 71 MiB, medians of 5; its fdir
// evaluates createRequire(import.meta.url) at load). Required when a folder exists, it costs about 1 MiB.

export type FindFilesOptions = {
  /** Globs (relative to the folder) to leave out, e.g. `**\/MEMORY.md`. */
  ignore?: string[];
  /** At most this many files, after sorting. */
  max?: number;
};

/**
 * Discovery of a small set of files by name (agents, memory files, plugin parts) on tinyglobby: the files under
 * `dir` matching `patterns`, absolute, sorted, dot folders included. Symbolic links are followed; a link that
 * leads back up the tree yields each file once (by its folder's real path, under its shortest name). A missing or unreadable folder
 * gives []. Glob and Grep do not use this: they keep their gitignore-aware walker. Never throws.
 */
export function findFiles(dir: string, patterns: string | string[], o: FindFilesOptions = {}): string[] {
  let found: string[];
  try {
    // Most callers probe folders that do not exist (.claude/agents in every parent): a stat is 40x cheaper than a glob.
    if (!statSync(dir).isDirectory()) return [];
    const { globSync } = require("tinyglobby") as typeof import("tinyglobby");
    found = globSync(patterns, { cwd: dir, absolute: true, onlyFiles: true, dot: true, expandDirectories: false, ignore: o.ignore });
  } catch {
    return [];
  }
  // Shortest path first, so a file reached both directly and through a link back up keeps its direct name.
  // Folders are resolved, not files: one realpath per folder instead of one per file (bench/discovery.ts).
  found.sort((a, b) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0));
  const realDir = new Map<string, string>();
  const byReal = new Map<string, string>();
  for (const p of found) {
    const d = dirname(p);
    let real = realDir.get(d);
    if (real === undefined) {
      try {
        real = realpathSync(d);
      } catch {
        real = d; // gone since the walk: keep the name, the reader reports it
      }
      realDir.set(d, real);
    }
    const key = join(real, basename(p));
    if (!byReal.has(key)) byReal.set(key, p);
  }
  const out = [...byReal.values()].sort();
  if (o.max !== undefined) out.length = Math.min(out.length, o.max);
  return out;
}
