import { fsp } from "../../../util/fs-promises.ts";

const STAT_CONCURRENCY = 64;

/**
 * Modification times of regular files, statted in parallel (following symlinks). Never rejects:
 * paths that vanished or are not regular files are left out of the map.
 */
export async function mtimesOf(files: string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  let i = 0;
  const worker = async () => {
    while (i < files.length) {
      const f = files[i++]!;
      try {
        const s = await fsp().stat(f);
        if (s.isFile()) out.set(f, s.mtimeMs);
      } catch {}
    }
  };
  await Promise.all(Array.from({ length: Math.min(STAT_CONCURRENCY, files.length) }, worker));
  return out;
}

/** Newest first, ties by path in code-unit order: the one file order Glob and both Grep engines share. */
export function byMtimeDesc(times: Map<string, number>): (a: string, b: string) => number {
  return (a, b) => (times.get(b) ?? 0) - (times.get(a) ?? 0) || (a < b ? -1 : a > b ? 1 : 0);
}
