// Issue 16, third red-team pass: yoke's own git (git context for the system prompt, checkpoint snapshots) must not
// start the programs a folder's shipped `.git` names: an fsmonitor, clean filters, diff drivers, hooks.
import { afterAll, expect, test } from "bun:test";
import { chmodSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { git } from "../../src/util/git.ts";
import { findRepo, snapshotWorktree } from "../../src/session/git-snapshot.ts";
import { gitEnv, tempDir } from "../helpers/tmp.ts";

const roots: string[] = [];
afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

test("git status, add, log and diff-tree through util/git.ts run no program of the repository's config or hooks", async () => {
  const cwd = tempDir("yoke-git-quiet-");
  roots.push(cwd);
  const env = gitEnv({ GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@example.invalid", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@example.invalid" });
  writeFileSync(join(cwd, "a.txt"), "a\n");
  for (const args of [["init", "-q"], ["add", "-A"], ["-c", "commit.gpgsign=false", "commit", "-qm", "one"]]) expect(Bun.spawnSync(["git", ...args], { cwd, env }).exitCode).toBe(0);
  mkdirSync(join(cwd, "tools"));
  writeFileSync(join(cwd, "tools", "evil.sh"), '#!/bin/sh\ntouch "$(dirname "$0")/../PWNED-$1"\ncat\n');
  chmodSync(join(cwd, "tools", "evil.sh"), 0o755);
  writeFileSync(join(cwd, "extra.cfg"), '[diff "t"]\n\ttextconv = tools/evil.sh textconv\n');
  writeFileSync(
    join(cwd, ".git", "config"),
    '[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tfsmonitor = tools/evil.sh fsmonitor\n[filter "x"]\n\tclean = tools/evil.sh clean\n\tsmudge = tools/evil.sh smudge\n[log]\n\tshowSignature = true\n[gpg]\n\tprogram = tools/evil.sh gpg\n[include]\n\tpath = ../extra.cfg\n',
  );
  writeFileSync(join(cwd, ".git", "info", "attributes"), "* filter=x diff=t\n");
  writeFileSync(join(cwd, ".git", "hooks", "post-index-change"), '#!/bin/sh\ntouch "$PWD/PWNED-hook"\n', { mode: 0o755 });
  writeFileSync(join(cwd, ".git", "hooks", "reference-transaction"), '#!/bin/sh\ntouch "$PWD/PWNED-reftx"\n', { mode: 0o755 });
  writeFileSync(join(cwd, "a.txt"), "changed\n");
  const e = { ...env, PATH: process.env.PATH };
  expect((await git(["status", "--short"], { cwd, env: e })).code).toBe(0);
  expect((await git(["log", "--oneline", "-n", "5"], { cwd, env: e })).code).toBe(0);
  const idx = join(cwd, "..", `idx-${Date.now()}`);
  expect((await git(["add", "-A", "--", "."], { cwd, env: { ...e, GIT_INDEX_FILE: idx } })).code).toBe(0);
  const tree = (await git(["write-tree"], { cwd, env: { ...e, GIT_INDEX_FILE: idx } })).stdout.trim();
  const commit = (await git(["commit-tree", tree, "-m", "snap"], { cwd, env: e })).stdout.trim();
  expect((await git(["update-ref", "refs/yoke/test", commit], { cwd, env: e })).code).toBe(0);
  expect((await git(["diff-tree", "-r", "-p", "HEAD", commit], { cwd, env: e })).code).toBe(0);
  // A Bash call's snapshot runs its git steps in one /bin/sh (issue 21): the same options reach each of them.
  const repo = (await findRepo(cwd, e))!;
  const snap = await snapshotWorktree(repo, e, join(cwd, "..", `idx2-${Date.now()}`), "refs/yoke/checkpoints/q/0");
  expect(snap).toEqual({ tree: expect.stringMatching(/^[0-9a-f]{40}$/) });
  expect(readdirSync(cwd).filter((f) => f.startsWith("PWNED"))).toEqual([]);
  // The same repository does run them through a plain git: the test can fail.
  Bun.spawnSync(["git", "status"], { cwd, env: e });
  expect(readdirSync(cwd).filter((f) => f.startsWith("PWNED")).length).toBeGreaterThan(0);
});
