// Issue 21 tool turns: the checkpoints find their repository from the top level the git context already had git name
// at start (one git process less per session), and ask git whenever that is not known for sure. Checkpoints with git
// snapshots go beyond Claude Code (contracts §5.4).
import { afterEach, expect, test } from "bun:test";
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { collectGitInfo } from "../../src/context/git-info.ts";
import { findRepo } from "../../src/session/git-snapshot.ts";
import { tempDir, tempEnv } from "./helpers.ts";

type Env = Record<string, string | undefined>;
const PATH = process.env.PATH;
afterEach(() => {
  process.env.PATH = PATH;
});

const sh = (cwd: string, env: Env, ...args: string[]) => {
  const r = Bun.spawnSync(["git", ...args], { cwd, env, stdout: "pipe", stderr: "pipe" });
  expect([args.join(" "), r.exitCode, r.stderr.toString()]).toEqual([args.join(" "), 0, expect.any(String)]);
  return r.stdout.toString().trim();
};

function repo(env: Env): string {
  const dir = realpathSync(tempDir("yoke-cp-repo-"));
  sh(dir, env, "init", "-q", "-b", "main");
  sh(dir, env, "config", "user.email", "t@t");
  sh(dir, env, "config", "user.name", "t");
  mkdirSync(join(dir, "sub"));
  writeFileSync(join(dir, "sub", "a.txt"), "a\n");
  sh(dir, env, "add", "-A");
  sh(dir, env, "commit", "-qm", "init");
  return dir;
}

/** findRepo with no git to run (PATH on an empty folder): what it knows without a process. */
async function withoutGit(cwd: string, env: Env) {
  process.env.PATH = tempDir("yoke-no-git-");
  try {
    return await findRepo(cwd, { ...env, PATH: process.env.PATH });
  } finally {
    process.env.PATH = PATH;
  }
}

test("after the git context named the top level: the repository (and a linked worktree's own index) without a git process, as git names them", async () => {
  const { env } = tempEnv();
  const top = repo(env);
  const wt = join(realpathSync(tempDir("yoke-cp-wt-")), "wt");
  sh(top, env, "worktree", "add", "-q", wt);
  for (const [cwd, index] of [
    [top, join(top, ".git", "index")],
    [join(top, "sub"), join(top, ".git", "index")],
    [wt, join(top, ".git", "worktrees", "wt", "index")],
  ] as const) {
    const asked = await findRepo(cwd, env);
    expect(asked).toEqual({ top: cwd === wt ? wt : top, indexPath: index });
    // Before the git context ran, nothing is known: without git, no repository.
    expect(await withoutGit(cwd, env)).toBeNull();
    expect((await collectGitInfo(cwd))?.root).toBe(asked!.top);
    expect(await withoutGit(cwd, env)).toEqual(asked);
  }
});

test("a variable that moves the repository, work tree or index: git is asked, whatever the git context noted", async () => {
  const { env } = tempEnv();
  const top = repo(env);
  expect((await collectGitInfo(top))?.root).toBe(top);
  const other = join(realpathSync(tempDir("yoke-cp-idx-")), "index");
  for (const extra of [{ GIT_INDEX_FILE: other }, { GIT_DIR: join(top, ".git") }, { GIT_WORK_TREE: top }]) {
    expect(await withoutGit(top, { ...env, ...extra })).toBeNull();
  }
  // With git, its own answer (the index the variable names).
  expect(await findRepo(top, { ...env, GIT_INDEX_FILE: other })).toEqual({ top, indexPath: other });
});
