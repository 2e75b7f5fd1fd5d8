// Issue 16, third red-team pass (by someone who did not write the permission engine): variants the corpora did not
// have, one describe per class found to get through. Each case ran without a prompt before its fix.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createPermissionEvaluator } from "../../src/permission/index.ts";
import type { PermissionMode } from "../../src/permission/types.ts";
import { bashDecider, type Perms, settingsOf, tempProject, writeFiles } from "./settings-fixture.ts";

const t = tempProject("yoke-red-team-");
afterAll(t.cleanup);
writeFiles(t.cwd, { ".env": "T=1", "secrets/key.pem": "K", "protected/keep.txt": "k", "src/app.ts": "x", "README.md": "r" });
Bun.spawnSync(["git", "init", "-q"], { cwd: t.cwd });

const DENY: Perms = { deny: ["Read(./.env)", "Read(./secrets/**)", "Edit(./protected/**)", "Bash(rm:*)", "Bash(curl:*)"] };
const decide = bashDecider(t, DENY);
const MODES: PermissionMode[] = ["default", "acceptEdits"];
const each = (cmds: string[], want: (d: string) => boolean, o: { perms?: Perms } = {}) => {
  for (const mode of MODES)
    for (const c of cmds) {
      const d = decide(c, { ...o, mode });
      expect({ c, mode, ok: want(d.behavior), reason: d.reason }).toMatchObject({ c, mode, ok: true });
    }
};
const notAllowed = (cmds: string[], o: { perms?: Perms } = {}) => each(cmds, (d) => d !== "allow", o);
const denied = (cmds: string[], o: { perms?: Perms } = {}) => each(cmds, (d) => d === "deny", o);
const allowed = (cmds: string[], o: { perms?: Perms } = {}) => each(cmds, (d) => d === "allow", o);

describe("the pattern of grep, rg, sed, awk, jq is told apart from files as their getopt does", () => {
  test("a pattern in an attached option value leaves every operand a file: the denied one is denied", () => {
    denied(["grep -eTOKEN .env", "grep -e. .env", "grep -ie. .env", "grep -ve^x .env", "grep -x -e. .env", "grep -c -e. secrets/key.pem", "egrep -e. .env", "fgrep -eT .env"]);
    denied(["grep --regexp=TOKEN .env", "grep --regex=. .env", "grep --reg=. .env", "grep --file=README.md .env", "grep -fREADME.md .env", "rg -e. .env", "rg --regexp=. .env"]);
  });
  test("sed and awk under an allow rule: the script in an option value leaves the file a file", () => {
    const perms: Perms = { deny: DENY.deny, allow: ["Bash(sed:*)", "Bash(awk:*)", "Bash(jq:*)"] };
    denied(["sed -ep .env", "sed -nep .env", "sed --expression=p .env", "sed --expr=p .env", "awk --source=1 .env", "awk -e1 .env", "jq -f/dev/null .env"], { perms });
  });
  test("an option's value taken for the pattern no longer hides that grep -r searches the working directory", () => {
    notAllowed([
      "grep -r --exclude-dir=src CANARY", "grep -r --include=* CANARY", "grep -r --include '*' CANARY", "grep -r --exclude-dir src CANARY", "grep -rn --color=never CANARY",
      "grep -r --max-count=5 CANARY", "grep -r -m 5 CANARY", "grep -r -A 1 CANARY", "grep -r --context 1 CANARY", "grep -r CANARY --exclude=x", "grep -rl CANARY --exclude=README.md",
      "rg -g '*' CANARY", "rg --glob '*' CANARY", "rg --glob=* CANARY", "rg -t sh CANARY", "rg --type-add 'x:*' CANARY", "rg -m 1 CANARY", "rg -A 1 CANARY", "rg --sort path CANARY", "rg -E utf8 CANARY",
    ]);
  });
  test("every spelling of grep's recursion: -d recurse, --directories, prefixes of --recursive", () => {
    notAllowed(["grep -d recurse CANARY .", "grep -drecurse CANARY .", "grep -d rec CANARY .", "grep --directories recurse CANARY .", "grep --directories=recurse CANARY", "grep --dir=recurse CANARY .", "grep --recur CANARY .", "grep --recursiv CANARY"]);
  });
  test("ordinary searches still run", () => {
    allowed(["grep -rn export src", "grep -e export -r src", "grep -r --include='*.ts' export src", "rg export src", "rg -l export src -g '*.ts'", "grep -c export src/app.ts README.md", "grep -n -A 2 export src/app.ts"]);
  });
});

describe("git listings of the history name what a denied folder held", () => {
  const h = tempProject("yoke-red-team-git-");
  afterAll(h.cleanup);
  const env = { ...process.env, HOME: h.home, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@example.invalid", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@example.invalid" };
  const git = (...args: string[]) => expect(Bun.spawnSync(["git", ...args], { cwd: h.cwd, env }).exitCode).toBe(0);
  const decideHere = (command: string) =>
    createPermissionEvaluator({ settings: settingsOf({ ruleRoot: h.cwd, permissions: DENY }), cwd: h.cwd, env: h.env }).decide({ toolName: "Bash", input: { command }, readOnly: false, cwd: h.cwd }).behavior;
  test("rev-list --objects and ls-files --with-tree ask; plain rev-list and ls-files run", () => {
    mkdirSync(join(h.cwd, "secrets"), { recursive: true });
    writeFileSync(join(h.cwd, "secrets/secret-name.txt"), "s");
    writeFileSync(join(h.cwd, "README.md"), "r");
    git("init", "-q");
    git("add", "-A");
    git("-c", "commit.gpgsign=false", "commit", "-qm", "one");
    git("rm", "-rq", "--cached", "secrets");
    git("-c", "commit.gpgsign=false", "commit", "-qm", "two");
    for (const c of ["git rev-list --objects --all", "git rev-list --objects-edge --all", "git rev-list --all --objects-edge-aggressive", "git ls-files --with-tree HEAD~1", "git ls-files --with-tree=HEAD~1"])
      expect({ c, d: decideHere(c) }).toEqual({ c, d: "ask" });
    for (const c of ["git rev-list --all", "git rev-list --count HEAD", "git ls-files", "git rev-list --objects --all -- README.md"]) expect({ c, d: decideHere(c) }).toEqual({ c, d: "allow" });
  });
});

describe("WebFetch: a denied host spelled as another address of the same machine", () => {
  const fetchDecision = (url: string, perms: Perms) =>
    createPermissionEvaluator({ settings: settingsOf({ ruleRoot: t.cwd, permissions: perms }), cwd: t.cwd, env: t.env }).decide({ toolName: "WebFetch", input: { url, prompt: "x" }, readOnly: true, cwd: t.cwd }).behavior;
  test("every loopback spelling is denied by WebFetch(domain:localhost), also a real tab inside the name", () => {
    const perms: Perms = { deny: ["WebFetch(domain:localhost)"], allow: ["WebFetch"] };
    for (const url of ["http://127.0.0.1:9/", "http://127.1:9/", "http://2130706433:9/", "http://0x7f000001:9/", "http://0177.0.0.1:9/", "http://[::1]:9/", "http://[0:0:0:0:0:0:0:1]:9/", "http://[::ffff:127.0.0.1]:9/", "http://0.0.0.0:9/", "http://0:9/", "http://[::]:9/", "http://app.localhost:9/", "http://localhost.localdomain:9/", "http://local\thost:9/"])
      expect({ url, d: fetchDecision(url, perms) }).toEqual({ url, d: "deny" });
    for (const url of ["https://example.com/", "http://10.0.0.1/", "http://[2001:db8::1]/"]) expect({ url, d: fetchDecision(url, perms) }).toEqual({ url, d: "allow" });
  });
  test("a rule naming an address covers its other spellings and its IPv4-mapped IPv6 form", () => {
    const perms: Perms = { deny: ["WebFetch(domain:10.0.0.1)", "WebFetch(domain:127.0.0.1)"], allow: ["WebFetch"] };
    for (const url of ["http://[::ffff:a00:1]/", "http://167772161/", "http://10.1/", "http://localhost:9/", "http://[::1]:9/"]) expect({ url, d: fetchDecision(url, perms) }).toEqual({ url, d: "deny" });
  });
});

describe("redirections of compound commands are file accesses", () => {
  test("a group, subshell, loop, if or case reading a denied file through its redirection is denied", () => {
    denied(["{ cat; } < .env", "(cat) < secrets/key.pem", "for i in 1; do cat; done < .env", "if true; then cat; fi < .env", "case x in x) cat;; esac < .env", "time (cat) < .env", "until false; do cat; break; done < .env", "(cat; cat) 0< .env"]);
  });
  test("writing a protected or Edit-denied path through one is denied or asks, in every mode", () => {
    denied(["{ echo x; } > protected/keep.txt", "(echo x) >> protected/keep.txt", "for i in 1; do echo x; done > protected/keep.txt", "if true; then echo x; fi >| protected/keep.txt", "{ echo x; } &> protected/keep.txt"]);
    notAllowed(["{ echo x; } 2>&1 >> ~/.bashrc", "(echo x) > .git/hooks/pre-commit", "{ echo '{}'; } > .claude/settings.json", "while false; do :; done > ~/.profile"]);
  });
  test("ordinary grouping still runs", () => {
    allowed(["(cd src && ls) > /dev/null", "{ ls; } 2>/dev/null", "{ cat README.md; echo; } | wc -l"]);
    expect(decide("{ ls; echo done; } > build.log", { mode: "acceptEdits" }).behavior).toBe("allow");
  });
});

describe("code held in a variable's value, run by arithmetic or a prompt expansion", () => {
  const none: Perms = { deny: [] };
  test("a value with a command substitution in a subscript, evaluated by any arithmetic context, asks (rules or none)", () => {
    const cmds = [
      "x='a[$(rm -rf protected)]'; echo $((x))", "x='a[$(cat .env >&2)]'; echo $(( x + 1 ))", "x='a[$(rm -rf protected)]'; (( x ))", "x='a[$(rm -rf protected)]'; let x",
      "x='a[$(rm -rf protected)]'; echo $[x]", "x='a[$(rm -rf protected)]'; echo ${y[x]}", "x='a[$(rm -rf protected)]'; echo ${z:x:1}", "x='a[$(rm -rf protected)]'; [[ $x -gt 0 ]]",
      "x='a[$(rm -rf protected)]'; declare -i y=x", "x='a[$(rm -rf protected)]'; arr[x]=1", "x='a[$(rm -rf protected)]'; for ((i=x;i<1;i++)); do :; done", "x='a[$(rm -rf protected)]'; y=x; echo $((y))",
      "unset 'a[$(rm -rf protected)]'", "test -v 'a[$(rm -rf protected)]'", "printf -v 'a[$(rm -rf protected)]' %s x", "x='$(rm -rf protected)'; echo ${x@P}", "x='`rm -rf protected`'; echo \"${x@P}\"",
      // Values read at run time (a file the repository ships may hold one).
      "x=$(cat README.md); echo $((x))", "read x < README.md; echo $((x))", "echo $(( $(cat README.md) ))", "for f in *; do echo $((f)); done", "echo 'a[$(rm -rf protected)]'; echo $(( $_ ))",
      "f() { echo $(( $1 )); }; f 'a[$(rm -rf protected)]'", "set -- 'a[$(rm -rf protected)]'; echo $(( $1 ))", "mapfile -t m < README.md; echo $(( m ))", "x=$(cat README.md); echo ${x@P}",
      "bash -c \"x='a[\\$(rm -rf protected)]'; echo \\$((x))\"",
    ];
    notAllowed(cmds);
    notAllowed(cmds, { perms: none });
  });
  test("arithmetic over numbers and known values still runs", () => {
    allowed([
      "echo $((6*7))", "x=5; echo $((x+1))", "for ((i=0;i<3;i++)); do echo $i; done", "for i in 1 2 3; do echo $((i*2)); done", "n=$(wc -l < README.md); echo $((n+1))",
      "echo $(( $(wc -l < README.md) + 1 ))", "a=(x y z); for i in 0 1 2; do echo ${a[i]}; done", "s=hello; echo ${s:1:2}", "x=3; [[ $x -eq 3 ]] && echo yes", "let x=1+2; echo $x",
      "echo $((RANDOM % 10))", "count=0; for f in src/*.ts; do count=$((count+1)); done; echo $count",
    ]);
  });
  test("the test builtin `[` is no pattern", () => {
    allowed(["[ -f README.md ] && echo yes", "i=1; [ $i -lt 3 ] && echo y"]);
  });
});

describe("substitutions the parser's walk did not enter", () => {
  test("array items and subscripts of assignments, slice offsets, extended globs", () => {
    denied(["a=($(cat .env)); echo ${a[@]}", "a=(x \"$(cat .env)\")", "a[$(cat .env)]=1", "a=([0]=$(cat .env))", "a+=($(cat .env))", "echo ${x:$(cat .env)}", "echo ${x:1:$(cat secrets/key.pem)}", "shopt -s extglob\necho @(x|$(cat .env))"]);
  });
});

describe("a folder that came with its .git: what its config and hooks make git run", () => {
  const repo = (config: string, hook?: string) => {
    const r = tempProject("yoke-red-team-repo-");
    Bun.spawnSync(["git", "init", "-q"], { cwd: r.cwd });
    writeFileSync(join(r.cwd, ".git", "config"), `[core]\n\trepositoryformatversion = 0\n\tbare = false\n${config}`);
    if (hook) writeFileSync(join(r.cwd, ".git", "hooks", "post-index-change"), hook, { mode: 0o755 });
    return r;
  };
  const decideIn = (r: ReturnType<typeof tempProject>, command: string, perms: Perms = DENY) =>
    createPermissionEvaluator({ settings: settingsOf({ ruleRoot: r.cwd, permissions: perms }), cwd: r.cwd, env: r.env }).decide({ toolName: "Bash", input: { command }, readOnly: false, cwd: r.cwd }).behavior;
  const cases: Array<[string, string | undefined]> = [
    ["\tfsmonitor = ./tools/evil.sh\n", undefined],
    ['[filter "x"]\n\tclean = ./tools/evil.sh\n', undefined],
    ["[diff]\n\texternal = ./tools/evil.sh\n", undefined],
    ['[diff "bin"]\n\ttextconv = ./tools/evil.sh\n', undefined],
    ["[core]\n\thooksPath = tools\n", undefined],
    ["[include]\n\tpath = ../extra.cfg\n", undefined],
    ["", "#!/bin/sh\ntouch PWNED\n"],
  ];
  test("git status, diff, log run no longer read-only, with deny rules in play or none", () => {
    for (const [config, hook] of cases) {
      const r = repo(config, hook);
      writeFileSync(join(r.cwd, "extra.cfg"), "[core]\n\tfsmonitor = ./tools/evil.sh\n");
      for (const c of ["git status", "git -C . diff"]) {
        expect({ config, hook, c, d: decideIn(r, c) }).toMatchObject({ d: "ask" });
        expect({ config, hook, c, d: decideIn(r, c, { deny: [] }) }).toMatchObject({ d: "ask" });
      }
      r.cleanup();
    }
  }, 120_000);
  test("a .git file pointing at a git directory elsewhere is followed", () => {
    const r = repo("\tfsmonitor = ./tools/evil.sh\n");
    mkdirSync(join(r.cwd, "sub"));
    writeFileSync(join(r.cwd, "sub", ".git"), `gitdir: ${join(r.cwd, ".git")}\n`);
    expect(decideIn(r, "cd sub && git status")).toBe("ask");
    r.cleanup();
  });
  test("the built-in fsmonitor, Git LFS filters, a pager and ordinary keys keep git read-only", () => {
    const r = repo('\tfsmonitor = true\n\thooksPath = .husky/_\n[filter "lfs"]\n\tclean = git-lfs clean -- %f\n\tprocess = git-lfs filter-process\n[core]\n\tpager = less -R\n[user]\n\tname = x\n[remote "origin"]\n\turl = https://example.com/x.git\n');
    for (const c of ["git status", "git diff", "git log --oneline"]) expect({ c, d: decideIn(r, c) }).toEqual({ c, d: "allow" });
    r.cleanup();
  });
});

describe("programs allowed by a rule of their own, with deny rules in play", () => {
  const perms: Perms = { deny: DENY.deny, allow: ["Bash(python3:*)", "Bash(node:*)", "Bash(perl:*)", "Bash(npm:*)", "Bash(pnpm:*)", "Bash(git:*)", "Bash(env:*)"] };
  test("inline code that builds its names at run time, npm's --script-shell, git submodule foreach and instaweb's programs, env -S quoting ask", () => {
    notAllowed([
      "python3 -c \"getattr(__import__('o'+'s'),'sys'+'tem')('rm -rf protected')\"", "python3 -c \"print(open('.e'+'nv').read())\"", "python3 -c \"eval(compile('x','f','exec'))\"",
      "node -e \"globalThis['requ'+'ire']('fs')\"", "node -e \"this.constructor.constructor('return process')()\"", "perl -e 'print `r`.`m`'", "perl -e '$f=\".e\".\"nv\"; print $f'",
      "npm test --script-shell=./tools/evil.sh", "npm run build --script-shell ./tools/evil.sh", "npm test --userconfig=./evil.npmrc", "pnpm test --script-shell=./x",
      "git submodule foreach 'rm -rf protected'", "git instaweb --httpd='sh -c x'", "git instaweb -b ./x",
      "env -S 'python3 -c import\\ shutil;shutil.rmtree(\"protected\")'",
    ], { perms });
  });
  test("plain one-liners still run", () => {
    allowed(["node -e \"console.log(1+1)\"", "python3 -c 'print(sum(range(10)))'", "npm test", "git submodule status", "env -S 'node -e 1'"], { perms });
  });
});

describe("what an archive or a program file writes and runs is not in the command line", () => {
  const perms: Perms = { deny: DENY.deny, allow: ["Bash(tar:*)", "Bash(unzip:*)", "Bash(sed:*)", "Bash(awk:*)", "Bash(patch:*)"] };
  test("extracting an archive or applying a patch asks under an allow rule; creating and listing run", () => {
    for (const mode of MODES) {
      for (const c of ["tar -xf x.tar", "tar xzf x.tgz", "tar --extract -f x.tar", "tar -xf x.tar -P", "tar -xf x.tar --transform 's,^,../,'", "unzip x.zip", "patch -p1 < x.patch"])
        expect({ c, mode, d: decide(c, { perms, mode }).behavior }).toEqual({ c, mode, d: "ask" });
      for (const c of ["tar -czf build/src.tgz src", "tar tzf build/src.tgz", "unzip -l x.zip"]) expect({ c, mode, d: decide(c, { perms, mode: "acceptEdits" }).behavior }).toEqual({ c, mode, d: "allow" });
    }
  });
  test("sed and awk with their program in a file ask", () => {
    notAllowed(["sed -f /dev/stdin README.md <<< 'e rm -rf protected'", "sed --file=x.sed README.md", "sed -nf x.sed README.md", "awk -f x.awk README.md", "awk --exec=x.awk README.md"], { perms });
  });
});
