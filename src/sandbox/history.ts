/**
 * The sandbox hides files, not their copies: a Read-denied file that was ever committed is readable
 * through the repository's object store. This finds such files, so that commands are not let run
 * without asking on the strength of a sandbox that cannot hide them. Never throws.
 */
import { existsSync } from "node:fs";
import { join, relative } from "node:path";
import { runProcess } from "../util/subprocess.ts";

const GLOB = /[*?[\]{}]/;

/** One Read-denied path found in the history of a working directory's repository, or undefined. */
export async function deniedInHistory(workingDirectories: string[], denyRead: string[]): Promise<string | undefined> {
  const checks = workingDirectories
    .filter((d) => existsSync(join(d, ".git")))
    .map(async (dir) => {
      const specs = denyRead
        .filter((p) => p === dir || p.startsWith(`${dir}/`))
        .map((p) => relative(dir, p))
        .filter((rel) => rel !== "")
        .map((rel) => (GLOB.test(rel) ? `:(glob)${rel}` : `:(literal)${rel}`));
      if (!specs.length) return undefined;
      const r = await runProcess(["git", "-C", dir, "log", "--all", "--format=", "--name-only", "-1", "--", ...specs], {
        stderr: "ignore",
        env: { ...process.env, GIT_OPTIONAL_LOCKS: "0" },
        timeoutMs: 30_000,
      });
      // A history git could not search in time counts as found: the caller then asks rather than lets run.
      if (r.timedOut) return join(dir, specs[0]!.replace(/^:\((?:glob|literal)\)/, ""));
      const file = r.stdout.split("\n").find(Boolean);
      return file ? join(dir, file) : undefined;
    });
  return (await Promise.all(checks)).find(Boolean);
}
