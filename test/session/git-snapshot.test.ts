// A checkpoint's snapshot of the working tree must see a change git's own status sees. Found as a rare CI failure
// (a same-size rewrite within the second of the commit was missed): the private index was a copy of the user's
// with a newer mtime, so entries git keeps "racily clean" (file mtime not older than the index's) looked clean.
import { expect, test } from "bun:test";
import { utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { findRepo, writeWorktreeTree } from "../../src/session/git-snapshot.ts";
import { tempDir } from "../helpers/tmp.ts";

const run = (cwd: string, ...args: string[]) => {
  const r = Bun.spawnSync(["git", ...args], { cwd, env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", HOME: cwd } });
  if (r.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr.toString()}`);
  return r.stdout.toString().trim();
};

test("a same-size rewrite with the same mtime as the user's index (racily clean) is in the snapshot", async () => {
  const cwd = tempDir();
  run(cwd, "init", "-q");
  run(cwd, "config", "core.trustctime", "false"); // the race without waiting for a second boundary: mtime alone
  const file = join(cwd, "a.txt");
  const S = 1_000_000_000; // one whole second for the file and the index: the entry is racy
  writeFileSync(file, "v1\n");
  utimesSync(file, S, S);
  run(cwd, "add", "a.txt");
  const index = join(cwd, ".git", "index");
  utimesSync(index, S, S);
  writeFileSync(file, "v2\n"); // same size, same inode
  utimesSync(file, S, S);
  const repo = (await findRepo(cwd, process.env as Record<string, string>))!;
  const tmp = join(tempDir(), "index");
  const r = await writeWorktreeTree(repo, process.env as Record<string, string>, tmp);
  if ("error" in r) throw new Error(r.error);
  expect(run(cwd, "cat-file", "-p", `${r.tree}:a.txt`)).toBe("v2");
});
