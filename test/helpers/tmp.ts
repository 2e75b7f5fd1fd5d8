/**
 * Real temp directories, file trees and git repos for tests.
 *
 * All functions throw on failure (an fs error, or a git command's non-zero exit with its stderr),
 * because a broken fixture should fail the test at the line that built it.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

// One cleanup list per test process: dirs outlive the test that made them (a failing test's
// files stay inspectable until the run ends) but never outlive the run. `bun test` (1.4.5) fires no
// process "exit" event, so the preload test/helpers/temp-cleanup.ts removes them after the last file; the exit handler covers scripts (bench/) that use these helpers outside the test runner.
const created = new Set<string>();
let cleanupRegistered = false;

/** Removes every dir tempDir() made in this process (nothing when YOKE_KEEP_TMP=1). */
export function removeTempDirs(): void {
  if (process.env.YOKE_KEEP_TMP === "1") return;
  for (const dir of created) {
    try {
      fs.rmSync(dir, { recursive: true, force: true });
    } catch {
      // Best effort: a dir still in use by a killed child may refuse; the OS tmp reaper gets it.
    }
  }
  created.clear();
}

/**
 * The same, handed to a detached `rm -rf` so the run does not wait: a suite's dirs (git repos, spill files) take
 * seconds to delete on a busy machine, longer than Bun lets an afterAll hook run.
 */
export function removeTempDirsInBackground(): void {
  if (process.env.YOKE_KEEP_TMP === "1" || created.size === 0) return;
  const dirs = [...created];
  created.clear();
  for (let i = 0; i < dirs.length; i += 500) {
    try {
      Bun.spawn(["rm", "-rf", "--", ...dirs.slice(i, i + 500)], { stdio: ["ignore", "ignore", "ignore"], detached: true }).unref();
    } catch {
      // No rm (or no process left to spawn): the dirs stay for the OS tmp reaper, as after a killed run.
    }
  }
}

function registerCleanup(): void {
  if (cleanupRegistered) return;
  cleanupRegistered = true;
  process.on("exit", removeTempDirs);
}

/** A fresh directory under os.tmpdir(), removed at process exit (kept when YOKE_KEEP_TMP=1). Returns its real path. */
export function tempDir(prefix = "yoke-test-"): string {
  registerCleanup();
  // realpath: macOS and some CI put tmpdir behind a symlink, and tools report resolved paths.
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  created.add(dir);
  return dir;
}

export type TreeEntry = string | Uint8Array | { content: string | Uint8Array; mode?: number };

/**
 * Writes files under root, creating parent dirs. Keys are relative POSIX paths; a key ending in
 * "/" makes an empty directory. Throws if a key is absolute or escapes root.
 */
export function writeTree(root: string, tree: Record<string, TreeEntry>): void {
  for (const [rel, entry] of Object.entries(tree)) {
    const target = path.resolve(root, rel);
    if (path.isAbsolute(rel) || !(target + path.sep).startsWith(path.resolve(root) + path.sep)) {
      throw new Error(`writeTree: path "${rel}" must be relative and stay inside ${root}`);
    }
    if (rel.endsWith("/")) {
      fs.mkdirSync(target, { recursive: true });
      continue;
    }
    fs.mkdirSync(path.dirname(target), { recursive: true });
    const { content, mode } = typeof entry === "string" || entry instanceof Uint8Array ? { content: entry, mode: undefined } : entry;
    fs.writeFileSync(target, content);
    if (mode !== undefined) fs.chmodSync(target, mode);
  }
}

/** Environment for git that ignores the user's and system's git config, so tests are reproducible. */
export function gitEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith("GIT_")) env[k] = v;
  }
  return { ...env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1", GIT_TERMINAL_PROMPT: "0", ...extra };
}

/** Runs git in dir and returns trimmed stdout; throws naming the command and its stderr on failure. */
export function git(dir: string, ...args: string[]): string {
  const r = Bun.spawnSync(["git", ...args], { cwd: dir, env: gitEnv(), stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) {
    throw new Error(`git ${args.join(" ")} in ${dir} exited ${r.exitCode}: ${r.stderr.toString().trim()}`);
  }
  return r.stdout.toString().trim();
}

/**
 * Makes dir (created if missing) a git repo on branch main with a local user.name/email and one
 * initial commit holding whatever files are already there (empty commit if none). Returns dir.
 */
export function gitRepo(dir: string): string {
  fs.mkdirSync(dir, { recursive: true });
  git(dir, "init", "-q", "-b", "main");
  git(dir, "config", "user.name", "Yoke Test");
  git(dir, "config", "user.email", "yoke-test@example.invalid");
  git(dir, "config", "commit.gpgsign", "false");
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "--allow-empty", "-m", "initial commit");
  return dir;
}
