/**
 * The sandbox hides files, not their copies: a Read-denied file that was ever committed is readable
 * through the repository's object store. This finds such files, so that commands are not let run
 * without asking on the strength of a sandbox that cannot hide them. Never throws.
 */
import { existsSync } from "node:fs";
import { join, relative } from "node:path";
import { runProcess, runProcessSync } from "../util/subprocess.ts";
import { GIT_QUIET_PROGRAMS } from "../util/git.ts";

const GLOB = /[*?[\]{}]/;

/** The `git log` that names one denied path in a repository's history, per working directory that has one to ask. */
function queries(workingDirectories: string[], denyRead: string[]): { dir: string; argv: string[] }[] {
  return workingDirectories
    .filter((d) => existsSync(join(d, ".git")))
    .flatMap((dir) => {
      const specs = denyRead
        .filter((p) => p === dir || p.startsWith(`${dir}/`))
        .map((p) => relative(dir, p))
        .filter((rel) => rel !== "")
        .map((rel) => (GLOB.test(rel) ? `:(glob)${rel}` : `:(literal)${rel}`));
      return specs.length ? [{ dir, argv: ["git", ...GIT_QUIET_PROGRAMS, "-C", dir, "log", "--all", "--format=", "--name-only", "-1", "--", ...specs] }] : [];
    });
}

// Bounded (issue 20.5): a history git cannot search in time counts as found, so the caller asks rather than lets run.
const runOptions = () => ({ stderr: "ignore", env: { ...process.env, GIT_OPTIONAL_LOCKS: "0" }, timeoutMs: 30_000 }) as const;
const timedOutAnswer = (dir: string, argv: string[]) => join(dir, argv.at(-1)!.replace(/^:\((?:glob|literal)\)/, ""));
const firstFile = (dir: string, out: string) => {
  const file = out.split("\n").find(Boolean);
  return file ? join(dir, file) : undefined;
};

/** One Read-denied path found in the history of a working directory's repository, or undefined. */
export async function deniedInHistory(workingDirectories: string[], denyRead: string[]): Promise<string | undefined> {
  const checks = queries(workingDirectories, denyRead).map(async ({ dir, argv }) => {
    const r = await runProcess(argv, runOptions());
    return r.timedOut ? timedOutAnswer(dir, argv) : firstFile(dir, r.stdout);
  });
  return (await Promise.all(checks)).find(Boolean);
}

/** The same, waiting: for a rule added while the session runs, decided before the next permission check. */
export function deniedInHistorySync(workingDirectories: string[], denyRead: string[]): string | undefined {
  for (const { dir, argv } of queries(workingDirectories, denyRead)) {
    const r = runProcessSync(argv, runOptions());
    const found = r.timedOut ? timedOutAnswer(dir, argv) : firstFile(dir, r.stdout);
    if (found) return found;
  }
  return undefined;
}
