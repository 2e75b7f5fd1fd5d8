import { git, noteTopLevel } from "../util/git.ts";
import { plainRefs, plainRepository } from "../util/git-plain.ts";

/** The refs that name the main branch: origin's HEAD, else a local main or master. */
const MAIN_REFS = ["refs/remotes/origin/HEAD", "refs/heads/main", "refs/heads/master"];
import type { GitInfo } from "./types.ts";

export const GIT_STATUS_MAX_CHARS = 2_000;

const GIT_ENV = { GIT_OPTIONAL_LOCKS: "0", GIT_TERMINAL_PROMPT: "0", LC_ALL: "C" };

/** stdout of a read-only git call, or null when it fails; optional locks off so a running git elsewhere is never blocked. */
async function gitOut(cwd: string, args: string[]): Promise<string | null> {
  const r = await git(["--no-optional-locks", ...args], { cwd, env: { ...process.env, ...GIT_ENV } });
  return r.code === 0 ? r.stdout.trimEnd() : null;
}

/** Cuts status output at 2,000 characters on a line boundary and says how to see the rest. */
export function cutGitStatus(status: string): string {
  if (status.length <= GIT_STATUS_MAX_CHARS) return status;
  const cut = status.lastIndexOf("\n", GIT_STATUS_MAX_CHARS);
  return `${status.slice(0, cut > 0 ? cut : GIT_STATUS_MAX_CHARS)}\n… (cut at ${GIT_STATUS_MAX_CHARS} characters; run git status for the full list)`;
}

/**
 * The branch `git branch --show-current` names, from the first line of `git status --short --branch` (LC_ALL=C):
 * `## main...origin/main [ahead 1]`, `## main`, `## No commits yet on main` (`## Initial commit on main` before git
 * 2.16); null for `## HEAD (no branch)` (detached) or no status. A branch name cannot hold "..", so the first "..." ends it.
 */
export function statusBranch(status: string | null): string | null {
  const head = status?.split("\n", 1)[0] ?? "";
  if (!head.startsWith("## ") || head.startsWith("## HEAD (no branch)")) return null;
  const rest = head.slice(3).replace(/^(?:No commits yet on|Initial commit on) /, "");
  const name = rest.split("...", 1)[0]!.split(" ", 1)[0]!;
  return name || null;
}

/**
 * Branch, main branch, short status and the last 5 commits, from a few git calls run in parallel.
 * Never throws: null outside a work tree or when git is missing; a failing call leaves its field empty.
 */
export async function collectGitInfo(cwd: string): Promise<GitInfo | null> {
  // origin's HEAD and the local main/master in one call (a process less before the first request, issue 21).
  // The branch is read from status's `## …` line: a process less before the first request (issue 21).
  // A plain repository's work tree is the folder its .git is in (util/git-plain.ts): a git process less (issue 21).
  const plain = plainRepository(cwd, { ...process.env, ...GIT_ENV });
  const [root, status, log, refs] = await Promise.all([
    plain ? plain.root : gitOut(cwd, ["rev-parse", "--show-toplevel"]),
    gitOut(cwd, ["status", "--short", "--branch"]),
    gitOut(cwd, ["log", "--oneline", "-n", "5"]),
    (plain && plainRefs(plain.gitDir, MAIN_REFS)?.trimEnd()) ?? gitOut(cwd, ["for-each-ref", "--format=%(refname) %(symref:short)", ...MAIN_REFS]),
  ]);
  if (!root) return null;
  noteTopLevel(cwd, root);
  const lines = (refs ?? "").split("\n").map((l) => l.split(" "));
  const originHead = lines.find(([ref]) => ref === "refs/remotes/origin/HEAD")?.[1];
  const fromOrigin = originHead ? originHead.replace(/^origin\//, "") : null;
  const local = lines.map(([ref]) => ref);
  const mainBranch = fromOrigin || (local.includes("refs/heads/main") ? "main" : local.includes("refs/heads/master") ? "master" : null);
  return {
    root,
    branch: statusBranch(status),
    mainBranch,
    status: cutGitStatus(status ?? ""),
    recentCommits: log ?? "",
  };
}
