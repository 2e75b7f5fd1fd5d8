// Programs that run commands by design (issue 16 review point 2): editors (`vim -c '!cmd'`, modelines, keystrokes on
// standard input), debuggers (`gdb -ex`, .gdbinit), database shells (`sqlite3 .shell`), pagers (`less +!cmd`),
// interpreters reading their program from standard input, other shell languages, schedulers (`at`), git configuration
// that names programs (`git config alias.x '!cmd'`) and git subcommands that may be such aliases. Under an allow rule
// for the program (`Bash(vim:*)`), they would let a command run that a deny rule forbids, so where a deny rule could be
// talked around (the caller decides when) they are opaque: they ask, as `python -c` with `system()` already does.
// Build tools that run a project's recipes (`make`, `npm run`) are checked through their recipes instead
// (project-scripts.ts). Claude Code 2.1.332 matches allow rules on the command line only (internals §9.1 "prefix"):
// with no deny rule in play yoke does the same, so an allowed `vim` or `make` runs as it does there. Pure.
import { basename } from "node:path";
import type { ShellWord, SimpleCommand } from "./bash-parse.ts";
import { gitGlobals } from "./bash-words.ts";

const EDITORS = new Set(["vim", "vi", "nvim", "ex", "view", "rvim", "rview", "vimdiff", "gvim", "evim", "vimx", "ed", "emacs", "emacsclient", "nano", "pico", "joe", "jed", "mcedit", "kak", "hx", "micro"]);
const DEBUGGERS = new Set(["gdb", "cgdb", "lldb", "pdb", "pdb3", "rr", "valgrind-di-server"]);
/** Interpreters that read their program from standard input when given no script and no inline code. */
const INTERPRETERS = new Set(["python", "python2", "python3", "perl", "ruby", "node", "nodejs", "php", "lua", "luajit", "tclsh", "wish", "expect", "R", "Rscript", "julia", "guile", "racket", "sbcl", "clisp", "swipl", "octave", "gnuplot", "dc", "bc", "m4", "irb", "deno", "bun", "osascript", "jshell", "scala", "groovy", "kotlinc", "ghci", "ocaml", "erl", "elixir", "iex"]);
/** Inline-code options of the interpreters above that bash-words.ts CODE_FLAGS does not already open up. */
const INLINE: Record<string, RegExp> = {
  lua: /^-e/, luajit: /^-e/, R: /^(-e|-f|--file)/, Rscript: /^-e/, julia: /^(-e|-E|--eval|--print)/, guile: /^(-c|-s|-l)/, racket: /^(-e|--eval|-l|-r)/,
  sbcl: /^--(eval|load|script)/, clisp: /^-x/, swipl: /^(-g|-t)/, octave: /^--eval/, gnuplot: /^-e/, dc: /^(-e|-f|--expression|--file)/, expect: /^(-c|-f)/,
  tclsh: /./, wish: /./, m4: /./, osascript: /^-e/, deno: /^eval$/, bun: /^(-e|--eval|-p|--print)$/, erl: /^-eval/, elixir: /^(-e|--eval)/,
};
/** Other shell languages: their `-c` scripts are not bash, so they are not opened up. */
const OTHER_SHELLS = new Set(["csh", "tcsh", "pwsh", "powershell", "xonsh", "rc", "es", "elvish", "nu", "yash", "ion", "oil", "osh", "ysh"]);
const SCHEDULERS = new Set(["at", "batch", "crontab"]);
const OPENERS = new Set(["xdg-open", "open", "gio", "sensible-browser", "see", "run-mailcap", "x-www-browser", "www-browser", "exo-open", "kde-open", "gnome-open"]);
const DB_SHELLS = new Set(["sqlite3", "sqlite", "psql", "mysql", "mariadb", "duckdb"]);
/** Words that start a program or a shell from a database shell: `.shell`/`.system`, `\!`, pipes in `.once`/`.output`, `edit()`, COPY … PROGRAM. */
const DB_EXEC = /(^|[\n;])\s*\.(shell|system|sh|once|output|import|read|load|excel|edit|open)\b|\\!|\\(o|g|w|copy)\b|\bedit\s*\(|\bprogram\b|\bsystem\b|\|/i;

/** git subcommands git itself has; any other word is an alias or a `git-<name>` program on the PATH. */
const GIT_COMMANDS = new Set(
  ("add am annotate apply archive bisect blame branch bugreport bundle cat-file check-attr check-ignore check-mailmap check-ref-format checkout " +
    "checkout-index cherry cherry-pick citool clean clone column commit commit-graph commit-tree config count-objects credential describe diagnose diff " +
    "diff-files diff-index diff-tree difftool fast-export fast-import fetch fetch-pack filter-branch fmt-merge-msg for-each-ref for-each-repo format-patch " +
    "fsck gc get-tar-commit-id grep gui hash-object help hook index-pack init instaweb interpret-trailers log ls-files ls-remote ls-tree mailinfo mailsplit " +
    "maintenance merge merge-base merge-file merge-index merge-tree mergetool mktag mktree multi-pack-index mv name-rev notes pack-objects pack-refs " +
    "patch-id prune pull push range-diff read-tree rebase reflog remote repack replace request-pull rerere reset restore rev-list rev-parse revert rm " +
    "send-email shortlog show show-branch show-index show-ref sparse-checkout stash status stripspace submodule switch symbolic-ref tag unpack-objects " +
    "update-index update-ref var verify-commit verify-pack verify-tag version whatchanged worktree write-tree lfs").split(" "),
);
/** git configuration keys whose value is a program git runs later (or a file of more configuration). */
const GIT_EXEC_KEY = /^(alias\..+|core\.(pager|editor|sshcommand|fsmonitor|hookspath|askpass|gitproxy)|diff\.(external|.+\.(textconv|command))|filter\..+|merge\..+\.driver|credential(\..+)?\.helper|sequence\.editor|gpg\.(.+\.)?program|pager\..+|web\.browser|browser\..+\.(cmd|path)|uploadpack\..+|receive\..+|include\.path|includeif\..+|man\..+\.(cmd|path)|difftool\..+\.cmd|mergetool\..+\.cmd|sendemail\..+|remote\..+\.(uploadpack|receivepack|vcs)|url\..+|protocol\..+|ssh\.variant|instaweb\..+|status\.showuntrackedfiles)$/i;

const flagsOf = (argv: ShellWord[]) => argv.slice(1).filter((x) => x.static && x.value.startsWith("-")).map((x) => x.value);
const operandsOf = (argv: ShellWord[]) => argv.slice(1).filter((x) => !(x.static && x.value.startsWith("-")));
const INFO_ONLY = /^(-V|-v|--version|-h|--help|-version|--help-all)$/;
/** Standard input is not fed from anything but /dev/null by a redirection here (a pipe into it is not visible per part). */
const stdinIsNull = (cmd: SimpleCommand) => cmd.redirects.some((r) => r.op === "<" && r.target?.static && r.target.value === "/dev/null");

/**
 * Why this part may run commands no rule can see, or undefined. `argv`: the program's words after wrappers were
 * opened up; `cmd`: the simple command (its redirections). Pure.
 */
export function runnerOpaque(argv: ShellWord[], cmd: SimpleCommand): string | undefined {
  const name = argv[0]?.static ? basename(argv[0].value) : "";
  const flags = flagsOf(argv);
  const ops = operandsOf(argv);
  if (flags.length && flags.every((f) => INFO_ONLY.test(f)) && ops.length === 0) return undefined;
  if (EDITORS.has(name)) return `${name} is an editor that runs commands (\`:!cmd\`, -c and + options, modelines, keystrokes on standard input)`;
  if (DEBUGGERS.has(name)) return `${name} is a debugger that runs commands (from its options, its init files and standard input)`;
  if (OTHER_SHELLS.has(name)) return `${name} runs a script in a shell language yoke does not parse`;
  if (SCHEDULERS.has(name)) {
    // `crontab -l [-u user]` only lists.
    if (name === "crontab" && flags.includes("-l") && flags.every((f) => f === "-l" || f === "-u") && ops.length <= (flags.includes("-u") ? 1 : 0)) return undefined;
    return `${name} schedules commands to run later`;
  }
  if (OPENERS.has(name)) return `${name} starts whatever program is set to open its argument`;
  if (DB_SHELLS.has(name)) {
    if (argv.some((x) => !x.static)) return `${name} gets words built at run time, which may be shell commands`;
    if (argv.slice(1).some((x) => DB_EXEC.test(x.value) || /^-(cmd|init|f|file|i)$|^--(file|init-command)/.test(x.value))) return `${name} runs a shell command or a script file from its arguments`;
    // With no SQL in its arguments it reads commands from standard input, which can start a shell.
    const sqlArg = name.startsWith("sqlite") || name === "duckdb" ? ops.length >= 2 : flags.some((f) => /^(-c|-e|--command|--execute)/.test(f));
    if (!sqlArg && !stdinIsNull(cmd)) return `${name} reads commands from standard input, which can start a shell`;
    return undefined;
  }
  if (INTERPRETERS.has(name)) {
    const inline = INLINE[name];
    if (inline && name !== "tclsh" && name !== "wish" && name !== "m4" && argv.slice(1).some((x) => x.static && inline.test(x.value))) return `${name} runs code from its arguments that can start other programs`;
    // tclsh, wish, m4: their scripts' exec/syscmd run programs; the script is a file or standard input.
    if (name === "tclsh" || name === "wish" || name === "m4") return `${name} runs a script that can start other programs`;
    if (ops.length === 0 && !flags.some((f) => /^(-c|-e|-E|-p|-r|--eval|--print|-m)$/.test(f)) && !stdinIsNull(cmd)) return `${name} reads its program from standard input`;
    if (ops.some((o) => o.static && o.value === "-")) return `${name} reads its program from standard input`;
    return undefined;
  }
  if (name === "less" || name === "more" || name === "most") {
    // `+!cmd` / `+|cmd` run a shell command at start; a lesskey file can bind keys to commands.
    if (argv.slice(1).some((x) => !x.static || /^\+.*[!|]/.test(x.value) || /^(-k|--lesskey)/.test(x.value))) return `${name} runs a shell command from its options`;
    return undefined;
  }
  if (name === "git") return gitRunner(argv);
  return undefined;
}

/** `git config` writing a key that names a program, and subcommands that are aliases or `git-<name>` programs. */
function gitRunner(argv: ShellWord[]): string | undefined {
  const g = gitGlobals(argv);
  const sub = g.argv[1];
  if (!sub) return undefined;
  if (!sub.static) return "git runs a subcommand named at run time";
  if (!GIT_COMMANDS.has(sub.value)) return `git ${sub.value} is no git command: an alias or a git-${sub.value} program, which may run anything`;
  // `git submodule foreach CMD` runs CMD in a shell in every submodule.
  if (sub.value === "submodule" && g.argv.slice(2).some((x) => !x.static || x.value === "foreach")) return "git submodule foreach runs a shell command";
  if (sub.value !== "config") return undefined;
  const rest = g.argv.slice(2);
  if (rest.some((x) => !x.static)) return "git config gets words built at run time";
  const words = rest.map((x) => x.value);
  // Reading is harmless; `--edit` opens an editor; setting a key that names a program makes git run it later.
  if (words.some((x) => x === "-e" || x === "--edit")) return "git config --edit opens an editor";
  const keys = words.filter((x, i) => !x.startsWith("-") && (i === 0 || !/^(--file|-f|--blob|--type|--default|--comment)$/.test(words[i - 1]!)));
  const key = keys[0];
  if (key && keys.length >= 2 && GIT_EXEC_KEY.test(key)) return `git config sets ${key}, which names a program git runs later`;
  if (words.some((x) => /^--(add|replace-all)$/.test(x)) && key && GIT_EXEC_KEY.test(key)) return `git config sets ${key}, which names a program git runs later`;
  if (words.includes("set") && keys[1] && GIT_EXEC_KEY.test(keys[1])) return `git config sets ${keys[1]}, which names a program git runs later`;
  return undefined;
}
