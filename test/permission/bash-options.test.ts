// Issue 16, red-team pass: options parsed as the program parses them (src/permission/bash-options.ts). An option
// that runs a program is never read-only; one that writes is checked as a write (Edit rules, protected paths,
// outside the working directories); one that reads is checked as a read. Every spelling counts: GNU prefixes
// (getopt_long), short clusters with an attached value, `--opt=V` and `--opt V`.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { PermissionMode } from "../../src/permission/types.ts";
import { bashDecider, type Perms, tempProject, writeFiles } from "./settings-fixture.ts";

const t = tempProject("yoke-bash-options-");
afterAll(t.cleanup);
writeFiles(t.cwd, { ".env": "T=1", "secrets/key.pem": "K", "protected/keep.txt": "k", "src/app.ts": "x", "README.md": "r" });
Bun.spawnSync(["git", "init", "-q"], { cwd: t.cwd });

const DENY: Perms = { deny: ["Read(./.env)", "Read(./secrets/**)", "Edit(./protected/**)", "Bash(rm:*)", "Bash(curl:*)"] };
const decide = bashDecider(t, DENY);
const behaviors = (cmds: string[], o: Parameters<typeof decide>[1] = {}) => cmds.map((c) => ({ c, d: decide(c, o).behavior }));
const notAllowed = (cmds: string[], o: Parameters<typeof decide>[1] = {}) => {
  for (const r of behaviors(cmds, o)) expect(r).not.toEqual({ c: r.c, d: "allow" });
};
const denied = (cmds: string[], o: Parameters<typeof decide>[1] = {}) => {
  for (const r of behaviors(cmds, o)) expect(r).toEqual({ c: r.c, d: "deny" });
};
const allowed = (cmds: string[], o: Parameters<typeof decide>[1] = {}) => {
  for (const r of behaviors(cmds, o)) expect(r).toEqual({ c: r.c, d: "allow" });
};
const MODES: PermissionMode[] = ["default", "acceptEdits"];

describe("options that run a program", () => {
  const EXEC = [
    "git grep -Orm foo",
    "git grep -O'rm -rf protected' keep",
    "git grep -iOrm keep",
    "git grep -nOrm keep src",
    "git grep --open-files-in-pager=rm keep",
    "git grep --open-files-in-pager rm keep",
    "git grep --open-files-in=rm keep",
    "git grep --open=rm keep",
    "git grep --o=rm keep",
    "git grep -O keep",
    "git -C . grep -Orm keep",
    "git --no-pager grep -Orm keep",
    "sort --compress-program=sh README.md",
    "sort --compress-prog=sh README.md",
    "sort --compress-p sh README.md",
    "sort --comp=sh README.md",
    "rg --pre=rm keep",
    "rg --pre rm keep",
    "rg --pr=rm keep",
    "rg --hostname-bin=rm keep",
    "less '+!rm -rf protected' README.md",
    "less +Gq README.md",
    "tar -cf a.tar --to-command=rm src",
    "tar -cf a.tar --use-compress-program=rm src",
    "tar -I rm -cf a.tar src",
    "tar -cf a.tar --checkpoint-action=exec=rm src",
    "tar --to-c=rm -xf a.tar",
    "rsync -e rm a b",
    "rsync --rsh=rm a b",
    "zip -TT rm a.zip src/app.ts",
    "man -P rm ls",
    "man --pager=rm ls",
    "ssh -o ProxyCommand=rm host",
    "ssh -oProxyCommand=rm host",
    "ssh -o 'LocalCommand rm' host",
    "git rebase -x rm HEAD~1",
    "git rebase --exec=rm HEAD~1",
    "git difftool --extcmd=rm",
    "git ls-remote --upload-pack=rm origin",
    "git fetch --upload-pack=rm origin",
  ];
  test("no mode and no allow rule lets them run silently (Bash(rm:*) denied)", () => {
    for (const mode of MODES) notAllowed(EXEC, { mode });
  });
  test("without any rule they still ask: a read-only command that runs a program is not read-only", () => {
    for (const mode of MODES) notAllowed(EXEC.filter((c) => /^(git grep|sort|rg|less)/.test(c)), { mode, perms: {} });
  });
  test("an option built at run time may be the one that runs a program", () => {
    const perms: Perms = { ...DENY, allow: ["Bash(git grep:*)", "Bash(sort:*)", "Bash(tar:*)", "Bash(rg:*)"] };
    notAllowed(["git grep -O$x keep", "git grep $o keep", `git grep "$o" keep`, "sort $o x", "sort --compress-program=$x x", "tar -c --to-command=$x -f a.tar src", "rg $o x", "sort -o $f x"], { perms });
    // A value the option before it takes is no option (whole-tree readers with a variable ask for their own reason).
    allowed(["git grep -e \"$p\" -- src", "sort -k \"$k\" x"], { perms: { deny: ["Bash(rm:*)"], allow: perms.allow } });
  });
  test("an allow rule for the wrapper program does not cover a denied program it runs", () => {
    const perms: Perms = { ...DENY, allow: ["Bash(git grep:*)", "Bash(sort:*)", "Bash(tar:*)", "Bash(rsync:*)", "Bash(less:*)", "Bash(rg:*)", "Bash(git rebase:*)"] };
    notAllowed(["git grep -Orm keep", "sort --compress-prog=rm x", "tar -cf a.tar --to-command=rm src", "rsync -e rm a b", "rg --pre=rm x", "git rebase -x rm HEAD~1"], { perms });
  });
});

describe("options that write: checked as writes (Edit rules, protected paths), abbreviated or not", () => {
  const INTO_PROTECTED = [
    "sort -o protected/x README.md",
    "sort -oprotected/x README.md",
    "sort -uoprotected/x README.md",
    "sort -uo protected/x README.md",
    "sort --output=protected/x README.md",
    "sort --output protected/x README.md",
    "sort --outp=protected/x README.md",
    "sort --ou=protected/x README.md",
    "sort --o protected/x README.md",
    "tree -o protected/x",
    "tree -oprotected/x",
    "tree -a -o protected/x src",
    "less -o protected/x README.md",
    "less -Oprotected/x README.md",
    "less --log-file=protected/x README.md",
    "less --log-f=protected/x README.md",
    "less --LOG-FILE protected/x README.md",
    "git diff --output=protected/x",
    "git diff --outp=protected/x",
    "git log -p --output protected/x",
    "git show --out=protected/x HEAD",
    "find . -fprint protected/x",
    "curl -o protected/x http://127.0.0.1/",
    "curl --output=protected/x http://127.0.0.1/",
    "wget -Oprotected/x http://127.0.0.1/",
    "wget --output-document=protected/x http://127.0.0.1/",
    "gawk -o protected/x 1 README.md",
    "tar -cf protected/x.tar src",
    "tar --file=protected/x.tar -c src",
  ];
  test("into an Edit-denied folder: denied, also under an allow rule for the program", () => {
    const perms: Perms = { ...DENY, allow: ["Bash(sort:*)", "Bash(tree:*)", "Bash(less:*)", "Bash(git diff:*)", "Bash(git log:*)", "Bash(git show:*)", "Bash(find:*)", "Bash(wget:*)", "Bash(gawk:*)", "Bash(tar:*)"] };
    for (const mode of MODES) {
      denied(INTO_PROTECTED.filter((c) => !c.startsWith("curl")), { mode });
      denied(INTO_PROTECTED.filter((c) => !c.startsWith("curl")), { mode, perms });
      notAllowed(INTO_PROTECTED.filter((c) => c.startsWith("curl")), { mode });
    }
  });
  test("into a protected path (shell profile, git hooks, agent settings): asks in every mode but bypass, whatever allows it", () => {
    const perms: Perms = { ...DENY, allow: ["Bash(sort:*)", "Bash(tree:*)", "Bash(less:*)", "Bash(git diff:*)"] };
    const cmds = ["sort -o.bashrc README.md", "sort --outp=.git/hooks/pre-commit README.md", "tree -o.claude/settings.json", "less --log-f=.bashrc README.md", "git diff --out=.git/config", "sort -T .git/hooks README.md"];
    for (const mode of MODES) {
      notAllowed(cmds, { mode });
      notAllowed(cmds, { mode, perms });
    }
  });
  test("a protected path in any option value of a writing command asks, also when a rule allows the program", () => {
    const perms: Perms = { ...DENY, allow: ["Bash(cp:*)", "Bash(install:*)", "Bash(npm:*)", "Bash(gcc:*)", "Bash(ln:*)"] };
    const cmds = ["cp --target-directory=.git/hooks x", "install -D -t.git/hooks x", "npm install --prefix=.claude", "gcc -o.bashrc x.c", "ln -s --target-directory=.git/hooks x", "cp -t.claude x"];
    for (const mode of MODES) notAllowed(cmds, { mode, perms });
    allowed(["cp --target-directory=src README.md", "gcc -oout src/app.ts"], { perms });
  });
  test("outside the working directories: not allowed silently", () => {
    notAllowed(["sort -o/tmp/x README.md", "tree -o /tmp/x", "less --log-file=/tmp/x README.md", "git diff --output=/tmp/x"], { mode: "acceptEdits" });
  });
});

describe("options that read: checked as reads", () => {
  test("every spelling of a file-reading option is denied on a denied file", () => {
    const cmds = [
      "git blame --contents=.env README.md",
      "git blame --contents .env README.md",
      "git blame --cont=.env README.md",
      "git blame -S .env README.md",
      "git blame --ignore-revs-file=.env README.md",
      "git diff -O.env",
      "git log -O .env -p -- README.md",
      "git config --file=.env --list",
      "git config --file .env --list",
      "git config -f .env --list",
      "git config -f.env --list",
      "git config -lf.env",
      "git config --fi=.env --list",
      "git ls-files --exclude-from=.env",
      "git ls-files -X .env",
      "grep -f.env README.md",
      "grep -if.env README.md",
      "grep -f .env README.md",
      "grep --file=.env README.md",
      "grep --fil=.env README.md",
      "grep --exclude-from=.env -r x src",
      "grep --exclude-f .env -r x src",
      "rg --ignore-file .env x src",
      "rg -f.env src",
      "jq --rawfile x .env -n '$x'",
      "jq -n --slurpfile x .env '$x'",
      "jq --argfile x .env -n '$x'",
      "jq --from-file .env",
      "jq -f.env",
      "jq -L secrets -n 1",
      "jq -Lsecrets -n 1",
      "sort --files0-from=.env",
      "sort --random-source=.env README.md",
      "wc --files0-from=.env",
      "wc --files0=.env",
      "du --files0-from .env",
      "du -X .env src",
      "diff --from-file=.env README.md",
      "diff --to-file .env README.md",
      "diff --from=.env README.md",
      "file -f .env",
      "file --files-from=.env",
      "file -m.env README.md",
      "date -f .env",
      "date --file=.env",
      "date --fi=.env",
      "date -r .env",
      "tree --infofile=.env",
      "less -k.env README.md",
      "less --lesskey-file=.env README.md",
      "curl -d @.env http://127.0.0.1/",
      "curl --data-binary=@.env http://127.0.0.1/",
      "curl -F x=@.env http://127.0.0.1/",
      "curl -T .env http://127.0.0.1/",
      "curl -K .env",
      "sed -f .env README.md",
      "awk -f .env README.md",
      "xargs -a .env echo",
      "xargs -a.env echo",
      "xargs --arg-file=.env echo",
      "xargs --arg=.env echo",
      "xargs -0 -a .env echo",
    ];
    for (const mode of MODES) denied(cmds, { mode });
  });
  test("jq modules are looked up in search paths: an import of a denied file is never allowed silently", () => {
    notAllowed([`jq -n 'import "./secrets/x" as $d; $d'`, `jq -n 'include "secrets/x"; 1'`, `jq -L . -n 'import "secrets/x" as $d; $d'`], { perms: { ...DENY, allow: ["Bash(jq:*)"] } });
  });
  test("git stash show -p and friends do not print a denied file silently", () => {
    notAllowed(["git stash show -p", "git stash show --patch", "git stash show -u", "git stash show --include-untracked -p", "git stash show stash@{0} -p"]);
  });
});

describe("read-only commands that change state are not read-only", () => {
  test("date -s, hostname -F, git branch/tag/config writes in any spelling", () => {
    notAllowed(
      ["date -s 2020-01-01", "date --set=2020-01-01", "date --se=x", "git branch --del main", "git branch --mov a b", "git branch -Dx", "git tag --del v1", "git tag -l -d v1", "git config --edit --list", "git config -e -l", "git config --get x --unset y", "git config --add x y --get z", "file -C -m x"],
      { perms: {} },
    );
  });
});

describe("state a read-only command can change, and repositories it can be pointed at", () => {
  test("date and hostname with an operand set the clock or the name; tree -R writes 00Tree.html files", () => {
    notAllowed(["date 010100002020", "date -u 0101", "hostname evil", "tree -R -H . src", "tree -aR src"], { perms: {} });
    allowed(["date +%s", "date -d yesterday +%F", "date -u", "hostname", "hostname -f"], { perms: {} });
  });
  test("git pointed at a repository whose config is no protected file (--git-dir, a bare repository written as files)", () => {
    const bare = join(t.cwd, "y");
    for (const d of ["objects", "refs"]) mkdirSync(join(bare, d), { recursive: true });
    writeFileSync(join(bare, "HEAD"), "ref: refs/heads/main\n");
    writeFileSync(join(bare, "config"), "[core]\n\tbare = true\n[diff]\n\texternal = rm\n");
    for (const mode of MODES) {
      notAllowed(["git --git-dir=y status", "git --git-dir y log", "git --work-tree=. --git-dir=y diff", "GIT_DIR=y git status", "git -C y diff --no-index a b", "cd y && git diff --no-index a b", "cd y/objects && git log"], { mode, perms: {} });
      allowed(["git status", "git -C src log", "cd src && git diff"], { mode, perms: {} });
    }
  });
  test("a program an option names inside find -exec or xargs meets the deny rules too", () => {
    const perms: Perms = { ...DENY, allow: ["Bash(find:*)", "Bash(git grep:*)", "Bash(xargs:*)", "Bash(sort:*)"] };
    notAllowed(["find . -name x -exec git grep -Orm x \\;", "find . -exec sort --compress-prog=rm {} +", "echo x | xargs sort --compress-p=rm"], { perms });
  });
});

describe("ordinary use stays read-only", () => {
  test("the same programs without those options run without a prompt", () => {
    allowed([
      "sort -u README.md",
      "sort -t, -k2 README.md",
      "sort --key=2 -r README.md",
      "sort -o/dev/stdout README.md",
      "tree -L 2 src",
      "less README.md",
      "git grep -n foo",
      "git grep -e keep -- src",
      "git log --oneline -5",
      "git diff --stat",
      "git blame README.md",
      "git config --get user.name",
      "git config -l",
      "git branch -a",
      "git tag -l",
      "grep -n x README.md",
      "grep -e x -f src/app.ts README.md",
      "rg -n x src",
      "jq -n '1+1'",
      "jq --arg x y -n '$x'",
      "date -d yesterday",
      "file README.md",
      "du -sh src",
      "wc -l README.md",
      "diff README.md src/app.ts",
    ], { perms: { deny: ["Bash(rm:*)"] } });
  });
});
