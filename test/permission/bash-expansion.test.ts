// Issue 16, red-team pass: expansion and control flow the checker must follow. Brace expansion with quoted
// elements, glob forms that can match a denied file, variables with several possible values, directories that
// may or may not change. Each class with variants beyond the red team's examples.
import { afterAll, describe, expect, test } from "bun:test";
import { braceExpand, unescapePattern } from "../../src/permission/bash-braces.ts";
import type { PermissionMode } from "../../src/permission/types.ts";
import { bashDecider, type Perms, tempProject, writeFiles } from "./settings-fixture.ts";

const t = tempProject("yoke-bash-expansion-");
afterAll(t.cleanup);
writeFiles(t.cwd, { ".env": "T=1", "secrets/key.pem": "K", "secrets/inner/n.txt": "N", "protected/keep.txt": "k", "src/app.ts": "x", x: "x" });

const DENY: Perms = { deny: ["Read(./.env)", "Read(./secrets/**)", "Edit(./protected/**)", "Bash(rm:*)", "Bash(git push:*)"] };
const decide = bashDecider(t, DENY);
const MODES: PermissionMode[] = ["default", "acceptEdits"];
const notAllowed = (cmds: string[], o: Parameters<typeof decide>[1] = {}) => {
  for (const mode of o.mode ? [o.mode] : MODES)
    for (const c of cmds) expect({ c, mode, d: decide(c, { ...o, mode }).behavior }).not.toEqual({ c, mode, d: "allow" });
};
const allowed = (cmds: string[], o: Parameters<typeof decide>[1] = {}) => {
  for (const c of cmds) expect({ c, d: decide(c, o).behavior }).toEqual({ c, d: "allow" });
};

describe("brace expansion, as bash does it", () => {
  test("braceExpand: lists, nesting, sequences, quoted commas and braces stay", () => {
    const ex = (p: string) => braceExpand(p)?.map(unescapePattern);
    expect(ex("{.env,x}")).toEqual([".env", "x"]);
    expect(ex("a{b,c{d,e}}f")).toEqual(["abf", "acdf", "acef"]);
    expect(ex("{01..07..3}")).toEqual(["01", "04", "07"]);
    expect(ex("{c..a}")).toEqual(["c", "b", "a"]);
    expect(ex("x{a\\,b}")).toEqual(["x{a,b}"]);
    expect(ex("{a}")).toEqual(["{a}"]);
    expect(ex("{r,}m")).toEqual(["rm", "m"]);
    expect(braceExpand("{1..100000}")).toBeUndefined();
    expect(braceExpand("{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}{o,p}{q,r}")).toBeUndefined();
  });
  test("quoted elements and other spellings reaching a denied file are never allowed", () => {
    notAllowed([
      `cat {".env",x}`,
      `cat {'.env',x}`,
      `cat {.e"nv",x}`,
      `cat {x,$'.env'}`,
      `cat {x,".e"nv}`,
      `cat .e{"n",x}v`,
      `cat .{e,f}nv`,
      `cat {x,{y,".env"}}`,
      `cat secret{s,}/key.pem`,
      `cat {"secrets/key.pem",x}`,
      `cat {secrets,x}/"key.pem"`,
      `cat {"secrets",x}/*`,
      `cat < {".env",x}`,
      `head -n1 {x,".env"}`,
      `grep -r T {src,"secrets"}`,
      `cp {".env",x} /tmp/out`,
      `tee {"protected/new",x} < x`,
      `echo hi > {"protected/new",x}`,
    ]);
  });
  test("a command name or subcommand built by braces still meets Bash deny rules", () => {
    notAllowed([`{"r",}m -rf protected`, `{r,}m -rf protected`, `git {"push",} origin`, `git {push,} origin`, `git p{u,}sh origin`], { perms: { ...DENY, allow: ["Bash(git:*)"] } });
  });
  test("ordinary brace use still runs", () => {
    allowed(["ls {src,x}", "cat src/{app.ts,x}", "echo {1..3}", "ls src/{a,b}*"], { perms: DENY });
  });
});

describe("glob forms that can match a denied file", () => {
  test("classes, ranges, negations, equivalence classes, character escapes", () => {
    notAllowed([
      "cat .en[[:alpha:]]",
      "cat .en[[:lower:][:digit:]]",
      "cat .[[:alpha:]]nv",
      "cat .[[=e=]]nv",
      "cat .[e-f]nv",
      "cat .[!x]nv",
      "cat .[^x]nv",
      "cat .e?v",
      "cat .??v",
      "cat .*",
      "cat ./.e*",
      `cat ".e"?v`,
      `cat '.e'*`,
      "cat sec*/*",
      "cat s?crets/k*",
      "cat secrets/**/n.txt",
      "cat */key.pem",
      "cat [s]ecrets/key.pem",
      "cat .\\en?",
    ]);
  });
  test("shell options that change what a pattern matches make the pattern unknown", () => {
    notAllowed(["shopt -s nocaseglob; cat .ENV", "shopt -s nocaseglob; cat .EN?", "shopt -s extglob; cat @(.env|x)", "shopt -s extglob; cat +(.e)nv", "shopt -s dotglob; cat *"]);
  });
});

describe("variables with several possible values", () => {
  test("an assignment that may not run makes the variable unknown or checks every value", () => {
    notAllowed([
      "f=.env; false && f=x; cat $f",
      "f=.env; true || f=x; cat $f",
      "f=x; true && f=.env; cat $f",
      "f=x; if false; then f=.env; fi; cat $f",
      "f=x; if true; then :; else f=.env; fi; cat $f",
      "f=x; if false; then :; elif f=.env; then :; fi; cat $f",
      "f=x; case a in b) f=.env;; esac; cat $f",
      "f=x; for i in 1 2; do cat $f; f=.env; done",
      "f=x; while read l; do cat $f; f=.env; done < x",
      "f=x; g() { cat $f; }; f=.env; g",
      "f=x; g() { f=.env; }; g; cat $f",
      "f=.env; (f=x); cat $f",
      "f=.env; f=x | true; cat $f",
      "f=.env; echo $(f=x); cat $f",
      "f=.env; { f=x; } & cat $f",
      "f=x; read f < x; cat $f",
      "f=x; printf -v f %s .env; cat $f",
      "f=x; eval f=.env; cat $f",
      "f=x; declare -n r=f; r=.env; cat $f",
      "f=x; unset f; cat ${f:-.env}",
      "HOME=$PWD/secrets; cat $HOME/key.pem",
      "f=$PWD/.env; cat $f",
      "f=x; source /dev/null; cat $f",
    ]);
  });
  test("a plain sequence of assignments is still followed", () => {
    allowed(["f=x; cat $f", "f=.env; f=x; cat $f", "d=src; cat $d/app.ts", "f=x; (cat $f)"]);
  });
});

describe("writes whose target is known only at run time", () => {
  test("ask in every mode but bypass, whatever allows the program", () => {
    const cmds = ["echo x > $(echo protected/x)", `echo x > "$(echo ~/.bashrc)"`, "printf x >> $F", "cat x > `echo protected/x`", "echo x | tee $(echo protected/x)", "sort -o $(echo protected/x) x", "f=$(echo protected/x); echo x > $f"];
    for (const mode of MODES) notAllowed(cmds, { mode, perms: { ...DENY, allow: ["Bash(echo:*)", "Bash(printf:*)", "Bash(cat:*)", "Bash(tee:*)", "Bash(sort:*)"] } });
    notAllowed(cmds, { mode: "acceptEdits", perms: {} });
    // A rule allowing all of Bash covers it (scratch files in a variable are ordinary work).
    allowed(["tmp=$(mktemp) && echo t > $tmp && cat $tmp"], { perms: { allow: ["Bash"] } });
  });
});

describe("directories the shell may or may not be in", () => {
  test("a cd that may fail, a cd in a subshell, pushd/popd, CDPATH", () => {
    notAllowed([
      "cd nothere || cat secrets/key.pem",
      "cd secrets || cat key.pem",
      "cd secrets; cat key.pem",
      "(cd x); cat secrets/key.pem",
      "(cd secrets); cat key.pem",
      "cd secrets | true; cat key.pem",
      "cd nothere && cd secrets; cat key.pem",
      "false && cd src; cat ../secrets/key.pem",
      "pushd secrets; popd; cat key.pem",
      "for d in secrets; do cd $d; done; cat key.pem",
      "CDPATH=.:secrets cd inner; cat n.txt",
      "cd -- secrets; cat key.pem",
      "cd -P -- secrets; cat key.pem",
      "pushd -- secrets; cat key.pem",
    ]);
  });
});
