import { parsePlain } from "../../permission/bash-plain.ts";

/**
 * The common Bash call, a program and plain words (`mkdir made`, `git status --short`), given to the shell as its
 * whole `-c` script instead of through the wrapper (shell-exec.ts wrapperScript). The wrapper exists to record the
 * directory the command ends in (an EXIT trap) and to source env files; a plain command that runs a program cannot
 * change the shell's directory, so neither is needed. bash then runs its only command in place (no fork), and yoke
 * neither makes the session's scratch folder for the cwd file nor reads and removes that file: ~1–2 ms of a tool turn
 * (issue 21). What the command sees is the same: the same shell, environment, directory and standard streams.
 */

/** bash's builtins (`enable -a`): a first word among them may change the shell itself (`cd`, `.`, `eval`, `builtin cd`). */
const BUILTINS = new Set(
  (
    ". : [ alias bg bind break builtin caller cd command compgen complete compopt continue declare dirs disown echo enable " +
    "eval exec exit export false fc fg getopts hash help history jobs kill let local logout mapfile popd printf pushd pwd " +
    "read readarray readonly return set shift shopt source suspend test times trap true type typeset ulimit umask unalias unset wait " +
    // Without bash the shell is /bin/sh (shell-exec.ts findShell): dash's and busybox ash's `chdir` is their `cd`.
    "chdir"
  ).split(" "),
);

/**
 * Programs that act otherwise when they lead their process group: run directly, the program is the group's (and the
 * session's) leader, where through the wrapper bash is. util-linux `setsid` then forks and exits 0 at once, its program
 * left running on its own, where through the wrapper the call waits for it and gets its exit status.
 */
const LEADS_OTHERWISE = new Set(["setsid"]);

/**
 * Whether `command` can run as the shell's whole script. Not when env files are to be sourced, when the environment
 * can change what a word runs (an exported function `BASH_FUNC_*`, a `BASH_ENV` file bash reads first: either may `cd`),
 * or when the command is anything but a program and plain words (bash-plain.ts) whose program is not a builtin and does
 * not start with '-'. Pure.
 */
export function runsDirect(command: string, envFiles: readonly string[], env: Record<string, string | undefined>): boolean {
  if (envFiles.length) return false;
  if (env.BASH_ENV || env.ENV || Object.keys(env).some((k) => k.startsWith("BASH_FUNC_"))) return false;
  const plain = parsePlain(command);
  const first = plain?.ok ? plain.commands[0]?.argv[0]?.value : undefined;
  // A script that starts with '-' is read by `bash -c` as its options (`-o` lists them, `--version` is refused),
  // where the wrapper's eval says the command is not found.
  return first !== undefined && !BUILTINS.has(first) && !first.startsWith("-") && !LEADS_OTHERWISE.has(first.slice(first.lastIndexOf("/") + 1));
}

/** What bash says of a child killed by a signal (its own wording); bash is silent for SIGINT and SIGPIPE. */
const SIGNAL_WORDS: Partial<Record<NodeJS.Signals, string>> = {
  SIGHUP: "Hangup",
  SIGQUIT: "Quit",
  SIGILL: "Illegal instruction",
  SIGTRAP: "Trace/breakpoint trap",
  SIGABRT: "Aborted",
  SIGBUS: "Bus error",
  SIGFPE: "Floating point exception",
  SIGKILL: "Killed",
  SIGUSR1: "User defined signal 1",
  SIGSEGV: "Segmentation fault",
  SIGUSR2: "User defined signal 2",
  SIGALRM: "Alarm clock",
  SIGTERM: "Terminated",
  SIGXCPU: "CPU time limit exceeded",
  SIGXFSZ: "File size limit exceeded",
  SIGSYS: "Bad system call",
};

/**
 * The line bash's wrapper would have printed for a command killed by a signal (`bash: line 1: 4242 Segmentation
 * fault ./crash`); run directly, no shell is left to print it, so the model would see only the exit code. Pure.
 */
export function signalLine(signal: NodeJS.Signals | null, pid: number | undefined, command: string): string | undefined {
  const words = signal ? SIGNAL_WORDS[signal] : undefined;
  return words ? `bash: line 1: ${pid ?? ""} ${words.padEnd(24)}${command}` : undefined;
}
