/**
 * What the sandbox library reads from the disk when it builds a command's bubblewrap line, kept so that
 * the next command can ask cheaply whether any of it changed: when nothing did, the line would come out
 * the same, so it is reused (the build spawns ripgrep and walks globs, 20 ms a call).
 *
 * It over-approximates: names and types of every entry the library's scans can see (the ripgrep scan of
 * the working directory for protected names, the walks of deny globs), and every component of each path
 * the policy names (type, inode, mode, owner, link target). File contents are left out: the library reads
 * none that change what it mounts. A folder's listing is taken once; later a change shows in the folder's
 * inode change time, which every new, removed or renamed entry moves and no program can set back. A folder
 * changed within the clock's resolution of the snapshot (or one holding a kept sandbox's mount points) is
 * listed again instead. Never throws.
 */
import { lstatSync, readdirSync, readlinkSync, statSync } from "node:fs";
import { dirname, join } from "node:path";

export type FingerprintSpec = {
  /** Folders listed to `depth` levels without following links (the library's ripgrep scan). */
  scans: { root: string; depth: number; skip: string[] }[];
  /** Folders listed all the way down, following links to folders (the library's glob walks). */
  walks: string[];
  /** Paths whose every component is recorded (policy paths, mount targets). */
  paths: string[];
};

/** A folder as the snapshot saw it. `held`: it holds a kept sandbox's mount points, and is listed at every check. */
type Folder = { ino: number; ctime: number; listing: string; listAgain: boolean; held?: boolean };

export type DiskSnapshot = {
  folders: Map<string, Folder>;
  chains: string;
  paths: string[];
  /**
   * Mount points a kept sandbox holds (see holder.ts): absent for the comparison while they are still the
   * empty file or folder bubblewrap made, so that they do not read as a change.
   */
  ghosts: Set<string>;
};

/** A folder whose change time is this close to the snapshot may change again without moving it. */
const RACY_MS = 2000;

const typeOf = (s: { isDirectory(): boolean; isFile(): boolean; isSymbolicLink(): boolean }): string =>
  s.isSymbolicLink() ? "l" : s.isDirectory() ? "d" : s.isFile() ? "f" : "o";

const code = (e: unknown) => (e as NodeJS.ErrnoException)?.code ?? "E";

/** Where a link leads and what is there: a link repointed between two builds changes the record. */
function linkRecord(p: string): string {
  let target = "";
  let kind = "";
  try {
    target = readlinkSync(p);
  } catch (e) {
    target = `!${code(e)}`;
  }
  try {
    kind = typeOf(statSync(p));
  } catch (e) {
    kind = `!${code(e)}`;
  }
  return `${target}>${kind}`;
}

/** Still the empty file or folder (holding only other ghosts) bubblewrap made for a mount. */
function isGhost(p: string, ghosts: Set<string>): boolean {
  if (!ghosts.has(p)) return false;
  try {
    const s = lstatSync(p);
    if (s.isFile()) return s.size === 0;
    return s.isDirectory() && readdirSync(p).every((n) => isGhost(join(p, n), ghosts));
  } catch {
    return false;
  }
}

/** One folder's entries as a string, and the folders below it to go on with. */
function listing(dir: string, ghosts: Set<string>): { text: string; entries: { name: string; type: string }[] } {
  try {
    const entries = readdirSync(dir, { withFileTypes: true })
      .filter((e) => !ghosts.size || !isGhost(join(dir, e.name), ghosts))
      .map((e) => ({ name: e.name, type: typeOf(e) }));
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return { text: entries.map((e) => `${e.name}:${e.type === "l" ? `l:${linkRecord(join(dir, e.name))}` : e.type}`).join("\0"), entries };
  } catch (e) {
    return { text: `!${code(e)}`, entries: [] };
  }
}

function stamp(dir: string): { ino: number; ctime: number } | undefined {
  try {
    const s = lstatSync(dir);
    return { ino: s.ino, ctime: s.ctimeMs };
  } catch {
    return undefined;
  }
}

function walk(dir: string, out: Map<string, Folder>, depth: number, skip: Set<string>, follow: boolean, seen: Set<string>, since: number): void {
  // Another scan may have listed it already (to another depth): the record is shared, the descent is not.
  let entries: { name: string; type: string }[];
  const known = out.get(dir);
  if (known) entries = listing(dir, new Set()).entries;
  else {
    // Stamped before it is listed: an entry made in between moves the stamp, and shows as a change.
    const st = stamp(dir);
    const l = listing(dir, new Set());
    entries = l.entries;
    out.set(dir, { ino: st?.ino ?? -1, ctime: st?.ctime ?? -1, listing: l.text, listAgain: !st || st.ctime >= since - RACY_MS });
  }
  if (depth <= 0) return;
  for (const e of entries) {
    if (skip.has(e.name)) continue;
    const p = join(dir, e.name);
    if (e.type === "d") walk(p, out, depth - 1, skip, follow, seen, since);
    else if (e.type === "l" && follow) {
      try {
        const s = statSync(p);
        if (!s.isDirectory()) continue;
        const id = `${s.dev}:${s.ino}`;
        if (seen.has(id)) continue;
        seen.add(id);
        walk(p, out, depth - 1, skip, follow, seen, since);
      } catch {}
    }
  }
}

/** One path component's record; one starting with `!` says it is not there (and the chain ends). */
function component(cur: string, ghosts: Set<string>): string {
  if (ghosts.size && isGhost(cur, ghosts)) return "!ENOENT";
  try {
    const s = lstatSync(cur);
    const t = typeOf(s);
    return `${t}:${s.dev}:${s.ino}:${s.mode}:${s.uid}${t === "l" ? `:${linkRecord(cur)}` : ""}`;
  } catch (e) {
    return `!${code(e)}`;
  }
}

/**
 * Every component of `p` from the root down, as far as it exists. `seen`: the components already read for
 * the other paths of the same record (they share their folders), each looked at once.
 */
function chain(p: string, out: string[], ghosts: Set<string>, seen: Map<string, string>): void {
  const parts = p.split("/").filter(Boolean);
  let cur = "";
  for (const part of ["", ...parts]) {
    cur = !part ? "/" : cur === "/" ? `/${part}` : `${cur}/${part}`;
    let rec = seen.get(cur);
    if (rec === undefined) seen.set(cur, (rec = component(cur, ghosts)));
    out.push(`${cur}\0${rec}`);
    if (rec.startsWith("!")) return;
  }
}

const chains = (paths: string[], ghosts: Set<string>): string => {
  const out: string[] = [];
  const seen = new Map<string, string>();
  for (const p of paths) chain(p, out, ghosts, seen);
  return out.join("\n");
};

/** Reads what `spec` names. Take it before the library reads: a change made meanwhile then shows as one. */
export function snapshot(spec: FingerprintSpec): DiskSnapshot {
  const since = Date.now();
  const folders = new Map<string, Folder>();
  for (const s of spec.scans) walk(s.root, folders, s.depth, new Set(s.skip), false, new Set(), since);
  for (const w of new Set(spec.walks)) walk(w, folders, Number.POSITIVE_INFINITY, new Set(), true, new Set(), since);
  const paths = [...new Set(spec.paths)];
  return { folders, chains: chains(paths, new Set()), paths, ghosts: new Set() };
}

/**
 * Marks the mount points a kept sandbox made as ghosts: their folders are listed again at each check
 * (their change time moved when bubblewrap made them), with the ghosts left out.
 */
export function holdGhosts(s: DiskSnapshot, ghosts: Iterable<string>): void {
  for (const g of ghosts) {
    s.ghosts.add(g);
    for (const f of [s.folders.get(dirname(g)), s.folders.get(g)]) if (f) f.listAgain = f.held = true;
  }
}

/**
 * Whether the disk is still as `s` saw it, as far as the library can tell. `racyMs`: how old a folder's change
 * time must be for its stamp to stand for its listing (tests shorten it).
 */
export function unchanged(s: DiskSnapshot, racyMs = RACY_MS): boolean {
  const since = Date.now();
  for (const [dir, f] of s.folders) {
    if (f.listAgain) {
      // Stamped before it is listed, as in a snapshot: a folder listed the same whose change time is now old
      // enough is compared by its stamp from here on (a folder changed just before a build is not listed at
      // every command of the session).
      const st = f.held ? undefined : stamp(dir);
      if (listing(dir, s.ghosts).text !== f.listing) return false;
      if (st && st.ctime < since - racyMs) Object.assign(f, { ino: st.ino, ctime: st.ctime, listAgain: false });
      continue;
    }
    const st = stamp(dir);
    if (!st || st.ino !== f.ino || st.ctime !== f.ctime) return false;
  }
  return chains(s.paths, s.ghosts) === s.chains;
}

/** Adds paths read after the snapshot (a built line's mount targets), as they are now. */
export function addPaths(s: DiskSnapshot, paths: string[]): void {
  const fresh = [...new Set(paths)].filter((p) => !s.paths.includes(p));
  if (!fresh.length) return;
  s.paths.push(...fresh);
  s.chains = [s.chains, chains(fresh, s.ghosts)].filter(Boolean).join("\n");
}
