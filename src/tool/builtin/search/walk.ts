import { existsSync, readFileSync } from "node:fs";
import { fsp } from "../../../util/fs-promises.ts";
import path from "node:path";
import ignore, { type Ignore } from "ignore";

/** Ignore files read in every directory, lowest precedence first (ripgrep's order: .rgignore > .ignore > .gitignore). */
const IGNORE_FILES = [".gitignore", ".ignore", ".rgignore"] as const;

type Matcher = { base: string; ig: Ignore };

export type WalkEntry = { abs: string; rel: string; symlink: boolean };

export type WalkOptions = {
  root: string;
  /** Honour .gitignore/.ignore/.rgignore (nested and in parents up to the git root) and .git/info/exclude. */
  respectIgnore?: boolean;
  signal?: AbortSignal;
  /**
   * Called for every file (and, with includeSymlinks, every symlink) not ignored. A returned promise holds
   * the walk until it settles: a consumer slower than the walk keeps its backlog bounded (issue 20.5).
   */
  onFile(entry: WalkEntry): void | Promise<void>;
  includeSymlinks?: boolean;
  /** Files for which this is true are kept even when an ignore file hides them (ripgrep: `--glob` overrides ignore files). */
  forceInclude?: (rel: string) => boolean;
  /** Directories read at once. */
  concurrency?: number;
};

const toPosix = (p: string) => (path.sep === "/" ? p : p.split(path.sep).join("/"));

/** Ignored when the deepest matcher with an opinion says so (git: deeper files win, last rule in a file wins). */
function isIgnored(matchers: Matcher[], abs: string, isDir: boolean): boolean {
  for (let i = matchers.length - 1; i >= 0; i--) {
    const m = matchers[i]!;
    // Matchers are always ancestors of abs, so slicing is enough (path.relative is slow on 50k entries).
    if (abs.length <= m.base.length || !abs.startsWith(m.base)) continue;
    let rel = toPosix(abs.slice(m.base.endsWith(path.sep) ? m.base.length : m.base.length + 1));
    if (isDir) rel += "/";
    const r = m.ig.test(rel);
    if (r.ignored) return true;
    if (r.unignored) return false;
  }
  return false;
}

/**
 * With `root` below `base`: rules that exclude the root or a directory on the way to it are dropped. The
 * search root is always searched, as in ripgrep, which matches each path on its own rather than inheriting
 * a parent's exclusion (so `Grep path: node_modules/zod` works while `node_modules/` is ignored).
 */
function compile(base: string, texts: string[], root?: string): Matcher | null {
  let lines = texts.filter(Boolean).join("\n").split(/\r?\n/);
  if (root && root !== base) {
    const parts = toPosix(path.relative(base, root)).split("/");
    const chain = parts.map((_, i) => `${parts.slice(0, i + 1).join("/")}/`);
    lines = lines.filter((l) => {
      const t = l.trim();
      if (!t || t.startsWith("#") || t.startsWith("!")) return true;
      const one = ignore({ allowRelativePaths: true }).add(l);
      return !chain.some((c) => one.ignores(c));
    });
  }
  if (!lines.some((l) => l.trim())) return null;
  return { base, ig: ignore({ allowRelativePaths: true }).add(lines.join("\n")) };
}

/** Ignore rules that apply to `root` from its ancestors: parent ignore files up to the git root, and .git/info/exclude. */
export function ancestorMatchers(root: string): Matcher[] {
  const dirs: string[] = [];
  let dir = path.dirname(root);
  let gitRoot: string | null = existsSync(path.join(root, ".git")) ? root : null;
  if (!gitRoot) {
    for (;;) {
      dirs.push(dir);
      if (existsSync(path.join(dir, ".git"))) {
        gitRoot = dir;
        break;
      }
      const up = path.dirname(dir);
      if (up === dir) break;
      dir = up;
    }
  }
  const out: Matcher[] = [];
  if (gitRoot) {
    const exclude = readText(path.join(gitRoot, ".git", "info", "exclude"));
    const m = exclude ? compile(gitRoot, [exclude], root) : null;
    if (m) out.push(m);
  }
  for (const d of dirs.reverse()) {
    const m = compile(d, IGNORE_FILES.map((f) => readText(path.join(d, f))), root);
    if (m) out.push(m);
  }
  return out;
}

function readText(p: string): string {
  try {
    return readFileSync(p, "utf8");
  } catch {
    return "";
  }
}

/**
 * Walks `root` the way ripgrep does with `--hidden --glob !.git`: hidden files included, `.git` skipped,
 * ignored directories pruned, symlinks not followed. Unreadable directories are skipped silently.
 * Rejects only when the signal aborts.
 */
export async function walk(opts: WalkOptions): Promise<void> {
  const respect = opts.respectIgnore !== false;
  const limit = opts.concurrency ?? 16;
  const base = respect ? ancestorMatchers(opts.root) : [];
  const queue: Array<{ dir: string; matchers: Matcher[] }> = [{ dir: opts.root, matchers: base }];
  let active = 0;

  await new Promise<void>((resolve, reject) => {
    const pump = () => {
      if (opts.signal?.aborted) return reject(opts.signal.reason ?? new Error("aborted"));
      while (active < limit && queue.length) {
        const job = queue.pop()!;
        active++;
        visit(job.dir, job.matchers)
          .catch(() => {})
          .finally(() => {
            active--;
            pump();
          });
      }
      if (active === 0 && queue.length === 0) resolve();
    };
    pump();
  });

  async function visit(dir: string, inherited: Matcher[]): Promise<void> {
    const entries = await fsp().readdir(dir, { withFileTypes: true });
    let matchers = inherited;
    if (respect) {
      const names = new Set(entries.map((e) => e.name));
      const present = IGNORE_FILES.filter((f) => names.has(f));
      if (present.length) {
        const texts = await Promise.all(present.map((f) => fsp().readFile(path.join(dir, f), "utf8").catch(() => "")));
        const m = compile(dir, texts);
        if (m) matchers = [...inherited, m];
      }
    }
    const relDir = toPosix(path.relative(opts.root, dir));
    for (const e of entries) {
      if (e.name === ".git") continue;
      const abs = path.join(dir, e.name);
      const isDir = e.isDirectory();
      const rel = relDir ? `${relDir}/${e.name}` : e.name;
      if (respect && matchers.length && isIgnored(matchers, abs, isDir) && (isDir || !opts.forceInclude?.(rel))) continue;
      if (isDir) queue.push({ dir: abs, matchers });
      let held: void | Promise<void> = undefined;
      if (e.isFile()) held = opts.onFile({ abs, rel, symlink: false });
      else if (e.isSymbolicLink() && opts.includeSymlinks) held = opts.onFile({ abs, rel, symlink: true });
      if (held) await held;
      if (opts.signal?.aborted) return;
    }
  }
}
