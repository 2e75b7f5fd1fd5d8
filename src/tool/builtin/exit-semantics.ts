/**
 * Exit codes that report a result rather than a failure (contracts §7.2 Bash: exit 1 is benign for
 * grep/rg/find/diff/test/git diff). Judged by the last command of the line, since that sets the status.
 */
const BENIGN: Record<string, string> = {
  grep: "no matches found",
  egrep: "no matches found",
  fgrep: "no matches found",
  rg: "no matches found",
  find: "some paths could not be read",
  diff: "the files differ",
  cmp: "the files differ",
  test: "the condition is false",
  "[": "the condition is false",
  "[[": "the condition is false",
  "git diff": "there are differences",
};

/** The last simple command of a command line, roughly: after the last `|`, `&&`, `||`, `;` or newline. */
function lastCommand(command: string): string[] {
  const parts = command.split(/\|\||&&|[|;\n]/);
  const last = (parts[parts.length - 1] ?? "").trim();
  const words = last.split(/\s+/).filter((w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w)); // drop VAR=value prefixes
  if (words[0] === "sudo" || words[0] === "command" || words[0] === "env") words.shift();
  if (words[0]) words[0] = words[0].replace(/^.*\//, "");
  return words;
}

/** Why exit `code` of `command` is not a failure, or undefined when it is one. Never throws. */
export function benignExit(command: string, code: number): string | undefined {
  if (code !== 1) return undefined;
  const words = lastCommand(command);
  const first = words[0] ?? "";
  if (first === "git") {
    const sub = words.slice(1).find((w) => !w.startsWith("-"));
    return sub === "diff" ? BENIGN["git diff"] : undefined;
  }
  return BENIGN[first];
}
