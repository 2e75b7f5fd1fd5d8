import { basename } from "node:path";
import { optionEffects } from "./bash-options.ts";
import { fileOperands } from "./bash-operands.ts";
import type { ShellWord } from "./bash-parse.ts";

/** Env vars an allow rule may look past (internals §9.1); deny and ask rules look past every assignment. */
export const SAFE_ENV = /^(GO\w*|RUST_\w+|CARGO_\w+|NODE_ENV|NODE_OPTIONS_SAFE|PYTHON\w*|LANG|LANGUAGE|LC_\w+|TERM|NO_COLOR|FORCE_COLOR|TZ|CI|DEBUG|RUST_LOG|RUST_BACKTRACE)$/;

/**
 * Environment names a read-only command may be given: they change formatting only, never which program runs, which
 * files are read or which configuration applies (issue 16 point 1: `GIT_CONFIG_*`, `PATH`, `LESSOPEN`, `MAGIC` ...).
 */
export const HARMLESS_ENV = /^(LANG|LANGUAGE|LC_[A-Z]+|TZ|NO_COLOR|FORCE_COLOR|CLICOLOR|CLICOLOR_FORCE|COLUMNS|LINES|TERM|COLORTERM)$/;

/**
 * Whether a standalone `NAME=value` may reach the environment of the commands after it: the name is already exported,
 * or it is spelled as environment and shell-special names are (upper case). Lower-case names are plain shell variables.
 */
export const reachesEnv = (name: string, env: Record<string, string | undefined>): boolean =>
  !HARMLESS_ENV.test(name) && (env[name] !== undefined || /[A-Z]/.test(name) || name === "");

/** `chdir`: the directory `env -C DIR` runs the command in; its paths are relative to that, not the shell's cwd. */
export type Unwrapped = { argv: ShellWord[]; assigns: string[]; implicitArgs: boolean; chdir?: ShellWord };

const w = (value: string): ShellWord => ({ value, raw: value, static: true, glob: false });

/**
 * Strips wrappers (`timeout`, `time`, `nice`, `nohup`, `stdbuf`, `command`, `builtin`, `noglob`, `exec`, `env VAR=x`,
 * and `xargs`) so rules see the program that really runs. `forDeny` also strips `sudo`/`doas` and xargs flags.
 */
export function unwrap(argv: ShellWord[], forDeny: boolean): Unwrapped {
  let a = argv.slice();
  const assigns: string[] = [];
  let implicitArgs = false;
  let chdir: ShellWord | undefined;
  for (let guard = 0; guard < 20 && a.length; guard++) {
    const name = a[0]?.static ? basename(a[0].value) : "";
    const rest = a.slice(1);
    const skipFlags = (withValue: string[], bare: RegExp = /^-/) => {
      let i = 0;
      while (i < rest.length && rest[i]?.static && bare.test(rest[i]!.value)) {
        const f = rest[i]!.value;
        if (f === "--") return i + 1;
        i += withValue.includes(f) ? 2 : 1;
      }
      return i;
    };
    if (name === "timeout") {
      const i = skipFlags(["-s", "--signal", "-k", "--kill-after"]);
      a = rest.slice(i + 1);
    } else if (name === "exec") {
      // exec [-cl] [-a NAME] command: -a takes the name the program is shown as.
      let i = 0;
      while (i < rest.length && rest[i]!.static && /^-[cla]+$/.test(rest[i]!.value)) i += rest[i]!.value.endsWith("a") ? 2 : 1;
      if (rest[i]?.static && rest[i]!.value.startsWith("-") && rest[i]!.value !== "--") break;
      a = rest.slice(rest[i]?.value === "--" ? i + 1 : i);
    } else if (name === "time" || name === "nohup" || name === "builtin" || name === "noglob") {
      a = rest.slice(skipFlags([]));
    } else if (name === "nice") {
      a = rest.slice(skipFlags(["-n", "--adjustment"]));
    } else if (name === "stdbuf") {
      a = rest.slice(skipFlags(["-o", "-e", "-i"]));
    } else if (name === "command") {
      if (rest[0]?.value === "-v" || rest[0]?.value === "-V") break;
      a = rest.slice(skipFlags([]));
    } else if (name === "env") {
      let i = 0;
      for (; i < rest.length; i++) {
        const v = rest[i]!;
        if (!v.static) break;
        if (v.value === "-u" || v.value === "--unset") i++;
        else if (v.value === "-C" || v.value === "--chdir") chdir = rest[++i];
        else if (v.value.startsWith("--chdir=")) chdir = w(v.value.slice(8));
        else if (/^-C./.test(v.value)) chdir = w(v.value.slice(2));
        else if (v.value === "-S" || v.value === "--split-string" || v.value.startsWith("--split-string=") || /^-S./.test(v.value)) {
          // `env -S "cat .env"` splits one string into the command line.
          const str = v.value.startsWith("--split-string=") ? v.value.slice(15) : /^-S./.test(v.value) ? v.value.slice(2) : (rest[++i]?.value ?? "");
          const split = str.split(/\s+/).filter(Boolean).map(w);
          rest.splice(0, i + 1, ...split);
          i = -1;
          continue;
        }
        else if (v.value === "--") {
          i++;
          break;
        } else if (v.value === "-a" || v.value === "--argv0") i++;
        else if (/^(-[i0v]+|-|--ignore-environment|--null|--debug|--list-signal-handling|--(default|ignore|block)-signal(=.*)?|--argv0=.*|--unset=.*)$/.test(v.value)) continue;
        else if (/^-/.test(v.value)) {
          // An option we do not know may take a value: the command after it cannot be told apart.
          i = rest.length;
          break;
        }
        else if (/^[A-Za-z_]\w*=/.test(v.value)) assigns.push(v.value.split("=")[0]!);
        else break;
      }
      if (i >= rest.length) break;
      a = rest.slice(i);
    } else if (name === "busybox" && rest[0]?.static && !SHELLS.has(rest[0].value)) {
      a = rest;
    } else if (name === "taskset" && forDeny) {
      // taskset [-a] [-c] MASK command: -c says how MASK is spelled, it takes no value of its own.
      a = rest.slice(skipFlags([]) + 1);
    } else if (name === "chrt" && forDeny) {
      a = rest.slice(skipFlags(["-T", "-P", "-D", "--sched-runtime", "--sched-period", "--sched-deadline"]) + 1);
    } else if (name === "flock" && forDeny) {
      // flock [opts] FILE command, or FILE -c STRING (opened up as a nested script).
      const i = skipFlags(["-E", "-w", "--timeout", "--conflict-exit-code"]);
      if (!rest[i + 1] || (rest[i + 1]!.static && rest[i + 1]!.value.startsWith("-"))) break;
      a = rest.slice(i + 1);
    } else if (["setsid", "ionice", "unbuffer", "strace", "ltrace"].includes(name) && forDeny) {
      a = rest.slice(skipFlags(["-c", "-n", "-o", "-e", "-s", "-u", "-E", "-p"]));
    } else if (forDeny && (name === "sudo" || name === "doas")) {
      a = rest.slice(skipFlags(["-u", "-g", "-C", "-D", "-h", "-p", "-U", "-r", "-t"]));
    } else if (name === "xargs") {
      const i = skipFlags(["-I", "-n", "-L", "-P", "-d", "-E", "-s", "-a", "--max-args", "--max-procs", "--delimiter", "--arg-file"]);
      if (i > 0 && !forDeny) break;
      implicitArgs = true;
      a = rest.slice(i);
    } else break;
  }
  return { argv: a, assigns, implicitArgs, chdir };
}

/** Renders argv as a subject for rule matching: static words bare (quoted when needed), dynamic words as written. */
export function renderArgv(argv: ShellWord[], quote: boolean): string {
  return argv
    .map((x) => {
      if (!x.static) return x.raw;
      if (!quote) return x.value;
      return /^[\w@%+=:,./~^-]+$/.test(x.value) ? x.value : `'${x.value.replace(/'/g, `'\\''`)}'`;
    })
    .join(" ");
}

/** Commands that run without asking when their arguments stay inside the working directories (contracts §3.1). */
const READ_ONLY = new Set([
  "ls", "cat", "echo", "printf", "pwd", "head", "tail", "grep", "egrep", "fgrep", "rg", "wc", "diff", "stat", "du", "df", "cd",
  "file", "which", "type", "true", "false", "basename", "dirname", "realpath", "readlink", "date", "whoami", "id", "uname",
  "hostname", "tree", "cut", "tr", "nl", "od", "test", "[", "cmp", "comm", "md5sum", "sha1sum", "sha256sum", "sha512sum",
  "seq", "sleep", "column", "uniq", "sort", "jq", "find", "git", "pushd", "popd", "less", "more",
]);
const GIT_READ_ONLY = new Set(["status", "log", "diff", "show", "rev-parse", "ls-files", "blame", "describe", "shortlog", "grep", "ls-tree", "cat-file", "branch", "tag", "remote", "config", "stash", "reflog", "merge-base", "rev-list", "show-ref", "whatchanged"]);
const FIND_ACTIONS = /^-(exec|execdir|ok|okdir|delete|fprint|fprint0|fprintf|fls)$/;

/** True when the unwrapped command only reads. Never throws. */
export function isReadOnlyCommand(argv: ShellWord[]): boolean {
  if (argv.length === 0) return true;
  if (argv.some((x) => !x.static)) {
    // A dynamic word may still be harmless for echo/printf; anywhere else it could become a flag like -exec.
    const n = argv[0]!.value;
    if (!(argv[0]!.static && (n === "echo" || n === "printf"))) return false;
  }
  const name = argv[0]!.value;
  if (!READ_ONLY.has(name)) return false;
  // An option that runs a program, writes a file or changes state, in any spelling the program accepts.
  const fx = optionEffects(argv);
  if (fx.exec || fx.refuse || fx.writes.some((x) => !/^\/dev\/(null|stdout|stderr)$/.test(x.value))) return false;
  const args = argv.slice(1).map((x) => x.value);
  switch (name) {
    case "find":
      return !args.some((x) => FIND_ACTIONS.test(x));
    case "jq":
      // jq can print the environment (`env`, `$ENV`), which holds secrets.
      return !args.some((x) => /\benv\b|\$ENV|\$__loc__/.test(x));
    case "printf":
      // `printf -v NAME` assigns a shell variable (PATH ...) that later commands see.
      return !args.some((x) => /^-v/.test(x));
    // sort's -o/--output/--compress-program, and every option that runs, writes or reads, are parsed in bash-options.ts.
    case "date":
      // `date MMDDhhmm` sets the clock; `+FORMAT` only prints.
      for (let i = 0; i < args.length; i++) {
        if (/^-[dfrs]$|^--(date|file|reference|set)$/.test(args[i]!)) i++;
        else if (!args[i]!.startsWith("-") && !args[i]!.startsWith("+")) return false;
      }
      return true;
    case "hostname":
      // A name sets the host name.
      return !args.some((x) => !x.startsWith("-"));
    case "uniq":
      return args.filter((x) => !x.startsWith("-")).length <= 1;
    case "rg":
      return !args.some((x) => x.startsWith("--pre"));
    case "git": {
      let i = 0;
      while (i < args.length && args[i]!.startsWith("-")) {
        // -c and --config-env set config; --git-dir/--work-tree pick a repository (and its config) anywhere.
        if (args[i] === "-c" || /^--(exec-path|config-env|git-dir|work-tree)/.test(args[i]!)) return false;
        i += args[i] === "-C" || args[i] === "--git-dir" || args[i] === "--work-tree" ? 2 : 1;
      }
      const sub = args[i];
      const subArgs = args.slice(i + 1);
      if (!sub || !GIT_READ_ONLY.has(sub)) return false;
      if (subArgs.some((x) => x.startsWith("--output") || x.startsWith("--ext-diff") || x === "--textconv")) return false;
      const positional = subArgs.filter((x) => !x.startsWith("-"));
      if (sub === "branch") return positional.length === 0 && !subArgs.some((x) => /^-(d|D|m|M|c|C|f|u)$|^--(delete|move|copy|force|set-upstream|unset-upstream|edit-description)/.test(x));
      if (sub === "tag") return positional.length === 0 || subArgs.includes("-l") || subArgs.includes("--list");
      if (sub === "remote") return positional.length === 0 || (positional[0] === "show" || positional[0] === "get-url");
      if (sub === "config") return subArgs.some((x) => x === "--get" || x === "--list" || x === "-l" || x === "--get-all" || x === "--get-regexp");
      if (sub === "stash") return positional[0] === "list" || positional[0] === "show";
      if (sub === "reflog") return positional.length === 0 || positional[0] === "show";
      return true;
    }
    default:
      return true;
  }
}

/** Commands whose arguments are not files they open (so `echo .env` is not a read of .env). */
export const NO_FILE_ARGS = new Set(["echo", "printf", "true", "false", "test", "[", "cd", "pushd", "popd", "sleep", "seq", "which", "type", "date", "basename", "dirname", "export", "declare", "local", "readonly", "typeset", "unset", "hostname", "whoami", "id", "uname", "printenv", "kill", "exit", "return", "set", "shift", "wait", "git"]);

/** git's global options that take a value as the next word (`--opt=value` forms are one word). */
const GIT_VALUE_OPTS = new Set(["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix"]);

export type GitGlobals = {
  /** argv with the global options removed: `git -C . --no-pager push` → `git push`, for deny/ask rules. */
  argv: ShellWord[];
  /** Where `-C` moves git before it does anything (several compose); non-static when any part is. */
  chdir?: ShellWord;
  /** `--git-dir` / `--work-tree` values, paths git opens. */
  dirs: ShellWord[];
  /** `-c`/`--config-env` given: config can name programs git runs (aliases, core.fsmonitor, core.pager ...). */
  config: boolean;
};

/** Splits a git command's global options from the subcommand. Pure. */
export function gitGlobals(argv: ShellWord[]): GitGlobals {
  let i = 1;
  let chdir: ShellWord | undefined;
  const dirs: ShellWord[] = [];
  let config = false;
  for (; i < argv.length && argv[i]!.static && argv[i]!.value.startsWith("-"); i++) {
    const opt = argv[i]!.value;
    const eq = opt.indexOf("=");
    const name = eq > 0 ? opt.slice(0, eq) : opt;
    let value: ShellWord | undefined = eq > 0 ? w(opt.slice(eq + 1)) : undefined;
    if (!value && GIT_VALUE_OPTS.has(name)) value = argv[++i];
    if (name === "-c" || name === "--config-env") config = true;
    else if ((name === "--git-dir" || name === "--work-tree") && value) dirs.push(value);
    else if (name === "-C" && value) {
      if (!chdir || value.value.startsWith("/")) chdir = value;
      else chdir = { ...value, value: `${chdir.value}/${value.value}`, raw: `${chdir.raw}/${value.raw}`, static: chdir.static && value.static };
    }
  }
  return { argv: [argv[0]!, ...argv.slice(i)], chdir, dirs, config };
}

/**
 * Operands of a git command that may name files. git tells revisions from paths by what exists, so every
 * operand after the subcommand counts (`git blame .env`, `git diff --no-index a b`, `git log -p -- f`), and
 * `rev:path` / `:path` name a file's contents (`git show HEAD:.env`, `git cat-file -p :secret`): those are `blobs`,
 * relative to the repository's top folder unless they start with `./` or `../`.
 * `-C` is not among them: it is the directory the operands are relative to (GitGlobals.chdir).
 */
export function gitOperands(argv: ShellWord[]): { subcommand?: string; paths: ShellWord[]; blobs: ShellWord[] } {
  const g = gitGlobals(argv);
  const [sub, ...rest] = g.argv.slice(1);
  const paths = [...g.dirs];
  const blobs: ShellWord[] = [];
  for (const x of rest) {
    if (!x.static || x.value.startsWith("-")) continue;
    const blob = x.value.includes("://") ? null : /^(?:[^-:][^:]*)?:(.+)$/s.exec(x.value);
    if (blob) blobs.push(w(blob[1]!));
    else paths.push(x);
  }
  return { subcommand: sub?.static ? sub.value : undefined, paths, blobs };
}

/** Positional arguments that may be paths the command opens. */
export function pathArgs(argv: ShellWord[]): ShellWord[] {
  const name = argv[0]?.static ? basename(argv[0].value) : "";
  if (name === "git") return gitOperands(argv).paths;
  if (name === "dd") return argv.slice(1).flatMap((x) => (x.static && /^(if|of)=./.test(x.value) ? [w(x.value.slice(3))] : []));
  if (NO_FILE_ARGS.has(name)) return [];
  // grep, rg, sed, awk, jq: which word is the pattern is told as the program's getopt tells it (bash-operands.ts).
  const files = fileOperands(argv);
  if (files) return [...files, ...argv.slice(1).flatMap((x) => (x.static && /^--[^=]+=./.test(x.value) ? [w(x.value.slice(x.value.indexOf("=") + 1))] : []))].filter((x) => !(x.static && x.value === ""));
  const out: ShellWord[] = [];
  let patternSkipped = !["grep", "egrep", "fgrep", "rg", "sed", "awk", "gawk", "jq"].includes(name);
  let endOfFlags = false;
  for (let i = 1; i < argv.length; i++) {
    const x = argv[i]!;
    if (x.static && !endOfFlags && x.value === "--") {
      endOfFlags = true;
      continue;
    }
    if (x.static && !endOfFlags && x.value.startsWith("-")) {
      if (name === "find") break;
      if (/^-(e|f)$|^--(regexp|file|expression)$/.test(x.value) && !patternSkipped) {
        patternSkipped = true;
        if (x.value === "-f" || x.value === "--file") out.push(argv[i + 1] ?? w(""));
        i++;
      }
      const eq = x.value.indexOf("=");
      if (x.value.startsWith("--") && eq > 0) out.push(w(x.value.slice(eq + 1)));
      continue;
    }
    if (!patternSkipped) {
      patternSkipped = true;
      continue;
    }
    out.push(x);
  }
  return out.filter((x) => !(x.static && x.value === ""));
}

/** Interpreters whose inline code (`-c`, `-e`) may open files: their code is searched for denied names. */
export const CODE_FLAGS: Record<string, string[]> = {
  python: ["-c"], python3: ["-c"], node: ["-e", "--eval", "-p", "--print"], bun: ["-e", "--eval"], perl: ["-e", "-E"], ruby: ["-e"], php: ["-r"],
};
export const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "busybox"]);
/**
 * Programs that run another program named by a later word, with options we may not know: deny rules are matched
 * against every tail of their command line (`exec -a x rm`, `flock F rm`, `taskset -c 0 rm`), so no option spelling
 * hides the program.
 */
export const WRAPPERS = new Set([
  "exec", "env", "flock", "taskset", "nice", "nohup", "timeout", "time", "stdbuf", "setsid", "ionice", "chrt", "unbuffer", "strace",
  "ltrace", "sudo", "doas", "command", "builtin", "xargs", "busybox", "toybox", "chroot", "unshare", "nsenter", "setpriv", "prlimit",
  "numactl", "cgexec", "faketime", "fakeroot", "proot", "torsocks", "proxychains", "proxychains4", "firejail", "systemd-run",
  "valgrind", "catchsegv", "runuser", "su", "pkexec", "sg", "watch", "caffeinate", "dbus-run-session", "xvfb-run", "script",
  "parallel", "nq", "tsp", "daemonize", "rlwrap", "chronic", "ifne", "sem", "gdb", "noglob",
]);

/** Programs that run a command given as one string: the flag that carries it, or "all" for every positional joined. */
export const EXEC_STRING: Record<string, string> = { watch: "all", su: "-c", runuser: "-c", script: "-c", flock: "-c", fish: "-c", tmux: "all", screen: "all", trap: "first", npx: "-c" };

/** Index of the word carrying the command string for `-c`-style programs: `-c`, a short cluster ending in c (`-qc`), `--command[=]`. */
export function execStringIndex(rest: ShellWord[], flag: string): { index: number; inline?: string } | undefined {
  for (let i = 0; i < rest.length; i++) {
    const x = rest[i]!;
    if (!x.static) continue;
    if (x.value === flag || (flag === "-c" && /^-[a-zA-Z]*c$/.test(x.value)) || x.value === "--command") return { index: i + 1 };
    if (x.value.startsWith("--command=")) return { index: i, inline: x.value.slice(10) };
  }
  return undefined;
}

/** A git command's subcommand, its words before and after `--`, and the options among the words before. */
export function gitSubcommand(argv: ShellWord[]): { sub: string; before: ShellWord[]; after: ShellWord[]; opts: string[] } {
  const [subWord, ...rest] = gitGlobals(argv).argv.slice(1);
  const dd = rest.findIndex((x) => x.static && x.value === "--");
  const before = dd < 0 ? rest : rest.slice(0, dd);
  return {
    sub: subWord?.static ? subWord.value : "",
    before,
    after: dd < 0 ? [] : rest.slice(dd + 1),
    opts: before.filter((x) => x.static && x.value.startsWith("-")).map((x) => x.value),
  };
}
