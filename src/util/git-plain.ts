import { existsSync, lstatSync, readFileSync, realpathSync, statSync } from "node:fs";
import { dirname, join } from "node:path";

type Env = Record<string, string | undefined>;

/** GIT_* variables that move no file git reads and change no setting this check looks at. */
const HARMLESS_GIT_ENV = new Set(["GIT_OPTIONAL_LOCKS", "GIT_TERMINAL_PROMPT", "GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_GLOBAL"]);

/** A key that names a program git may start for status, add or log, or a file or folder that moves the repository. */
const SUSPECT = /filter|diff|include|worktree|refstorage|bare\s*=\s*true/i;

const readText = (path: string): string | null => {
  try {
    return readFileSync(path, "utf8");
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "ENOENT" ? "" : null;
  }
};

/**
 * The repository at `cwd` when it is a plain one, read from its files without starting git (issue 21: each git process
 * cost a one-turn run ~3 ms of CPU while the MCP servers start): `.git` a folder in `cwd` or a parent on the same
 * filesystem, owned by this user, not a linked worktree; no GIT_* variable that moves git's files or settings; and no
 * config git reads (the repository's, the user's global ones, /etc/gitconfig) that names a filter or diff driver, an
 * include, a work tree, a ref storage other than files or a bare repository. Then the repository defines no driver to neutralize (util/git.ts) and its
 * work tree is this folder (what `git rev-parse --show-toplevel` prints). Anything else is null: ask git, as before.
 * A system config under another prefix than /etc is the administrator's, not the folder's, and is not read. Never throws.
 */
export function plainRepository(cwd: string, env: Env): { root: string; gitDir: string } | null {
  try {
    for (const k of Object.keys(env)) if (k.startsWith("GIT_") && !HARMLESS_GIT_ENV.has(k)) return null;
    const uid = process.getuid?.();
    if (uid === undefined) return null;
    // Git starts from the real folder (getcwd), links resolved.
    let dir = realpathSync(cwd);
    const dev = statSync(dir).dev;
    for (;;) {
      const st = statSync(dir);
      // Git stops looking at a filesystem boundary (without GIT_DISCOVERY_ACROSS_FILESYSTEM), and a folder that is a
      // repository's own (bare) files is one to it: let git say what it finds there.
      if (st.dev !== dev) return null;
      if (existsSync(join(dir, "HEAD")) && existsSync(join(dir, "objects")) && existsSync(join(dir, "refs"))) return null;
      let dotGit: ReturnType<typeof lstatSync> | undefined;
      try {
        dotGit = lstatSync(join(dir, ".git"));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "ENOENT") return null;
      }
      if (dotGit) {
        // A file (linked worktree, submodule) or a link: git follows it; so does git, not this check.
        if (!dotGit.isDirectory() || dotGit.uid !== uid || st.uid !== uid) return null;
        const gitDir = join(dir, ".git");
        if (!existsSync(join(gitDir, "HEAD")) || existsSync(join(gitDir, "commondir")) || existsSync(join(gitDir, "config.worktree"))) return null;
        const home = env.HOME;
        const globals =
          env.GIT_CONFIG_GLOBAL !== undefined
            ? [env.GIT_CONFIG_GLOBAL]
            : home
              ? [join(env.XDG_CONFIG_HOME || join(home, ".config"), "git", "config"), join(home, ".gitconfig")]
              : null;
        if (!globals) return null;
        // Read unless git surely skips it: reading a file git skips can only send the run back to git.
        const system = env.GIT_CONFIG_NOSYSTEM === "1" || env.GIT_CONFIG_NOSYSTEM === "true" ? [] : ["/etc/gitconfig"];
        for (const f of [join(gitDir, "config"), ...globals, ...system]) {
          const text = readText(f);
          if (text === null || SUSPECT.test(text)) return null;
        }
        return { root: dir, gitDir };
      }
      const up = dirname(dir);
      if (up === dir) return null;
      dir = up;
    }
  } catch {
    return null;
  }
}

const OBJECT_ID = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/**
 * What `git for-each-ref --format='%(refname) %(symref:short)' REFS...` prints for these exact ref names, read from a
 * plain repository's files (loose refs, then packed-refs), or null when unsure (a ref that is a link to another, a file
 * that is not a ref): ask git then. A symbolic ref whose target is missing is left out, as git leaves it out.
 */
export function plainRefs(gitDir: string, names: string[]): string | null {
  try {
    const packedText = readText(join(gitDir, "packed-refs"));
    if (packedText === null) return null;
    const packed = new Set(packedText.split("\n").map((l) => /^[0-9a-f]+ (\S+)$/.exec(l)?.[1]));
    /** The ref's loose file's text ("" when there is none, null when it is not a plain file). */
    const loose = (name: string): string | null => {
      try {
        const st = lstatSync(join(gitDir, name));
        if (st.isDirectory()) return "";
        if (!st.isFile()) return null;
      } catch (e) {
        return (e as NodeJS.ErrnoException).code === "ENOENT" ? "" : null;
      }
      return readFileSync(join(gitDir, name), "utf8").trim();
    };
    /** Whether a ref that is no link exists; null when unsure. */
    const exists = (name: string): boolean | null => {
      const text = loose(name);
      if (text === null || text.startsWith("ref:")) return null;
      if (text) return OBJECT_ID.test(text) ? true : null;
      return packed.has(name);
    };
    const lines: string[] = [];
    for (const name of [...names].sort()) {
      const text = loose(name);
      if (text === null) return null;
      if (text.startsWith("ref:")) {
        const target = text.slice(4).trim();
        if (!target.startsWith("refs/remotes/")) return null;
        const there = exists(target);
        if (there === null) return null;
        if (there) lines.push(`${name} ${target.slice("refs/remotes/".length)}`);
        continue;
      }
      const here = exists(name);
      if (here === null) return null;
      if (here) lines.push(`${name} `);
    }
    return lines.join("\n");
  } catch {
    return null;
  }
}
