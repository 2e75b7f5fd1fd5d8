// Issue 16, points 1–9: each bypass class of the Bash analysis, with variants the issue does not name.
// The evaluator decides in a real project (files, symlinks, a git repository); nothing runs here. The same
// attempts run end to end through the binary in test/e2e/attack-corpus.test.ts.
import { afterAll, describe, expect, test } from "bun:test";
import { bashDecider, type Perms, tempProject, writeFiles } from "./settings-fixture.ts";

const t = tempProject("yoke-bash-bypass-");
afterAll(t.cleanup);
writeFiles(t.cwd, { ".env": "T=1", "secrets/key.pem": "K", "protected/keep.txt": "k", "src/app.ts": "x", "tools/git": "#!/bin/sh\n" });
Bun.spawnSync(["git", "init", "-q"], { cwd: t.cwd });

const DENY: Perms = { deny: ["Read(./.env)", "Read(./secrets/**)", "Edit(./protected/**)", "Bash(rm:*)", "Bash(curl:*)"] };
const decide = bashDecider(t, DENY);
const notAllowed = (cmds: string[], o: Parameters<typeof decide>[1] = {}) => {
  for (const c of cmds) expect({ c, d: decide(c, o).behavior }).not.toEqual({ c, d: "allow" });
};
const allowed = (cmds: string[], o: Parameters<typeof decide>[1] = {}) => {
  for (const c of cmds) expect({ c, d: decide(c, o).behavior }).toEqual({ c, d: "allow" });
};

describe("class 1: environment assignments in front of a read-only command", () => {
  test("the issue's git config injection and its siblings are never read-only", () => {
    const cmds = [
      "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='rm -rf protected' git status",
      "GIT_CONFIG_PARAMETERS=\"'core.fsmonitor'='rm -rf protected'\" git status",
      "GIT_EXTERNAL_DIFF=./tools/git git diff",
      "LESSOPEN='|rm -rf protected %s' less README.md",
      "PATH=./tools git status",
      "MAGIC=./tools/git file src/app.ts",
      "GIT_PAGER='rm -rf protected' git log",
      "GIT_DIR=secrets git log",
      "LD_PRELOAD=./tools/x.so ls",
      "BASH_ENV=./tools/git cat src/app.ts",
      "env GIT_CONFIG_PARAMETERS=\"'core.pager'='touch x'\" git log",
      "env -i PATH=./tools git status",
      "PAGER=x git status",
      "GIT_SSH_COMMAND=x git status",
      "LD_LIBRARY_PATH=./tools ls",
      "PYTHONPATH=. git status",
      "GIT_CONFIG_GLOBAL=./tools/cfg git status",
      "GIT_CONFIG_SYSTEM=./tools/cfg git log",
      "A=1 git status",
    ];
    notAllowed(cmds);
    notAllowed(cmds, { mode: "acceptEdits" });
  });
  test("a standalone assignment or export changes what later commands run", () => {
    notAllowed([
      "PATH=./tools; git status",
      "PATH=./tools:$PATH; git status",
      "export PATH=./tools; git status",
      "GIT_CONFIG_PARAMETERS=\"'core.pager'='touch x'\"; export GIT_CONFIG_PARAMETERS; git log",
      "declare -x GIT_DIR=secrets; git log",
      "set -a; GIT_DIR=secrets; git log",
      "printf -v PATH ./tools; git status",
      "read PATH < src/app.ts; git status",
      "GIT_DIR=secrets git log",
    ]);
  });
  test("names that change only formatting keep a command read-only", () => {
    allowed(["LANG=C ls", "LC_ALL=C sort src/app.ts", "TZ=UTC date", "NO_COLOR=1 git status", "x=src/app.ts; cat $x"]);
  });
});

describe("class 9: secrets in the environment need approval, even where Bash is allowed", () => {
  const perms: Perms = { ...DENY, allow: ["Bash"] };
  const env = { ANTHROPIC_API_KEY: "sk-x", GITHUB_TOKEN: "t" };
  test("expanding a secret-looking variable, indirectly or not, or printing the environment asks", () => {
    for (const c of ["echo $ANTHROPIC_API_KEY", "echo ${GITHUB_TOKEN:0:4}", "x=ANTHROPIC_API_KEY; echo ${!x}", "echo ${!ANTH*}", "bash -c 'echo $GITHUB_TOKEN'"])
      expect({ c, d: decide(c, { perms, env }).behavior }).toEqual({ c, d: "ask" });
    // Printing the whole environment asks unless an allow rule says it may run.
    for (const c of ["printenv", "env", "export -p"]) expect({ c, d: decide(c, { env }).behavior }).toEqual({ c, d: "ask" });
  });
  test("special parameters and plain variables are no secrets", () => {
    allowed(["sleep 1 & echo $!; wait", "false; echo $?", "set -- a; echo $1", "echo $HOME $PATH"], { perms, env });
  });
});

describe("class 2: a cd that may not run leaves both directories possible", () => {
  test("relative paths are checked in every directory the shell may be in", () => {
    for (const c of ["false && cd src; cat secrets/key.pem", "(cd src); cat .env", "f() { cd src; }; cat secrets/key.pem"])
      expect({ c, d: decide(c).behavior }).toEqual({ c, d: "deny" });
  });
  test("ordinary cd chains stay allowed", () => {
    allowed(["cd src && cat app.ts", "cd src && ls", "pushd src && ls && popd", "cd src; cat app.ts"]);
  });
  test("the earlier directory stays possible, so a cd back up past the project asks (fail-closed, a known cost)", () => {
    notAllowed(["cd src && ls && cd .. && ls"]);
  });
});
