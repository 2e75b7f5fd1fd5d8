import { lstatSync, mkdirSync, mkdtempSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A container run as a user with no passwd entry and no HOME (`docker run --user 10001`, `env -i`) has no home
 * folder, and every `homedir()` call would throw. Resolve one before anything reads it: HOME, else the passwd
 * entry, else a private folder under the temp dir for this run (said once, since state kept there is lost with
 * the container). Returns the line to say, if any. Sets `env.HOME` so every later reader agrees.
 */
export function ensureHome(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.HOME) return undefined;
  try {
    const h = homedir();
    if (h) {
      env.HOME = h;
      return undefined;
    }
  } catch {
    // No passwd entry for this uid: fall through to a private temp folder.
  }
  const uid = process.getuid?.() ?? 0;
  let dir = join(tmpdir(), `yoke-home-${uid}`);
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch {
    // Exists already (an earlier run) or cannot be made: use it only if it is ours and private.
  }
  try {
    const st = lstatSync(dir);
    if (!st.isDirectory() || st.uid !== uid || (st.mode & 0o077) !== 0) dir = mkdtempSync(join(tmpdir(), `yoke-home-${uid}-`));
  } catch {
    dir = mkdtempSync(join(tmpdir(), `yoke-home-${uid}-`));
  }
  env.HOME = dir;
  if (env.YOKE_CONFIG_DIR) return undefined;
  return `yoke: HOME is not set and user ${uid} has no home folder; this run keeps its state in ${dir} (set HOME or YOKE_CONFIG_DIR to a volume to keep it)\n`;
}

/** The user's home folder: HOME, else the passwd entry, else "" (never throws; ensureHome ran at start). */
export function userHome(env: NodeJS.ProcessEnv | Record<string, string | undefined> = process.env): string {
  if (env.HOME) return env.HOME;
  if (process.env.HOME) return process.env.HOME;
  try {
    return homedir();
  } catch {
    return "";
  }
}
