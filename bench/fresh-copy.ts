/**
 * Copies of the binaries, made when a scenario starts (bench/ab.ts: every scenario; bench/run.ts: `--version`), so
 * every program measured is in the same page-cache state: the state right after a `cp` install (or a build, which
 * writes the file the same way: build-elf.ts).
 *
 * Why: a start of a few milliseconds is mostly page faults on the binary's code, and what a fault costs depends on how
 * the file's pages sit in the page cache (Linux 6.18 on this machine). A file just written maps more per fault; the same
 * file an hour later, its pages reclaimed and read back, costs more faults and less RSS. Measured with 21–31 alternating
 * runs: an empty compiled Bun program 6.8–7.7 ms of CPU and 24.2 MiB fresh against 9.9–11.7 ms and 20.8 MiB old;
 * Claude Code 2.1.332's `--version` 20.9 ms and 26.6 MiB from a fresh copy against 25.6 ms and 23.3 MiB from
 * node_modules. yoke's binary is usually just built, Claude Code's installed long ago: without the copies the ratio
 * favoured yoke by ~20% and Claude Code looked 3 MiB leaner than it is.
 */
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";

/** Fresh copies of `bins` (same order, names kept) in one new folder, which the caller removes. */
export function freshCopies(bins: string[]): { dir: string; copies: string[] } {
  const dir = mkdtempSync(join(tmpdir(), "yoke-bench-bin-"));
  try {
    const copies = bins.map((bin, i) => {
      // A folder per binary: two binaries may share a name (dist/yoke of two worktrees).
      const to = join(dir, String(i), basename(bin));
      mkdirSync(join(dir, String(i)));
      copyFileSync(bin, to);
      chmodSync(to, 0o755);
      return to;
    });
    return { dir, copies };
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}
