// Issue 21: a plain repository's work tree and its (absent) drivers are read from its files, without a git process.
// Every doubt (a key that names a driver, an include, a moved work tree, a GIT_* variable, a linked worktree, a bare
// repository) must send the caller back to git: util/git.ts then neutralizes the drivers as before (git-quiet.test.ts).
import { describe, expect, test } from "bun:test";
import { appendFileSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { plainRefs, plainRepository } from "../../src/util/git-plain.ts";
import { git as runGit } from "../../src/util/git.ts";
import { collectGitInfo } from "../../src/context/git-info.ts";
import { tempDir } from "../helpers/tmp.ts";

/** A committed repository in a fresh folder, with a HOME of its own (no global git config) and its env. */
function repo() {
  const root = tempDir("yoke-git-plain-");
  const home = tempDir("yoke-git-plain-home-");
  const env: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, GIT_CONFIG_NOSYSTEM: "1" };
  const g = (...a: string[]) => {
    const r = Bun.spawnSync(["git", "-c", "user.email=t@example.invalid", "-c", "user.name=t", ...a], { cwd: root, env });
    if (r.exitCode !== 0) throw new Error(`git ${a.join(" ")}: ${r.stderr.toString()}`);
    return r.stdout.toString().trim();
  };
  mkdirSync(join(root, "src", "deep"), { recursive: true });
  writeFileSync(join(root, "src", "a.txt"), "a\n");
  g("init", "-q", "-b", "main");
  g("add", "-A");
  g("commit", "-qm", "one");
  return { root, home, env, g };
}

const toplevel = (cwd: string, env: Record<string, string>) => Bun.spawnSync(["git", "rev-parse", "--show-toplevel"], { cwd, env }).stdout.toString().trim();

describe("plainRepository", () => {
  test("a plain repository: the work tree git names, from its root, a subfolder and a linked path", () => {
    const r = repo();
    const link = join(tempDir("yoke-git-plain-link-"), "via");
    symlinkSync(join(r.root, "src"), link);
    for (const cwd of [r.root, join(r.root, "src", "deep"), link]) {
      expect({ cwd, root: plainRepository(cwd, r.env)?.root }).toEqual({ cwd, root: toplevel(cwd, r.env) });
    }
  });

  const repoConfig = [
    '[filter "x"]\n\tclean = cat\n',
    '[diff "t"]\n\ttextconv = cat\n',
    "[Filter.x]\n\tsmudge = cat\n",
    "[include]\n\tpath = ../x.cfg\n",
    '[includeIf "gitdir:/"]\n\tpath = /tmp/x.cfg\n',
    "[core]\n\tworktree = /tmp\n",
    "[core]\n\tbare = true\n",
  ];
  for (const text of repoConfig)
    test(`the repository's config names ${JSON.stringify(text.replaceAll("\n", " ").trim())}: ask git`, () => {
      const r = repo();
      appendFileSync(join(r.root, ".git", "config"), text);
      expect(plainRepository(r.root, r.env)).toBeNull();
    });

  test("the user's global config names a driver or an include (each place git reads it from): ask git", () => {
    for (const where of ["home", "xdg", "GIT_CONFIG_GLOBAL"] as const) {
      const r = repo();
      expect(plainRepository(r.root, r.env)).not.toBeNull(); // the control: plain until the global file says otherwise
      const env = { ...r.env };
      let file = join(r.home, ".gitconfig");
      if (where === "xdg") {
        env.XDG_CONFIG_HOME = join(r.home, "xdg");
        file = join(env.XDG_CONFIG_HOME, "git", "config");
      } else if (where === "GIT_CONFIG_GLOBAL") file = env.GIT_CONFIG_GLOBAL = join(r.home, "global.cfg");
      mkdirSync(join(file, ".."), { recursive: true });
      writeFileSync(file, '[filter "lfs"]\n\tclean = git-lfs clean -- %f\n');
      expect({ where, plain: plainRepository(r.root, env) }).toEqual({ where, plain: null });
    }
  });

  test("GIT_* variables that move git's files or settings, a linked worktree, a bare repository inside, no repository: ask git", () => {
    const r = repo();
    for (const k of ["GIT_DIR", "GIT_WORK_TREE", "GIT_CEILING_DIRECTORIES", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_INDEX_FILE"])
      expect({ k, plain: plainRepository(r.root, { ...r.env, [k]: r.root }) }).toEqual({ k, plain: null });
    const wt = join(tempDir("yoke-git-plain-wt-"), "wt");
    r.g("worktree", "add", "-q", wt);
    expect(plainRepository(wt, r.env)).toBeNull();
    const bare = join(r.root, "src", "bare.git");
    r.g("init", "-q", "--bare", bare);
    expect(plainRepository(bare, r.env)).toBeNull();
    expect(plainRepository(tempDir("yoke-git-plain-none-"), r.env)).toBeNull();
  });

  test("through util/git.ts and the git context: same answers, and a driver the repository adds later still never runs", async () => {
    const r = repo();
    const env = { ...r.env };
    // collectGitInfo reads the process's own env: plain or not there, it names the work tree git names.
    const info = await collectGitInfo(join(r.root, "src"));
    expect({ root: info?.root, branch: info?.branch }).toEqual({ root: toplevel(r.root, r.env), branch: "main" });
    expect((await runGit(["status", "--short", "--branch"], { cwd: r.root, env })).stdout).toBe("## main\n");
    // A folder whose config names a filter is not plain: the drivers are read and neutralized (the test can fail:
    // plain git runs the filter).
    const evil = repo();
    writeFileSync(join(evil.root, "evil.sh"), '#!/bin/sh\ntouch "$(dirname "$0")/PWNED"\ncat\n', { mode: 0o755 });
    appendFileSync(join(evil.root, ".git", "config"), '[filter "x"]\n\tclean = ./evil.sh\n');
    writeFileSync(join(evil.root, ".git", "info", "attributes"), "* filter=x\n");
    // The same size, so git must hash the file again (through the filter) to tell whether it changed.
    writeFileSync(join(evil.root, "src", "a.txt"), "b\n");
    expect(plainRepository(evil.root, evil.env)).toBeNull();
    expect((await runGit(["status", "--short"], { cwd: evil.root, env: evil.env })).code).toBe(0);
    expect(readdirSync(evil.root).filter((f) => f.startsWith("PWNED"))).toEqual([]);
    Bun.spawnSync(["git", "status"], { cwd: evil.root, env: evil.env });
    expect(readdirSync(evil.root).filter((f) => f.startsWith("PWNED"))).toEqual(["PWNED"]);
  });

  test("plainRefs prints what git for-each-ref prints for the main-branch refs: loose, packed, origin's HEAD, a dangling one", () => {
    const REFS = ["refs/remotes/origin/HEAD", "refs/heads/main", "refs/heads/master"];
    const check = (label: string, r: ReturnType<typeof repo>, cwd = r.root) => {
      const env = r.env;
      const byGit = Bun.spawnSync(["git", "for-each-ref", "--format=%(refname) %(symref:short)", ...REFS], { cwd, env }).stdout.toString().replace(/\n$/, "");
      const plain = plainRepository(cwd, env);
      expect({ label, plain: !!plain }).toEqual({ label, plain: true });
      expect({ label, refs: plainRefs(plain!.gitDir, REFS) }).toEqual({ label, refs: byGit });
    };
    const a = repo();
    check("main only", a);
    a.g("branch", "master");
    check("main and master", a);
    a.g("pack-refs", "--all");
    check("both packed", a);
    a.g("branch", "-D", "master");
    check("master deleted after packing", a);
    const clone = tempDir("yoke-git-plain-clone-");
    const c = { ...a, root: clone, g: (...x: string[]) => Bun.spawnSync(["git", ...x], { cwd: clone, env: a.env }).stdout.toString() };
    expect(Bun.spawnSync(["git", "clone", "-q", a.root, clone], { env: a.env }).exitCode).toBe(0);
    check("a clone: origin's HEAD", c);
    c.g("pack-refs", "--all");
    check("a clone, packed", c);
    c.g("symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/gone");
    check("origin's HEAD names a missing branch", c);
    c.g("branch", "-m", "main", "trunk");
    check("no local main", c);
  });
});
