import { mkdirSync, readFileSync, renameSync, type Stats, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { ExtensionProblem, SlashCommand } from "./types.ts";

/**
 * What discovery made of each skill and command file, kept between runs (issue 14 point 7: 150 files read and
 * parsed cost the first request about 10 ms of main-thread CPU; a stat each and one JSON file cost a fraction of
 * that). An entry is used only while the file's mtime, ctime, size and inode are what they were, and only when the
 * file was already two seconds old when it was read (git's "racily clean" rule: a write within the same clock tick
 * as the read could leave the times unchanged). Anything else reads the file again. Never throws.
 */
export type DiscoveryCache = {
  /** The entry made from this file under this key, if the file is unchanged since; else undefined. */
  lookup(file: string, key: string, st: Stats): SlashCommand | ExtensionProblem | undefined;
  store(file: string, key: string, st: Stats, entry: SlashCommand | ExtensionProblem): void;
  /** Writes the file when something changed: the entries looked up or stored in this run, nothing else. */
  save(): void;
};

type Row = { k: string; m: number; c: number; s: number; i: number; at: number; r: SlashCommand | ExtensionProblem };
type Doc = { v: string; rows: Record<string, Row> };

/** How old a file must have been when it was read for its entry to be trusted (coarse file-system clocks). */
const SETTLED_MS = 2000;

export function openDiscoveryCache(path: string, version: string): DiscoveryCache {
  let rows: Record<string, Row> = {};
  try {
    const doc = JSON.parse(readFileSync(path, "utf8")) as Doc;
    if (doc && doc.v === version && doc.rows && typeof doc.rows === "object") rows = doc.rows;
  } catch {
    // No cache yet, or one that cannot be read: every file is read.
  }
  const used: Record<string, Row> = {};
  let changed = false;
  let count = 0;
  return {
    lookup(file, key, st) {
      const r = rows[file];
      if (!r || r.k !== key || r.m !== st.mtimeMs || r.c !== st.ctimeMs || r.s !== st.size || r.i !== st.ino || r.m > r.at - SETTLED_MS) return undefined;
      used[file] = r;
      count++;
      return r.r;
    },
    store(file, key, st, entry) {
      used[file] = { k: key, m: st.mtimeMs, c: st.ctimeMs, s: st.size, i: st.ino, at: Date.now(), r: entry };
      count++;
      changed = true;
    },
    save() {
      if (!changed && count === Object.keys(rows).length) return;
      try {
        mkdirSync(dirname(path), { recursive: true });
        const tmp = `${path}.${process.pid}.tmp`;
        writeFileSync(tmp, JSON.stringify({ v: version, rows: used } satisfies Doc));
        renameSync(tmp, path);
        rows = used;
        changed = false;
      } catch {
        // A read-only state folder: the next run reads the files again.
      }
    },
  };
}
