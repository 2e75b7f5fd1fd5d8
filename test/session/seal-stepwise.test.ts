// The snapshot seal's Windows path (src/session/git-snapshot.ts sealStepwise): write-tree then update-ref as two git
// processes, since Windows has no /bin/sh for the one-script seal. Run here on any platform: the steps are git's own.
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { sealStepwise } from "../../src/session/git-snapshot.ts";
import { tempDir } from "../helpers/tmp.ts";

const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: tempDir(), GIT_CONFIG_NOSYSTEM: "1" };
const git = (cwd: string, ...a: string[]) => Bun.spawnSync(["git", ...a], { cwd, env }).stdout.toString().trim();

function repo() {
  const dir = tempDir("yoke-seal-stepwise-");
  git(dir, "init", "-q", "-b", "main");
  writeFileSync(join(dir, "a.txt"), "one\n");
  git(dir, "add", "-A");
  return { top: dir, indexPath: join(dir, ".git", "index") };
}

test("write-tree then update-ref: the ref names the index's tree", async () => {
  const r = repo();
  const out = await sealStepwise(r, env, "refs/yoke/checkpoints/s/1");
  expect(out).toEqual({ tree: git(r.top, "write-tree") });
  expect(git(r.top, "rev-parse", "refs/yoke/checkpoints/s/1")).toBe(git(r.top, "write-tree"));
});

test("a ref git refuses is named as update-ref's failure, not write-tree's", async () => {
  const r = repo();
  const out = await sealStepwise(r, env, "refs/yoke/bad..name");
  expect("error" in out && out.error).toStartWith("git update-ref refs/yoke/bad..name failed:");
});

test("an index git cannot read is named as write-tree's failure", async () => {
  const r = repo();
  const out = await sealStepwise(r, { ...env, GIT_INDEX_FILE: join(r.top, "not-an-index") }, "refs/yoke/checkpoints/s/2");
  writeFileSync(join(r.top, "not-an-index"), "garbage");
  const again = await sealStepwise(r, { ...env, GIT_INDEX_FILE: join(r.top, "not-an-index") }, "refs/yoke/checkpoints/s/2");
  expect(out).toHaveProperty("tree"); // a missing index is an empty one to git
  expect("error" in again && again.error).toStartWith("git write-tree failed:");
});
