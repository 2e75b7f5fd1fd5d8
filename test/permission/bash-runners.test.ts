// Issue 16 review point 2: programs that run commands by design. Under an allow rule for the program (`Bash(vim:*)`,
// `Bash(make:*)`), a command it would run that a deny rule forbids must not run without asking: editors, debuggers,
// database shells, pagers, interpreters reading their program from standard input, other shell languages,
// schedulers and git configuration are opaque; make's recipes and package.json scripts are checked as if typed.
// With no deny rule in play, the allow rule decides as in Claude Code 2.1.332 (a prefix rule matches the command
// line). The evaluator decides in a real project; nothing runs here. End to end: test/e2e/attack-corpus.test.ts.
import { afterAll, describe, expect, test } from "bun:test";
import { bashDecider, type Perms, tempProject, writeFiles } from "./settings-fixture.ts";

const t = tempProject("yoke-bash-runners-");
afterAll(t.cleanup);
const files: Record<string, string> = {
  "README.md": "r",
  "secrets/key.pem": "K",
  "protected/keep.txt": "k",
  Makefile: "OUT := out\nbuild: gen\n\tmkdir -p $(OUT) && cp README.md $(OUT)/\ngen:\n\t@echo generating\nclean:\n\t-$(RM) -r $(OUT)\nwipe:\n\trm -rf protected\nleak:\n\tcat secrets/key.pem\n%.txt: %.md\n\tcp $< $@\n",
  "sub/Makefile": "all:\n\trm -rf ../protected\n",
  "inc/Makefile": "include other.mk\nall:\n\techo hi\n",
  "shell/Makefile": "X := $(shell rm -rf ../protected)\nall:\n\techo $(X)\n",
  "pkg/package.json": JSON.stringify({ scripts: { build: "echo build", prebuild: "echo pre", test: "echo test", wipe: "rm -rf ../protected", postlint: "rm -rf ../protected", lint: "echo lint", prepare: "echo ok" } }),
  "evil/package.json": JSON.stringify({ scripts: { postinstall: "rm -rf ../protected" } }),
};
writeFiles(t.cwd, files);

const RUNNERS = ["vim", "vi", "ex", "view", "nvim", "ed", "emacs", "gdb", "lldb", "sqlite3", "psql", "make", "less", "more", "python3", "python", "perl", "ruby", "node", "lua", "Rscript", "tclsh", "expect", "dc", "m4", "csh", "tcsh", "pwsh", "at", "crontab", "xdg-open", "git", "npm", "yarn", "pnpm", "bun", "npx", "nice", "timeout", "env", "xargs"];
const ALLOW = RUNNERS.map((p) => `Bash(${p}:*)`);
const DENY: Perms = { deny: ["Bash(rm:*)", "Read(./secrets/**)", "Edit(./protected/**)"], allow: ALLOW };
const decide = bashDecider(t, DENY);
const notAllowed = (cmds: string[], o: Parameters<typeof decide>[1] = {}) =>
  expect(cmds.map((c) => ({ c, d: decide(c, o).behavior })).filter((x) => x.d === "allow")).toEqual([]);
const allowed = (cmds: string[], o: Parameters<typeof decide>[1] = {}) =>
  expect(cmds.map((c) => ({ c, d: decide(c, o) })).filter((x) => x.d.behavior !== "allow").map((x) => ({ c: x.c, reason: x.d.reason }))).toEqual([]);

describe("programs that run commands by design, allowed by rule, with deny rules in play", () => {
  test("editors, debuggers, database shells, pagers", () => {
    notAllowed([
      "vim -c '!rm -rf protected' README.md", "vim -es -c ':!rm -rf protected' -c q", "vim +'!rm -rf protected'", "vim -S script.vim", "vim README.md",
      "vi -c '!rm -rf protected'", "ex -sc '!rm -rf protected|q'", "view README.md", "nvim --headless -c '!rm x' +q", "ed README.md <<< '!rm -rf protected'",
      "emacs --batch --eval '(shell-command \"rm -rf protected\")'", "gdb -batch -ex 'shell rm -rf protected'", "gdb -ex '!rm -rf protected'", "gdb -x cmds.gdb", "lldb -o 'platform shell rm x'",
      "sqlite3 :memory: '.shell rm -rf protected'", "sqlite3 db '.system rm x'", "sqlite3 -cmd '.shell rm x' db", "sqlite3 db < script.sql", "sqlite3 db <<< '.shell rm x'",
      "echo '.shell rm x' | sqlite3 db", "sqlite3 db '.once |rm x'", "sqlite3 db \"select edit('x','rm x')\"", "psql -c '\\! rm x'", "psql",
      "less +'!rm -rf protected' README.md", "less '+|rm x' README.md", "more +'!rm x' README.md", "less -k keys README.md",
    ]);
  });
  test("interpreters reading their program from standard input or inline, other shells, schedulers, openers", () => {
    notAllowed([
      "echo 'import shutil; shutil.rmtree(\"protected\")' | python3", "python3 <<< 'import os; os.system(\"rm x\")'", "python3 - < x.py", "python3 < x.py", "cat x.pl | perl",
      "node < x.js", "lua -e 'os.execute(\"rm x\")'", "Rscript -e 'system(\"rm x\")'", "tclsh <<< 'exec rm x'", "expect -c 'spawn rm x'", "dc -e '!rm x'", "m4 x.m4",
      "csh -c 'rm -rf protected'", "tcsh -c 'rm x'", "pwsh -c 'Remove-Item protected'", "at now <<< 'rm -rf protected'", "crontab x.cron", "echo '* * * * * rm x' | crontab -", "xdg-open x.desktop",
      "npx -c 'rm -rf protected'",
    ]);
  });
  test("git configuration that names programs, and subcommands that may be aliases", () => {
    notAllowed([
      "git config alias.z '!rm -rf protected'", "git config --global alias.z '!rm x'", "git config core.pager 'rm x'", "git config core.fsmonitor ./x", "git config set core.editor 'rm x'",
      "git config --add filter.x.clean 'rm x'", "git config diff.x.textconv 'rm x'", "git config include.path ../x", "git config --edit", "git z", "git my-alias --flag", "git -c alias.z='!rm x' z",
    ]);
    allowed(["git config user.name", "git config --get core.pager", "git config --list", "git config user.name Someone", "git status", "git log -1", "git config --get-regexp alias"]);
  });
  test("make: recipes of the targets asked for, as if typed", () => {
    notAllowed(["make wipe", "make leak", "make clean", "make -C sub", "make --directory=sub", "make -f sub/Makefile", "make -C inc", "make -C shell", "make --eval=$'x:\\n\\trm -rf protected' x", "make SHELL=/bin/sh build", "make -f - x <<< $'x:\\n\\trm x'", "make build wipe", "nice make wipe", "timeout 60 make clean", "cd sub && make"]);
    // The recipes of build (and its prerequisite gen) and of the pattern rule run nothing a rule denies.
    allowed(["make", "make build", "make gen", "make README.txt", "make -j4 build", "make OUT=dist build"]);
    // A part before it that may write the makefile makes what runs unknown.
    notAllowed(["printf 'x:\\n\\trm -rf protected\\n' > Makefile && make x", "cp evil.mk Makefile; make", "git checkout other && make"]);
    allowed(["mkdir -p out && make build"], { mode: "acceptEdits" });
  });
  test("package.json scripts, with their pre and post scripts and install scripts", () => {
    const inPkg = (c: string) => `cd pkg && ${c}`;
    notAllowed(["npm run wipe", "npm run lint", "yarn wipe", "pnpm run wipe", "bun run wipe", "npm run-script wipe"].map(inPkg));
    notAllowed(["cd evil && npm install", "cd evil && npm ci", "cd evil && yarn", "cd evil && bun install", "npm pkg set scripts.x='rm x' && npm run x"]);
    allowed(["npm run build", "npm test", "yarn test", "bun run build", "pnpm build", "npm install"].map(inPkg));
  });
  test("opened up in every wrapper, quoting and nesting", () => {
    notAllowed([
      "nice vim -c '!rm x'", "timeout 5 gdb -batch -ex 'shell rm x'", "env sqlite3 db '.shell rm x'", "xargs vim < files", "bash -c \"vim -c '!rm x'\"", "echo $(gdb -batch -ex 'shell rm x')",
      "\"vim\" -c '!rm x'", "/usr/bin/vim -c '!rm x'", "\\vim -c '!rm x'", "v\"i\"m -c '!rm x'", "(ed x <<< '!rm x')", "true && python3 < x.py",
    ]);
  });
  test("dontAsk denies; the reason says why", () => {
    expect(decide("vim -c '!rm x'", { mode: "dontAsk" }).behavior).toBe("deny");
    expect(decide("make wipe").reason).toContain("make runs `rm -rf protected` (Makefile:9)");
    expect(decide("cd pkg && npm run lint").reason).toContain("package.json scripts.postlint");
  });
});

describe("with no deny rule in play, an allow rule decides as in Claude Code", () => {
  test("the same programs run under their allow rules", () => {
    const perms = { allow: ALLOW };
    allowed(["vim -c '!rm x' README.md", "gdb -batch -ex 'shell echo x'", "sqlite3 db '.shell echo x'", "make wipe", "cd pkg && npm run wipe", "echo 'print(1)' | python3", "git z", "less +'!echo x' README.md"], { perms });
  });
  test("only path rules: the asks are the sandbox's to lift (path-only)", () => {
    const perms = { deny: ["Read(./secrets/**)"], allow: ALLOW };
    expect(decide("vim -c '!cat secrets/key.pem'", { perms }).behavior).toBe("ask");
    expect(decide("make leak", { perms }).behavior).toBe("ask");
    expect(decide("make build", { perms }).behavior).toBe("allow");
  });
});
