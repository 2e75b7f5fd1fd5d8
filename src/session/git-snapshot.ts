import { copyFileSync, existsSync, readFileSync, rmSync, statSync, utimesSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { git, gitScript, knownTopLevel } from "../util/git.ts";

type Env = Record<string, string | undefined>;

export type GitRepo = { top: string; indexPath: string };

/** Variables that change which repository, work tree or index git finds: with any of them set, git is asked. */
const DISCOVERY_ENV = ["GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT"];

/**
 * The repository from the top level the git context already had git name for `cwd` (util/git.ts knownTopLevel): its
 * index is `.git/index`, or the index in the folder a `.git` file names (a linked worktree, a submodule). Null when
 * that is not known for sure (no top level noted, a discovery variable set, no `.git` there): git is asked then.
 */
function knownRepo(cwd: string, env: Env): GitRepo | null {
  const top = knownTopLevel(cwd);
  if (!top || DISCOVERY_ENV.some((k) => env[k] !== undefined || process.env[k] !== undefined)) return null;
  const dotGit = join(top, ".git");
  try {
    if (statSync(dotGit).isDirectory()) return { top, indexPath: join(dotGit, "index") };
    const m = /^gitdir: (.+)$/m.exec(readFileSync(dotGit, "utf8"));
    return m ? { top, indexPath: join(resolve(top, m[1]!.trim()), "index") } : null;
  } catch {
    return null;
  }
}

/** The repository around `cwd`, or null when there is none (or git is missing). Never throws. */
export async function findRepo(cwd: string, env: Env): Promise<GitRepo | null> {
  const known = knownRepo(cwd, env);
  if (known) return known;
  const r = await git(["rev-parse", "--show-toplevel", "--git-path", "index"], { cwd, env });
  if (r.code !== 0) return null;
  const [top, idx] = r.stdout.split("\n");
  if (!top || !idx) return null;
  return { top, indexPath: isAbsolute(idx) ? idx : join(cwd, idx) };
}

/**
 * Writes the working tree (tracked + untracked, not ignored) as a tree object through a private
 * index file, seeded from a copy of the user's index so only changed files are hashed. The user's
 * index, HEAD, branches and stash are never touched. Never throws; failure → `{ error }` naming the git step.
 */
export async function writeWorktreeTree(repo: GitRepo, env: Env, tmpIndex: string): Promise<{ tree: string } | { error: string }> {
  seedIndex(repo, tmpIndex);
  const e = { ...env, GIT_INDEX_FILE: tmpIndex };
  try {
    const add = await git(["add", "-A", "--", "."], { cwd: repo.top, env: e });
    if (add.code !== 0) return { error: `git add -A (temporary index) failed: ${add.stderr.trim()}` };
    const wt = await git(["write-tree"], { cwd: repo.top, env: e });
    if (wt.code !== 0) return { error: `git write-tree failed: ${wt.stderr.trim()}` };
    return { tree: wt.stdout.trim() };
  } finally {
    rmSync(tmpIndex, { force: true });
  }
}

/** Seeds the private index with a copy of the user's, so git add hashes only what changed. Never throws. */
function seedIndex(repo: GitRepo, tmpIndex: string): void {
  try {
    if (existsSync(repo.indexPath)) {
      copyFileSync(repo.indexPath, tmpIndex);
      // The copy keeps the index's mtime: git trusts an entry's stat only when the file is older than the index, so
      // a newer copy would make a racily clean entry (a same-size rewrite in the index's second) look unchanged.
      const st = statSync(repo.indexPath);
      utimesSync(tmpIndex, st.atime, st.mtime);
    }
  } catch {
    // no usable index copy: git add hashes everything, slower but correct
  }
}

/**
 * A snapshot whose working tree is read: `seal` writes its tree and points the ref at it (once; later calls share it);
 * `drop` removes its private index instead, for a read nobody needs.
 */
export type StagedSnapshot = { seal(ref: string): Promise<{ tree: string } | { error: string }>; drop(): void };

/**
 * A snapshot's first step, the only one a Bash command must wait for: `git add -A` into a private index seeded from the
 * user's reads the working tree and stores what changed as blobs. One git process, started directly. The tree and the
 * ref (`seal`) need only that private index, never the working tree, so they are written while the command runs
 * (issue 21: the four process starts of the whole snapshot held each turn's first Bash call ~14 ms). A blob is safe
 * meanwhile: git prunes only unreachable objects older than gc.pruneExpire (two weeks); a command that prunes at once
 * (`git gc --prune=now`) makes the seal fail, which is said. Never throws; failure → `{ error }` naming the git step.
 */
export async function stageWorktree(repo: GitRepo, env: Env, tmpIndex: string): Promise<StagedSnapshot | { error: string }> {
  seedIndex(repo, tmpIndex);
  const e = { ...env, GIT_INDEX_FILE: tmpIndex };
  const add = await git(["add", "-A", "--", "."], { cwd: repo.top, env: e });
  if (add.code !== 0) {
    rmSync(tmpIndex, { force: true });
    return { error: `git add -A (temporary index) failed: ${add.stderr.trim()}` };
  }
  let sealed: Promise<{ tree: string } | { error: string }> | undefined;
  return { seal: (ref) => (sealed ??= sealIndex(repo, e, tmpIndex, ref)), drop: () => void (sealed ?? rmSync(tmpIndex, { force: true })) };
}

/**
 * The seal's two git steps in one process start (gitScript): a run's end waits for the last Bash call's seal, and two
 * starts from yoke, each waited for in turn, held a three-turn run's exit ~10 ms on a loaded machine (issue 21). Exit
 * 3: write-tree failed; 4: update-ref failed (their stderr says why); the tree on stdout.
 */
const SEAL_SCRIPT = 'ref=$1; shift; tree=$("$@" write-tree) || exit 3; "$@" update-ref "$ref" "$tree" || exit 4; printf "%s\\n" "$tree"';

/**
 * The snapshot's tree → its private ref, pointing at the tree itself (a ref outside refs/heads may name any object): a
 * commit object around it would be one more git process, and a rewind reads only the tree. Removes the private index.
 */
async function sealIndex(repo: GitRepo, e: Env, tmpIndex: string, ref: string): Promise<{ tree: string } | { error: string }> {
  try {
    // Windows has no /bin/sh for the script: the two steps one after the other.
    if (process.platform === "win32") return await sealStepwise(repo, e, ref);
    const r = await gitScript(SEAL_SCRIPT, "write-tree and update-ref", [ref], { cwd: repo.top, env: e });
    const tree = r.stdout.trim();
    if (r.code === 4) return { error: `git update-ref ${ref} failed: ${r.stderr.trim()}` };
    if (r.code !== 0 || !/^[0-9a-f]{40,64}$/.test(tree)) return { error: `git write-tree failed: ${r.stderr.trim() || `exit code ${r.code}`}` };
    return { tree };
  } finally {
    rmSync(tmpIndex, { force: true });
  }
}

/** sealIndex's two steps as two git processes (Windows). */
export async function sealStepwise(repo: GitRepo, e: Env, ref: string): Promise<{ tree: string } | { error: string }> {
  const w = await git(["write-tree"], { cwd: repo.top, env: e });
  const tree = w.stdout.trim();
  if (w.code !== 0 || !/^[0-9a-f]{40,64}$/.test(tree)) return { error: `git write-tree failed: ${w.stderr.trim() || `exit code ${w.code}`}` };
  const u = await git(["update-ref", ref, tree], { cwd: repo.top, env: e });
  if (u.code !== 0) return { error: `git update-ref ${ref} failed: ${u.stderr.trim()}` };
  return { tree };
}

/** The whole snapshot, working tree → tree → ref, for callers that wait for all of it. Never throws. */
export async function snapshotWorktree(repo: GitRepo, env: Env, tmpIndex: string, ref: string): Promise<{ tree: string } | { error: string }> {
  const staged = await stageWorktree(repo, env, tmpIndex);
  return "error" in staged ? staged : staged.seal(ref);
}

export type TreeChange = { status: string; path: string };

/** Paths (relative to the top) that differ between two trees/commits. Never throws. */
export async function diffTrees(repo: GitRepo, env: Env, from: string, to: string): Promise<TreeChange[] | { error: string }> {
  const d = await git(["diff-tree", "-r", "--no-renames", "--name-status", "-z", from, to], { cwd: repo.top, env });
  if (d.code !== 0) return { error: `git diff-tree failed: ${d.stderr.trim()}` };
  const parts = d.stdout.split("\0");
  const out: TreeChange[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) out.push({ status: parts[i]!, path: parts[i + 1]! });
  return out;
}

/** Writes `paths` from `commit` into the working tree through a private index. Never throws. */
export async function checkoutPaths(repo: GitRepo, env: Env, tmpIndex: string, commit: string, paths: string[]): Promise<{ error?: string }> {
  if (paths.length === 0) return {};
  const e = { ...env, GIT_INDEX_FILE: tmpIndex };
  try {
    const rt = await git(["read-tree", commit], { cwd: repo.top, env: e });
    if (rt.code !== 0) return { error: `git read-tree ${commit} failed: ${rt.stderr.trim()}` };
    const co = await git(["checkout-index", "-f", "-z", "--stdin"], { cwd: repo.top, env: e, input: `${paths.join("\0")}\0` });
    if (co.code !== 0) return { error: `git checkout-index failed: ${co.stderr.trim()}` };
    return {};
  } finally {
    rmSync(tmpIndex, { force: true });
  }
}

/** Whether git ignores `rel` (relative to the top). Never throws (error → false). */
export async function isIgnored(repo: GitRepo, env: Env, rel: string): Promise<boolean> {
  const r = await git(["check-ignore", "-q", "--", rel], { cwd: repo.top, env });
  return r.code === 0;
}
