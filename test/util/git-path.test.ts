// Issue 16 point 10: yoke's own git (context, checkpoints) is found on the PATH yoke started with, never a
// settings env.PATH, which reaches only the model's commands.
import { expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { git } from "../../src/util/git.ts";
import { tempDir } from "../helpers/tmp.ts";

test("a `git` first on the session PATH is not the one yoke runs", async () => {
  const bin = tempDir("yoke-evil-git-");
  const marker = join(bin, "ran");
  writeFileSync(join(bin, "git"), `#!/bin/sh\ntouch ${marker}\necho evil\n`, { mode: 0o755 });
  const r = await git(["--version"], { cwd: bin, env: { ...process.env, PATH: `${bin}:${process.env.PATH}` } });
  expect(existsSync(marker)).toBe(false);
  expect(r.stdout).toStartWith("git version");
});
