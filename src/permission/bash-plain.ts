import type { ParseResult } from "./bash-parse.ts";

/**
 * The common Bash call — a program and plain words (`mkdir made`, `git status --short`, `bun test src/a.test.ts`) —
 * parsed without the shell parser. mvdan-sh's first use costs ~100 ms of CPU (the GopherJS runtime starts), which a
 * run's first Bash call paid on the model's clock (issue 21). Only text in which no character means anything to
 * bash qualifies; everything else goes to the real parser. test/permission/bash-plain.test.ts holds the result equal
 * to the parser's for every accepted input and refuses each special character.
 */

/** Characters bash reads literally outside quotes, in any position of a word (no quote, expansion, glob, operator, tilde, comment, brace). */
const CHARS = "A-Za-z0-9_\\-./:@%+,=";
const PLAIN = new RegExp(`^[${CHARS}]+(?: +[${CHARS}]+)*$`);
/** A character no plain command holds: text with one goes to the parser (shell-warm.ts loads it early). */
export const NOT_PLAIN = new RegExp(`[^${CHARS} ]`);

/**
 * First words that bash (and the parser) read as something other than a program to run: reserved words open
 * compound commands, declaration builtins and `let` are their own node types. Any word with `=` in first place is
 * an assignment (`A=1 cmd`) and goes to the parser too.
 */
const NOT_A_PROGRAM = new Set([
  "if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until", "do", "done", "in", "function", "time", "coproc",
  "declare", "local", "export", "readonly", "typeset", "nameref", "let",
]);

/** The parse of a plain command, or null when the text needs the real parser. Pure. */
export function parsePlain(command: string): ParseResult | null {
  if (command.length > 4096 || !PLAIN.test(command)) return null;
  const words = command.split(/ +/);
  const first = words[0]!;
  if (first.includes("=") || NOT_A_PROGRAM.has(first)) return null;
  return {
    ok: true,
    commands: [{ argv: words.map((w) => ({ value: w, raw: w, static: true, glob: false })), assigns: [], redirects: [], raw: command, origin: "top" }],
    params: [],
    patterns: [],
  };
}
