/** Projects laid out as the permission corpus expects (test/fixtures/permission-corpus.ts), for e2e tests. */
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { type CorpusRules, PROJECT_FILES, PROJECT_LINKS } from "../fixtures/permission-corpus.ts";
import { tempDir } from "./tmp.ts";

/** A root with home/ and proj/ (a git repository) laid out as the corpus expects, the rules in proj/.claude/settings.json. */
export function corpusProject(rules: CorpusRules): { root: string; home: string; cwd: string; settingsFile: string } {
  const root = tempDir("yoke-perm-e2e-");
  const home = join(root, "home");
  const cwd = join(root, "proj");
  mkdirSync(home, { recursive: true });
  for (const [f, c] of Object.entries(PROJECT_FILES)) {
    mkdirSync(dirname(join(cwd, f)), { recursive: true });
    writeFileSync(join(cwd, f), c);
  }
  for (const [l, t] of Object.entries(PROJECT_LINKS)) symlinkSync(t, join(cwd, l));
  // `git show HEAD:path` is relative to the repository's top folder, so some cases need one.
  const git = Bun.spawnSync(["git", "init", "-q"], { cwd, env: { ...process.env, HOME: home } });
  if (git.exitCode !== 0) throw new Error(`git init in ${cwd} failed: ${git.stderr.toString()}`);
  const settingsFile = join(cwd, ".claude", "settings.json");
  mkdirSync(dirname(settingsFile), { recursive: true });
  writeFileSync(settingsFile, JSON.stringify({ permissions: rules }, null, 2));
  return { root, home, cwd, settingsFile };
}

export const substCwd = (input: Record<string, unknown>, cwd: string): Record<string, unknown> =>
  Object.fromEntries(Object.entries(input).map(([k, v]) => [k, typeof v === "string" ? v.replaceAll("${CWD}", cwd) : v]));

