// A Read-denied file that was ever committed is readable through .git: the sandbox cannot hide it,
// so it must not let commands run unasked on its strength (issue 16 point 12, "what it does not guarantee").
import { expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createBashSandbox, probeSandbox } from "../../src/sandbox/index.ts";
import { deniedInHistory } from "../../src/sandbox/history.ts";
import { createPermissionEvaluator } from "../../src/permission/index.ts";
import type { LoadedSettings } from "../../src/config/load.ts";
import { tempDir } from "../helpers/tmp.ts";

function repo(commitSecret: boolean): string {
  const dir = tempDir("yoke-history-");
  mkdirSync(join(dir, "secrets/deep"), { recursive: true });
  writeFileSync(join(dir, "secrets/deep/key.pem"), "k");
  writeFileSync(join(dir, "README.md"), "r");
  if (!commitSecret) writeFileSync(join(dir, ".gitignore"), "secrets/\n");
  const git = (...a: string[]) => Bun.spawnSync(["git", "-c", "user.email=t@t", "-c", "user.name=t", ...a], { cwd: dir, env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1" } });
  git("init", "-q");
  git("add", "-A");
  git("commit", "-qm", "c");
  if (commitSecret) {
    git("rm", "-rq", "--cached", "secrets");
    git("commit", "-qm", "forget it (still in history)");
  }
  return dir;
}

test("finds a denied file in any commit, literal or by glob; nothing when it was never committed", async () => {
  const leaky = repo(true);
  expect(await deniedInHistory([leaky], [join(leaky, "secrets")])).toBe(join(leaky, "secrets/deep/key.pem"));
  expect(await deniedInHistory([leaky], [join(leaky, "**/*.pem")])).toBe(join(leaky, "secrets/deep/key.pem"));
  expect(await deniedInHistory([leaky], [join(leaky, ".env")])).toBeUndefined();
  const clean = repo(false);
  expect(await deniedInHistory([clean], [join(clean, "secrets"), join(clean, "**/*.pem")])).toBeUndefined();
  expect(await deniedInHistory([tempDir("yoke-nogit-")], ["/x"])).toBeUndefined();
});

const probe = await probeSandbox({ env: process.env });
test.skipIf(!probe.ok)("auto-allow is withheld, and said, when a denied file is in the history", async () => {
  const cwd = repo(true);
  const perms = { deny: ["Read(./secrets/**)"] };
  const settings = { merged: { permissions: perms }, sources: [{ level: "user", path: "s", ruleRoot: cwd, settings: { permissions: perms } }] } as LoadedSettings;
  const ev = createPermissionEvaluator({ settings, cwd, env: process.env });
  const sb = await createBashSandbox({
    settings: { autoAllowBashIfSandboxed: true },
    env: { ...process.env, YOKE_SANDBOX: undefined },
    rules: ev.ruleSet,
    workingDirectories: ev.workingDirectories,
    scratch: [],
    yokeDir: join(cwd, ".y"),
  });
  expect(sb.active).toBe(true);
  expect(sb.autoAllow).toBe(false);
  expect(sb.notice).toContain(`${join(cwd, "secrets/deep/key.pem")} is in the git history`);
});
