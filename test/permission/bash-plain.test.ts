// Issue 21: a program and plain words are parsed without mvdan-sh (src/permission/bash-plain.ts). The permission
// engine must see exactly what the real parser gives, and every text with a character bash treats specially must
// still go to the parser: a shortcut that accepted one would be a way around the Bash rules.
import { describe, expect, test } from "bun:test";
import { parsePlain } from "../../src/permission/bash-plain.ts";
import { parseShell, parseShellWithParser } from "../../src/permission/bash-parse.ts";

const opts = { env: { HOME: "/home/u", X: "1" }, home: "/home/u" };

const ACCEPTED = [
  "mkdir made",
  "ls",
  "git status --short",
  "git log --oneline -n 5",
  "bun test src/a.test.ts",
  "npm run build:prod",
  "node dist/x.js --port=8080 --host=127.0.0.1",
  "dd if=/dev/zero of=out.bin bs=1M count=1",
  "cp a.txt b.txt",
  "rm -rf build",
  "curl -fsSL https://example.com/a/b@1.2,3+4%20",
  ". env.sh",
  ": nothing",
  "source env.sh",
  "eval ls",
  "cd sub",
  "echo  two  spaces",
  "2 3",
  "printf -v x y",
  "read x",
];

// Every character bash reads as more than a literal, and the first words that are not programs.
const SPECIAL = ["'", '"', "$", "`", "\\", ";", "&", "|", "<", ">", "(", ")", "{", "}", "[", "]", "*", "?", "~", "#", "!", "\n", "\t", "^", "\r", "é", "\u00a0"];
const NOT_PROGRAMS = ["if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until", "do", "done", "in", "function", "time", "coproc", "declare", "local", "export", "readonly", "typeset", "nameref", "let"];

describe("plain commands without the shell parser", () => {
  test.each(ACCEPTED)("%p parses exactly as the parser parses it", (cmd) => {
    const plain = parsePlain(cmd);
    expect(plain).not.toBeNull();
    expect(plain).toEqual(parseShellWithParser(cmd, opts));
    expect(parseShell(cmd, opts)).toEqual(parseShellWithParser(cmd, opts));
  });

  test("random plain commands agree with the parser", () => {
    // A fixed-seed generator: the same 400 inputs each run, so a failure can be replayed.
    let seed = 21;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const chars = "abcxyzABZ019_-./:@%+,=";
    for (let i = 0; i < 400; i++) {
      const words = Array.from({ length: 1 + rnd(5) }, () => Array.from({ length: 1 + rnd(8) }, () => chars[rnd(chars.length)]).join(""));
      const cmd = words.join(" ".repeat(1 + rnd(2)));
      const plain = parsePlain(cmd);
      if (plain) expect({ cmd, r: plain }).toEqual({ cmd, r: parseShellWithParser(cmd, opts) });
      else expect(words[0]!.includes("=")).toBe(true);
    }
  });

  test.each(SPECIAL)("a command with %p goes to the parser, in any position", (c) => {
    for (const cmd of [`ls a${c}b`, `ls ${c}`, `${c}ls`, `ls a ${c}x`, `ls${c}`]) expect({ cmd, plain: parsePlain(cmd) }).toEqual({ cmd, plain: null });
  });

  test.each(NOT_PROGRAMS)("%p in first place goes to the parser", (w) => {
    expect(parsePlain(`${w} x y`)).toBeNull();
    // As a later word it is an argument like any other.
    expect(parsePlain(`echo ${w}`)).toEqual(parseShellWithParser(`echo ${w}`, opts));
  });

  test("assignments, surrounding blanks and empty text go to the parser", () => {
    for (const cmd of ["A=1 ls", "A+=1 ls", "A=1", " ls", "ls ", "", " ", "ls  ", "a=b=c d"]) expect({ cmd, plain: parsePlain(cmd) }).toEqual({ cmd, plain: null });
  });

  test("what the parser decides for special text is unchanged (parseShell still reaches it)", () => {
    for (const cmd of ["ls | head", "cat ~/.ssh/id_rsa", "echo $HOME", "A=1 env", "time ls", "ls > out", "ls && rm x", "for f in *; do rm $f; done"])
      expect(parseShell(cmd, opts)).toEqual(parseShellWithParser(cmd, opts));
  });
});
