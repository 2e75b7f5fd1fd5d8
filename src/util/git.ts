import { runProcess } from "./subprocess.ts";
import { plainRepository } from "./git-plain.ts";

type Env = Record<string, string | undefined>;

export type GitResult = { code: number; stdout: string; stderr: string };

/**
 * yoke's own git, found on the PATH yoke started with: a settings `env.PATH` reaches the model's commands,
 * never the programs yoke runs for itself (git context, checkpoints), which no permission check guards.
 */
const gitBin = (): string => Bun.which("git", { PATH: process.env.PATH ?? "" }) ?? "git";

/**
 * Top levels `git rev-parse --show-toplevel` named for a folder (the git context's, at start), so a later lookup of the
 * same repository (the checkpoints', at the first tool call) needs no git process of its own (issue 21 tool turns).
 */
const topLevels = new Map<string, string>();
export const noteTopLevel = (cwd: string, top: string): void => void topLevels.set(cwd, top);
export const knownTopLevel = (cwd: string): string | undefined => topLevels.get(cwd);

/** How long one git call may take (YOKE_GIT_TIMEOUT_MS): a hung credential prompt or network remote must not stall the run. */
export const GIT_TIMEOUT_MS = 60_000;

/**
 * Configuration that keeps a repository's own files from making yoke's git start programs (issue 16, red team): a
 * folder may come with its `.git` (a tarball, a copied checkout), whose config names an fsmonitor, clean filters,
 * textconv drivers, a hooks folder or signature checks that `git status`, `git add` and `git log` would run
 * before any permission check (git context, checkpoints). Git LFS's filters are kept. Never throws.
 */
export const GIT_QUIET_PROGRAMS = ["-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null/no-hooks", "-c", "log.showSignature=false", "-c", "diff.external="];
const driverArgs = new Map<string, Promise<string[]>>();
/** The same, once read: a git call in a folder whose drivers are known starts its process at once, not a tick later. */
const knownDriverArgs = new Map<string, string[]>();
function neutralDrivers(cwd: string, env: Env, timeoutMs: number): Promise<string[]> {
  let p = driverArgs.get(cwd);
  // A plain repository whose config files name no driver (git-plain.ts) needs no `git config` process to learn that.
  if (!p && plainRepository(cwd, env)) {
    knownDriverArgs.set(cwd, []);
    driverArgs.set(cwd, (p = Promise.resolve([])));
  }
  if (!p) {
    // Reading the config starts nothing; each filter and diff driver it defines is then set to no program.
    p = runProcess([gitBin(), ...GIT_QUIET_PROGRAMS, "config", "--get-regexp", "^(filter|diff)\\..+\\.(clean|smudge|process|textconv|command)$"], { cwd, env, stdin: "ignore", timeoutMs }).then((r) =>
      r.stdout
        .split("\n")
        .map((l) => /^(\S+)\s*(.*)$/.exec(l))
        .filter((m): m is RegExpExecArray => !!m && !/^filter\.lfs\./.test(m[1]!))
        .flatMap((m) => ["-c", `${m[1]}=`]),
    );
    void p.then((a) => knownDriverArgs.set(cwd, a), () => {});
    driverArgs.set(cwd, p);
  }
  return p;
}

const gitTimeoutMs = (env: Env): number => {
  const ms = Number(env.YOKE_GIT_TIMEOUT_MS);
  return Number.isFinite(ms) && ms > 0 ? ms : GIT_TIMEOUT_MS;
};

/** yoke's git and the options every call of it gets. */
const quietGit = async (cwd: string, env: Env, timeoutMs: number): Promise<string[]> => [gitBin(), ...GIT_QUIET_PROGRAMS, ...(await neutralDrivers(cwd, env, timeoutMs).catch(() => []))];

/**
 * Runs git, bounded in time and output; never throws (a spawn failure or timeout comes back as code -1 with the reason in
 * stderr). Where the folder's drivers are known the process starts before this returns, so a caller may go on with
 * other work while git runs (a Bash call's snapshot beside its permission check, issue 21).
 */
export function git(args: string[], opts: { cwd: string; env: Env; input?: string }): Promise<GitResult> {
  const timeoutMs = gitTimeoutMs(opts.env);
  const known = knownDriverArgs.get(opts.cwd);
  return known ? runGit([gitBin(), ...GIT_QUIET_PROGRAMS, ...known, ...args], args, opts, timeoutMs) : quietGit(opts.cwd, opts.env, timeoutMs).then((q) => runGit([...q, ...args], args, opts, timeoutMs));
}

/**
 * Runs a short /bin/sh script in which `"$@"` is yoke's git with the options git() gives it, after `args` (the script
 * shifts them off), so several git steps cost yoke one process start and one exit to wait for instead of one each
 * (a snapshot's seal at a run's end: issue 21). `what` names it in a timeout. POSIX only. Never throws; failures come
 * back as git()'s do (the script's own exit code otherwise).
 */
export function gitScript(script: string, what: string, args: string[], opts: { cwd: string; env: Env }): Promise<GitResult> {
  const timeoutMs = gitTimeoutMs(opts.env);
  const known = knownDriverArgs.get(opts.cwd);
  const run = (prefix: string[]) => runGit(["/bin/sh", "-c", script, "sh", ...args, ...prefix], [what], opts, timeoutMs);
  return known ? run([gitBin(), ...GIT_QUIET_PROGRAMS, ...known]) : quietGit(opts.cwd, opts.env, timeoutMs).then(run);
}

async function runGit(argv: string[], args: string[], opts: { cwd: string; env: Env; input?: string }, timeoutMs: number): Promise<GitResult> {
  const r = await runProcess(argv, { cwd: opts.cwd, env: opts.env, stdin: opts.input === undefined ? "ignore" : { data: opts.input }, timeoutMs });
  if (r.error) return { code: -1, stdout: "", stderr: r.error };
  if (r.timedOut) return { code: -1, stdout: r.stdout, stderr: `git ${args[0] ?? ""} did not finish within ${timeoutMs} ms and was stopped (YOKE_GIT_TIMEOUT_MS)` };
  return { code: r.code ?? -1, stdout: r.stdout, stderr: r.stderr };
}
