/**
 * What the sandbox library reads from the disk when it builds a command's bubblewrap line, as one
 * string: when it is the same as at the last build, the line would come out the same, so it is reused
 * (the build spawns ripgrep and walks globs, 20 ms a call; this costs a few directory listings).
 *
 * It over-approximates: names and types of every entry the library's scans can see (the ripgrep scan of
 * the working directory for protected names, the walks of deny globs), and every component of each
 * path the policy names (type, inode, mode, owner, link target). File contents are left out: the
 * library reads none that change what it mounts. Never throws.
 */
import { lstatSync, readdirSync, readlinkSync, statSync } from "node:fs";
import { join } from "node:path";

export type FingerprintSpec = {
  /** Folders listed to `depth` levels without following links (the library's ripgrep scan). */
  scans: { root: string; depth: number; skip: string[] }[];
  /** Folders listed all the way down, following links to folders (the library's glob walks). */
  walks: string[];
  /** Paths whose every component is recorded (policy paths, mount targets). */
  paths: string[];
  /**
   * Mount points a kept sandbox holds (see holder.ts): recorded as absent while they are still the empty
   * file or folder bubblewrap made, so that they do not read as a change.
   */
  ghosts?: Set<string>;
};

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

const NONE = new Set<string>();

function list(dir: string, out: string[], depth: number, skip: Set<string>, follow: boolean, seen: Set<string>, ghosts: Set<string>): void {
  let entries: { name: string; type: string }[];
  try {
    entries = readdirSync(dir, { withFileTypes: true })
      .filter((e) => !ghosts.size || !isGhost(join(dir, e.name), ghosts))
      .map((e) => ({ name: e.name, type: typeOf(e) }));
  } catch (e) {
    out.push(`${dir}\0!${code(e)}`);
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  out.push(`${dir}\0${entries.map((e) => `${e.name}:${e.type === "l" ? `l:${linkRecord(join(dir, e.name))}` : e.type}`).join("\0")}`);
  if (depth <= 0) return;
  for (const e of entries) {
    if (skip.has(e.name)) continue;
    const p = join(dir, e.name);
    if (e.type === "d") list(p, out, depth - 1, skip, follow, seen, ghosts);
    else if (e.type === "l" && follow) {
      try {
        const s = statSync(p);
        if (!s.isDirectory()) continue;
        const id = `${s.dev}:${s.ino}`;
        if (seen.has(id)) continue;
        seen.add(id);
        list(p, out, depth - 1, skip, follow, seen, ghosts);
      } catch {}
    }
  }
}

/** Every component of `p` from the root down, as far as it exists. */
function chain(p: string, out: string[], ghosts: Set<string>): void {
  const parts = p.split("/").filter(Boolean);
  let cur = "";
  for (const part of ["", ...parts]) {
    cur = !part ? "/" : cur === "/" ? `/${part}` : `${cur}/${part}`;
    if (ghosts.size && isGhost(cur, ghosts)) {
      out.push(`${cur}\0!ENOENT`);
      return;
    }
    try {
      const s = lstatSync(cur);
      const t = typeOf(s);
      out.push(`${cur}\0${t}:${s.dev}:${s.ino}:${s.mode}:${s.uid}${t === "l" ? `:${linkRecord(cur)}` : ""}`);
    } catch (e) {
      out.push(`${cur}\0!${code(e)}`);
      return;
    }
  }
}

export function fingerprint(spec: FingerprintSpec): string {
  const out: string[] = [];
  const ghosts = spec.ghosts ?? NONE;
  for (const s of spec.scans) list(s.root, out, s.depth, new Set(s.skip), false, new Set(), ghosts);
  for (const w of [...new Set(spec.walks)]) list(w, out, Number.POSITIVE_INFINITY, new Set(), true, new Set(), ghosts);
  for (const p of [...new Set(spec.paths)]) chain(p, out, ghosts);
  return out.join("\n");
}
