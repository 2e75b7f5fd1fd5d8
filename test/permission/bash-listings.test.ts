// Issue 16 review point 1: names under a denied folder are as hidden as its contents. With `Read(./secrets/**)`
// denied, a command that would print a name from inside `secrets/` (a recursive listing, a shell pattern, git's
// listings of the tree, the index and the history) is not auto-allowed: it asks (denied under dontAsk / headless).
// Listings that stay out of the folder still run. The evaluator decides in a real project; nothing runs here. The same
// attempts run end to end through the binary in test/e2e/attack-corpus.test.ts (and the sandboxed corpus, where the
// kernel shows the folder empty).
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createPermissionEvaluator } from "../../src/permission/index.ts";
import { bashDecider, type Perms, settingsOf, tempProject, writeFiles } from "./settings-fixture.ts";

const t = tempProject("yoke-bash-listings-");
afterAll(t.cleanup);
const files = { ".env": "T=1", "secrets/CANARY-name.pem": "K", "secrets/inner/note.txt": "n", "src/app.ts": "x", "src/lib/util.ts": "y", "docs/a.md": "a", "deep/er/vault/x.txt": "v", "README.md": "r" };
writeFiles(t.cwd, files);
symlinkSync("../secrets", join(t.cwd, "src/lnk"));
symlinkSync("secrets", join(t.cwd, "sec"));
const git = (...a: string[]) => Bun.spawnSync(["git", "-c", "user.name=t", "-c", "user.email=t@t", ...a], { cwd: t.cwd, env: { ...process.env, HOME: t.home, GIT_CONFIG_NOSYSTEM: "1" } });
git("init", "-q");
writeFileSync(join(t.cwd, ".gitignore"), "secrets/\n");
git("add", "src", "docs", "README.md", ".gitignore");
git("commit", "-qm", "init");

const DENY: Perms = { deny: ["Read(./.env)", "Read(./secrets/**)", "Bash(rm:*)"] };
const decide = bashDecider(t, DENY);
const notAllowed = (cmds: string[], o: Parameters<typeof decide>[1] = {}) => {
  const out = cmds.map((c) => ({ c, d: decide(c, o).behavior }));
  expect(out.filter((x) => x.d === "allow")).toEqual([]);
};
const allowed = (cmds: string[], o: Parameters<typeof decide>[1] = {}) => {
  const out = cmds.map((c) => ({ c, d: decide(c, o) }));
  expect(out.filter((x) => x.d.behavior !== "allow").map((x) => ({ c: x.c, reason: x.d.reason }))).toEqual([]);
};

describe("recursive listings over a folder holding a denied one", () => {
  test("the named ones and their spellings ask", () => {
    notAllowed([
      "ls -R", "ls -R .", "ls -lR", "ls -laR .", "ls --recursive", "ls -R -- .", "ls -R ./", "ls -R src/..", "ls -R \"$HOME/../proj\"",
      "find .", "find", "find . -name '*.pem'", "find . -type f", "find ./ -print", "find src/.. -maxdepth 2", "find -L src", "find src -follow",
      "tree", "tree .", "tree -a", "tree -L 2", "tree -l src",
      "du -a", "du", "du -ah .", "du -d 2 -a", "du -L src",
      "fd", "fd pem", "fd . .", "fdfind -H x .",
      "locate key", "plocate pem",
      "ls -RL src", "eza -T", "exa -R .",
      "dir -R", "vdir -R .",
    ]);
  });
  test("every part and every wrapper: cd chains, subshells, shells, xargs, env, quoting", () => {
    notAllowed([
      "cd src && cd .. && ls -R", "cd src; ls -R ..", "cd docs && find ..", "(cd src && find ..)", "pushd src && ls -R ..",
      "(ls -R)", "{ find .; }", "bash -c 'ls -R'", "sh -c \"find .\"", "echo $(find .)", "x=$(ls -R); echo \"$x\"",
      "echo . | xargs ls -R", "echo . | xargs find", "printf . | xargs -I{} tree {}",
      "env find .", "timeout 5 find .", "nice -n 5 tree", "command ls -R", "D=.; ls -R $D", "ls -R \"$D\"", "find \"$PWD\"",
      "\"ls\" -R", "l\\s -R", "ls '-R'", "find '.'", "f\"ind\" .", "true && find .", "false || tree", "for d in .; do find $d; done",
    ]);
  });
  test("an allow rule for the program does not lift it; dontAsk denies", () => {
    expect(decide("find .", { perms: { ...DENY, allow: ["Bash(find:*)", "Bash(ls:*)"] } }).behavior).toBe("ask");
    expect(decide("ls -R", { perms: { ...DENY, allow: ["Bash(ls:*)"] } }).behavior).toBe("ask");
    expect(decide("tree", { mode: "dontAsk" }).behavior).toBe("deny");
    expect(decide("find .", { mode: "acceptEdits" }).behavior).toBe("ask");
  });
  test("the reason names the folder and the rule", () => {
    const d = decide("find .");
    expect(d.reason).toContain(join(t.cwd, "secrets"));
    expect(d.rule?.text).toBe("Read(./secrets/**)");
  });
  test("listings that stay out of the denied folder still run", () => {
    allowed([
      "ls", "ls -la", "ls -R src", "ls -R docs src/lib", "find src -name '*.ts'", "find docs", "tree src", "du -sh .", "du -s", "du -sh src",
      "find . -maxdepth 1", "tree -L 1", "du -d 0", "du -d 1 -a", "find src -type f | wc -l", "ls -R src/lib", "find src",
    ]);
    // A file rule's own name is what the rule says, not a name hidden in a folder.
    allowed(["find . -name '*.env'"], { perms: { deny: ["Read(./.env)"] } });
  });
  test("a denied folder matched by a glob rule, deeper down", () => {
    const perms = { deny: ["Read(**/vault/**)"] };
    notAllowed(["find .", "ls -R deep", "tree deep/er", "echo deep/er/vault/*"], { perms });
    allowed(["find src", "ls -R docs", "find deep -maxdepth 2"], { perms });
  });
});

describe("shell patterns that expand to names inside the folder", () => {
  test("in any command, loop, array or case, through links", () => {
    notAllowed([
      "echo secrets/*", "echo */*", "echo s*/*", "echo */*.pem", "printf '%s\\n' secrets/*", "echo sec/*", "echo src/lnk/*",
      "echo ./secrets/*", "echo secrets/*/*", "echo */inner/*", "echo {secrets,src}/*", "echo secret?/*", "echo [s]ecrets/*",
      "for f in secrets/*; do echo \"$f\"; done", "a=(secrets/*); echo \"${a[@]}\"", "cd src && echo ../secrets/*", "true > secrets/*",
      "echo $(echo secrets/*)", "bash -c 'echo secrets/*'", "x='secrets/*'; echo $x", "echo \"$(ls -d */*)\"", "stat */*",
    ]);
  });
  test("patterns outside it, quoted ones and top-level names still run", () => {
    allowed(["echo *", "echo src/*", "echo 'secrets/*'", "echo \"secrets/*\"", "ls *.md", "echo */*.ts", "echo s*"]);
  });
});

describe("git's listings of the work tree, the index and the history", () => {
  test("untracked and ignored names under the folder ask", () => {
    notAllowed(["git status --ignored", "git status -uall", "git status -u", "git status --untracked-files=all", "git ls-files -o", "git ls-files --others --ignored --exclude-standard", "git ls-files -oi --exclude-standard", "git -C . status --ignored", "git clean -n"]);
    // Collapsed (`secrets/` ignored), plain status and ls-files show none of its names.
    allowed(["git status", "git status --short", "git ls-files", "git log --stat", "git diff --stat"]);
  });
  test("once a file under the folder is tracked (or was ever committed), listings of the index and history ask", () => {
    const c = tempProject("yoke-bash-listings-git-");
    try {
      for (const [f, v] of Object.entries({ "secrets/CANARY-name.pem": "K", "src/app.ts": "x" })) {
        mkdirSync(join(c.cwd, f, ".."), { recursive: true });
        writeFileSync(join(c.cwd, f), v);
      }
      const g = (...a: string[]) => Bun.spawnSync(["git", "-c", "user.name=t", "-c", "user.email=t@t", ...a], { cwd: c.cwd, env: { ...process.env, HOME: c.home, GIT_CONFIG_NOSYSTEM: "1" } });
      g("init", "-q");
      g("add", "-A");
      g("commit", "-qm", "secrets committed");
      const ev = (perms: Perms) => (command: string) =>
        createPermissionEvaluator({ settings: settingsOf({ ruleRoot: c.cwd, permissions: perms }), cwd: c.cwd, env: c.env }).decide({ toolName: "Bash", input: { command }, readOnly: false, cwd: c.cwd }).behavior;
      const d = ev({ deny: ["Read(./secrets/**)"] });
      for (const cmd of ["git ls-files", "git status", "git ls-tree -r HEAD", "git ls-tree HEAD secrets/", "git log --stat", "git log --name-only", "git show --name-status HEAD", "git whatchanged", "git diff --stat HEAD~0"])
        expect({ cmd, d: d(cmd) }).not.toEqual({ cmd, d: "allow" });
      // Untracked later: the index is clean, the history still names it.
      g("rm", "-rq", "--cached", "secrets");
      g("commit", "-qm", "untrack");
      for (const cmd of ["git log --stat", "git log --all --name-only", "git ls-tree -r HEAD~1"]) expect({ cmd, d: d(cmd) }).not.toEqual({ cmd, d: "allow" });
      expect(d("git ls-files")).toBe("allow");
      // Pathspecs that keep away from the folder bound the listing; the reason never names a file inside it.
      for (const cmd of ["git log --stat -- src", "git show --name-only HEAD~1 -- src/app.ts"]) expect({ cmd, d: d(cmd) }).toEqual({ cmd, d: "allow" });
      for (const cmd of ["git log --stat -- .", "git log --stat -- secrets", "git log --name-only -- 'secr*'"]) expect({ cmd, d: d(cmd) }).not.toEqual({ cmd, d: "allow" });
      const reason = createPermissionEvaluator({ settings: settingsOf({ ruleRoot: c.cwd, permissions: { deny: ["Read(./secrets/**)"] } }), cwd: c.cwd, env: c.env }).decide({ toolName: "Bash", input: { command: "git log --stat" }, readOnly: false, cwd: c.cwd }).reason;
      expect(reason).not.toContain("CANARY");
    } finally {
      c.cleanup();
    }
  });
});
