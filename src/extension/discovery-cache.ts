import { closeSync, fstatSync, mkdirSync, openSync, readFileSync, renameSync, type Stats, statSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { ExtensionProblem, SlashCommand } from "./types.ts";

/**
 * What discovery made of skill and command files, kept between runs (issue 14 point 7: 150 files read and parsed
 * cost the first request about 10 ms of main-thread CPU; a stat each and one small JSON file cost a fraction of
 * that). Two layers, two files:
 *  - the whole result of a discovery under the folders it walked (its clashes resolved, its problems found), used as
 *    it is when the very same files are there (same listing, same order, none new or gone) and each one's stat is
 *    what it was: the usual start, which then reads nothing but `path`;
 *  - each file's own entry (`<path minus .json>.rows.json`, read only when the whole result does not hold): after
 *    an edit only the edited file is read and parsed again.
 * An entry counts only while the file's mtime, ctime, size and inode are what they were, and only when the file was
 * already two seconds old (mtime and ctime) when it was read (git's "racily clean" rule: a write within the same
 * clock tick as the read could leave the times unchanged); a whole result only when all of its entries do. Anything
 * else reads the file again. Never throws.
 */
export type DiscoveryCache = {
  /** The entry made from this file under this key, if the file is unchanged since; else undefined. */
  lookup(file: string, key: string, st: Stats): Entry | undefined;
  store(file: string, key: string, st: Stats, entry: Entry): void;
  /**
   * The whole result remembered under `key` (the walked folders), if `files` are the very files it was made from,
   * each with the same stat (undefined: not there, as it was not then); else undefined.
   */
  snapshot(key: string, files: readonly string[], stats: ReadonlyArray<Stats | undefined | null>): Whole | undefined;
  /** Remembers a whole result made from these files; only when every one of its entries is settled. */
  remember(key: string, files: readonly string[], stats: ReadonlyArray<Stats | undefined | null>, whole: Whole): void;
  /** Whether the cache holds nothing from a run before (none yet, unreadable, another build's): a first start. */
  isEmpty(): boolean;
  /**
   * A first start's discovery, remembered without a stat before each read (there is nothing to compare a stat with):
   * `files` are read from now on, and `done` gives what each made (null: not there) and the whole result. save() takes
   * the stats, after the first request has left. A file is kept only when that later stat shows no change since a
   * moment two seconds before the reads began (mtime and ctime), so what was read is what the stat describes.
   * `keyOf(i)`: the key of files[i]'s entry, asked for at save().
   */
  firstStart(key: string, files: readonly string[], keyOf: (i: number) => string): (entries: ReadonlyArray<Entry | null>, whole: Whole) => void;
  /** Writes the files when something changed: the entries and results used or made in this run, nothing else. */
  save(): void;
};

type Entry = SlashCommand | ExtensionProblem;
/** A discovery's result, as discoverExtensions returns it. */
export type Whole = { commands: SlashCommand[]; problems: ExtensionProblem[] };
type Row = { k: string; m: number; c: number; s: number; i: number; at: number; r: Entry };
/** A whole result (d): the files looked at (f, joined by newlines) and their stats, four numbers each (mtime, ctime, size, inode; -1 when not there). */
type Snap = { f: string; n: number[]; d: Whole };
type SnapDoc = { v: string; snaps: Record<string, Snap> };
type RowDoc = { v: string; rows: Record<string, Row> };

/** How old a file must have been when it was read for its entry to be trusted (coarse file-system clocks). */
const SETTLED_MS = 2000;
const settled = (r: Row) => Math.max(r.m, r.c) <= r.at - SETTLED_MS;

/**
 * A document of this build, or null (none yet, unreadable, another build's, or not the user's own: owned by another
 * user or writable by others, since what it says about a file's text is believed while the file is unchanged).
 */
function readDoc<T extends { v: string }>(path: string, version: string, field: keyof T): T | null {
  let fd: number | undefined;
  try {
    fd = openSync(path, "r");
    const st = fstatSync(fd);
    if ((st.mode & 0o022) !== 0 || (process.getuid && st.uid !== process.getuid())) return null;
    const doc = JSON.parse(readFileSync(fd, "utf8")) as T;
    return doc && doc.v === version && doc[field] && typeof doc[field] === "object" ? doc : null;
  } catch {
    return null;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** A stat that says "not there" (ENOENT, ENOTDIR) as undefined; another failure (EACCES) as null. */
export function statOf(file: string): Stats | undefined | null {
  try {
    return statSync(file, { throwIfNoEntry: false });
  } catch (e) {
    return ["ENOENT", "ENOTDIR"].includes((e as NodeJS.ErrnoException).code ?? "") ? undefined : null;
  }
}

function writeDoc(path: string, doc: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(doc), { mode: 0o600 });
  renameSync(tmp, path);
}

/** `now`: the clock that dates each read (tests move it on instead of waiting). */
export function openDiscoveryCache(path: string, version: string, now: () => number = Date.now): DiscoveryCache {
  const rowsPath = `${path.replace(/\.json$/, "")}.rows.json`;
  let snaps: Record<string, Snap> = readDoc<SnapDoc>(path, version, "snaps")?.snaps ?? {};
  // Read on the first lookup: a start whose whole results hold never needs them.
  let rows: Record<string, Row> | undefined;
  const allRows = () => (rows ??= readDoc<RowDoc>(rowsPath, version, "rows")?.rows ?? {});
  const used: Record<string, Row> = {};
  const usedSnaps: Record<string, Snap> = {};
  let changed = false;
  /** First starts' reads (one per discovery: the local folders, the plugins'), stat'ed at save(). */
  const later: Array<() => void> = [];
  // Entries still true this run (looked up, or held by a whole result that held): fewer than the file has, it is rewritten.
  let held = 0;
  const cache: DiscoveryCache = {
    lookup(file, key, st) {
      const r = allRows()[file];
      if (!r || r.k !== key || r.m !== st.mtimeMs || r.c !== st.ctimeMs || r.s !== st.size || r.i !== st.ino || !settled(r)) return undefined;
      if (!used[file]) held++;
      used[file] = r;
      return r.r;
    },
    store(file, key, st, entry) {
      used[file] = { k: key, m: st.mtimeMs, c: st.ctimeMs, s: st.size, i: st.ino, at: now(), r: entry };
      changed = true;
    },
    snapshot(key, files, stats) {
      const s = snaps[key];
      if (!s || typeof s.f !== "string" || !Array.isArray(s.n) || s.n.length !== files.length * 4 || s.f !== files.join("\n")) return undefined;
      const n = s.n;
      for (let j = 0, o = 0; j < stats.length; j++, o += 4) {
        const st = stats[j];
        // A stat that failed otherwise than "not there" (null) never matches: that file is read, and says why.
        if (st === null) return undefined;
        if (st === undefined ? n[o] !== -1 : n[o] !== st.mtimeMs || n[o + 1] !== st.ctimeMs || n[o + 2] !== st.size || n[o + 3] !== st.ino) return undefined;
      }
      for (let o = 0; o < n.length; o += 4) if (n[o] !== -1) held++;
      usedSnaps[key] = s;
      return s.d;
    },
    remember(key, files, stats, whole) {
      const n: number[] = [];
      for (let j = 0; j < files.length; j++) {
        const st = stats[j];
        if (st === null) return;
        if (st === undefined) n.push(-1, -1, -1, -1);
        else {
          const r = used[files[j]!];
          // Every file's entry must be one the next run may trust.
          if (!r || !settled(r)) return;
          n.push(st.mtimeMs, st.ctimeMs, st.size, st.ino);
        }
      }
      usedSnaps[key] = { f: files.join("\n"), n, d: whole };
      changed = true;
    },
    isEmpty() {
      return Object.keys(snaps).length === 0 && Object.keys(allRows()).length === 0;
    },
    firstStart(key, files, keyOf) {
      const at = now();
      return (entries, whole) => {
        later.push(() => {
          const stats = files.map(statOf);
          let complete = true;
          for (let j = 0; j < files.length; j++) {
            const st = stats[j];
            const e = entries[j];
            // Gone or come since the read, or not stat-able: no whole result from this run.
            if (st === null || (st === undefined) !== (e === null || e === undefined)) complete = false;
            else if (st && e) used[files[j]!] = { k: keyOf(j), m: st.mtimeMs, c: st.ctimeMs, s: st.size, i: st.ino, at, r: e };
          }
          changed = true;
          if (complete) cache.remember(key, files, stats, whole);
        });
      };
    },
    save() {
      for (const f of later.splice(0)) f();
      const staleSnaps = Object.keys(usedSnaps).length !== Object.keys(snaps).length;
      const staleRows = changed || (rows !== undefined && held !== Object.keys(rows).length);
      if (!staleRows && !staleSnaps) return;
      try {
        if (staleRows) {
          // The entries of files a whole result held: still true (their stats were checked), kept for the next edit.
          const all = allRows();
          for (const s of Object.values(usedSnaps))
            for (const f of s.f.split("\n")) if (!used[f] && all[f]) used[f] = all[f];
          writeDoc(rowsPath, { v: version, rows: used } satisfies RowDoc);
          rows = { ...used };
          held = Object.keys(rows).length;
        }
        writeDoc(path, { v: version, snaps: usedSnaps } satisfies SnapDoc);
        snaps = { ...usedSnaps };
        changed = false;
      } catch {
        // A read-only state folder: the next run reads the files again.
      }
    },
  };
  return cache;
}
