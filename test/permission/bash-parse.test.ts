import { describe, expect, test } from "bun:test";
import { parseShell } from "../../src/permission/bash-parse.ts";
import { isReadOnlyCommand, unwrap } from "../../src/permission/bash-words.ts";

const words = (argv: { value: string; static: boolean; raw: string }[]) => argv.map((w) => (w.static ? w.value : `<${w.raw}>`)).join(" ");
const parse = (c: string, env: Record<string, string> = {}) => {
  const r = parseShell(c, { env, home: "/home/u" });
  if (!r.ok) throw new Error(r.reason);
  return r.commands.map((x) => words(x.argv));
};
const w = (...v: string[]) => v.map((value) => ({ value, raw: value, static: true, glob: false }));

describe("parseShell (contracts §3.1 compound commands)", () => {
  test("splits on && || ; | |& & and newlines", () => {
    expect(parse("a && b || c; d | e |& f & g\nh")).toEqual(["a", "b", "c", "d", "e", "f", "g", "h"]);
  });
  test("finds commands inside $(), backticks, <(), subshells, groups, if/for/while/case and functions", () => {
    expect(parse("echo $(a) `b` <(c)").sort()).toEqual(["a", "b", "c", "echo <$(a)> <`b`> <<(c)>"].sort());
    expect(parse("(a); { b; }; if c; then d; else e; fi; while f; do g; done; for i in 1; do h; done; case x in y) k;; esac; fn() { m; }").sort()).toEqual(
      ["a", "b", "c", "d", "e", "f", "g", "h", "k", "m"].sort(),
    );
  });
  test("quote removal, escapes, ~ and known variables", () => {
    expect(parse(`c'a't "x y" a\\ b ~/f`)).toEqual(["cat x y a b /home/u/f"]);
    expect(parse("F=.env; cat $F ${F}")).toEqual(["", "cat .env .env"]);
    expect(parse("cat $HOME/x $UNKNOWN")).toEqual(["cat /home/u/x <$UNKNOWN>"]);
    expect(parse("cat \"$P\"", { P: "/p" })).toEqual(["cat /p"]);
  });
  test("redirections and here-docs are recorded; here-doc substitutions are commands", () => {
    const r = parseShell("cat < in > out 2>&1 <<EOF\n$(id)\nEOF", { env: {}, home: "/h" });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.commands.map((c) => words(c.argv))).toEqual(["id", "cat"]);
    expect(r.commands[1]!.redirects.map((x) => `${x.op}${x.target?.value ?? ""}`)).toEqual(["<in", ">out", ">&1", "<<EOF"]);
  });
  test("syntax errors come back as data", () => {
    const r = parseShell("echo ((", { env: {}, home: "/h" });
    expect(r.ok).toBe(false);
    expect(parseShell("echo 'open", { env: {}, home: "/h" }).ok).toBe(false);
  });
});

describe("unwrap and read-only commands (contracts §3.1)", () => {
  test("wrappers are stripped", () => {
    expect(unwrap(w("timeout", "-s", "KILL", "5", "nice", "-n", "3", "nohup", "stdbuf", "-oL", "command", "rm", "x"), false).argv.map((x) => x.value)).toEqual(["rm", "x"]);
    expect(unwrap(w("env", "A=1", "-u", "B", "rm"), false)).toMatchObject({ assigns: ["A"] });
    expect(unwrap(w("sudo", "rm", "x"), true).argv[0]!.value).toBe("rm");
    expect(unwrap(w("sudo", "rm", "x"), false).argv[0]!.value).toBe("sudo");
    expect(unwrap(w("xargs", "-n", "1", "rm"), false).argv[0]!.value).toBe("xargs");
    expect(unwrap(w("xargs", "-n", "1", "rm"), true)).toMatchObject({ implicitArgs: true });
    expect(unwrap(w("xargs", "rm"), false).argv[0]!.value).toBe("rm");
  });
  test("read-only set", () => {
    for (const c of [["ls", "-la"], ["cat", "x"], ["git", "log"], ["find", ".", "-name", "x"], ["sort", "x"], ["grep", "-r", "x"]]) expect(isReadOnlyCommand(w(...c))).toBe(true);
    for (const c of [["rm", "x"], ["find", ".", "-delete"], ["sort", "-o", "y", "x"], ["git", "push"], ["rg", "--pre", "sh", "x"], ["npm", "test"]]) expect(isReadOnlyCommand(w(...c))).toBe(false);
  });
});
