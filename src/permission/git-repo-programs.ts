// What a repository's own git directory makes "read-only" git commands run (issue 16, third red-team pass). A folder
// that arrives with its `.git` (a tarball, a shared drive, a copied checkout) brings its config and hooks: `git
// status` runs `core.fsmonitor`, the `filter.*.clean` of attributes, and the `post-index-change` hook when it refreshes
// the index; `git diff` runs `diff.external` and textconv drivers. None of that is in the command's words, and
// `.git` being a protected path only stops the model from writing it, not a folder from shipping it. Looks at the
// filesystem (a few small files); never throws.
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { isInside } from "./paths.ts";
import { isProtectedPath } from "./sensitive-paths.ts";

/** Keys whose value is a program a status, diff, log, show, grep or blame may start (without a terminal: no pager). */
const RUNS = /^(core\.fsmonitor|core\.hookspath|diff\.external|diff\..+\.(command|textconv)|filter\..+\.(clean|smudge|process)|gpg\.(.+\.)?program|core\.sshcommand|core\.gitproxy|remote\..+\.(uploadpack|receivepack|vcs)|include\.path|includeif\..+\.path)$/;
/** Values of those keys that start nothing: the built-in fsmonitor, Git LFS's own filters. */
const HARMLESS = (key: string, value: string): boolean =>
  (key === "core.fsmonitor" && /^(true|false|yes|no|on|off|1|0|)$/i.test(value)) || (/^filter\.lfs\./.test(key) && /^git-lfs\s/.test(value));

/** The git directory git started in `dir` would use (`.git`, or where a `.git` file points), or undefined. */
export function gitDirOf(dir: string): string | undefined {
  for (let d = dir; ; d = dirname(d)) {
    const dotGit = join(d, ".git");
    try {
      const st = statSync(dotGit);
      if (st.isDirectory()) return dotGit;
      const m = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(dotGit, "utf8"));
      return m ? resolve(d, m[1]!) : undefined;
    } catch {}
    if (dirname(d) === d) return undefined;
  }
}

/** `key = value` pairs of a git config file, keys as `section.sub.name` (section and name lower-cased). */
export function gitConfigEntries(text: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  let section = "";
  for (const line of text.replace(/\\\r?\n/g, "").split(/\r?\n/)) {
    const head = /^\s*\[\s*([^\]\s"]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]\s*(.*)$/.exec(line);
    let rest = line;
    if (head) {
      const [name, ...dotted] = head[1]!.split(".");
      section = [name!.toLowerCase(), ...(head[2] !== undefined ? [head[2].replace(/\\(.)/g, "$1")] : dotted.length ? [dotted.join(".").toLowerCase()] : [])].join(".");
      rest = head[3] ?? "";
    }
    const kv = /^\s*([A-Za-z][\w-]*)\s*(?:=\s*(.*?))?\s*$/.exec(rest.replace(/\s[#;].*$/, ""));
    if (!kv || !section || /^\s*[#;]/.test(rest)) continue;
    out.push([`${section}.${kv[1]!.toLowerCase()}`, (kv[2] ?? "true").replace(/^"(.*)"$/, "$1")]);
  }
  return out;
}

/**
 * Why git started in `dir` may run a program its repository's own files name, or undefined: a key of the repository
 * config that names one (also in `config.worktree` and in a file it includes), or a `post-index-change` hook.
 */
export function gitRepoRunsPrograms(dir: string): string | undefined {
  const gitDir = gitDirOf(dir);
  if (!gitDir) return undefined;
  const files = [join(gitDir, "config"), join(gitDir, "config.worktree")];
  // A linked worktree's config is the common directory's.
  try {
    const common = readFileSync(join(gitDir, "commondir"), "utf8").trim();
    if (common) files.push(join(resolve(gitDir, common), "config"));
  } catch {}
  let hooks = join(gitDir, "hooks");
  for (let i = 0; i < files.length && i < 8; i++) {
    let text: string;
    try {
      text = readFileSync(files[i]!, "utf8");
    } catch {
      continue;
    }
    for (const [key, value] of gitConfigEntries(text)) {
      if (key === "include.path" || /^includeif\..+\.path$/.test(key)) {
        // Follow includes: what they name is read as config too.
        const p = value.startsWith("~/") ? join(process.env.HOME ?? "/", value.slice(2)) : isAbsolute(value) ? value : join(dirname(files[i]!), value);
        files.push(p);
        continue;
      }
      if (key === "core.hookspath") {
        hooks = isAbsolute(value) ? value : join(dirname(gitDir), value);
        // Hooks outside the git directory are files the model may write (`tools/post-index-change`); a protected
        // folder (husky's `.husky/_`) it cannot write without approval.
        if (!isInside(gitDir, resolve(hooks)) && !isProtectedPath(resolve(hooks))) return `the repository's git config sets core.hooksPath to ${value}, whose hooks git status may run`;
        continue;
      }
      if (RUNS.test(key) && !HARMLESS(key, value)) return `the repository's git config sets ${key}, which names a program git runs`;
    }
  }
  if (existsSync(join(hooks, "post-index-change"))) return "the repository has a post-index-change hook, which git status and git diff run";
  return undefined;
}
