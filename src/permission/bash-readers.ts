// What a command reads beyond its plain operands: whole trees and histories (issue 16 class 3), file names inside
// option values (class 4), and inline code that can start programs (class 6). Pure functions over words, except
// where they say they look at the filesystem.
import { existsSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { ShellWord } from "./bash-parse.ts";
import { gitOperands, gitSubcommand, pathArgs } from "./bash-words.ts";
import { fileOperands, grepRecursive } from "./bash-operands.ts";
import { runProcessSync } from "../util/subprocess.ts";

const w = (value: string): ShellWord => ({ value, raw: value, static: true, glob: false });

export const isDirectory = (p: string): boolean => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};

/** The work tree holding `dir` (nearest folder with a `.git`), else `dir`. Never throws. */
export function gitTopLevel(dir: string): string {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, ".git"))) return d;
    if (dirname(d) === d) return dir;
  }
}

/**
 * Whether git started in `dir` would use a repository whose config lies outside a `.git` folder: a bare repository
 * (HEAD, objects/, refs/) met before any `.git` while git walks up. Files the model may write (acceptEdits) and whose
 * config can name programs (core.fsmonitor, diff.external). Looks at the filesystem; never throws.
 */
export function gitConfigUnprotected(dir: string): boolean {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, ".git"))) return false;
    if (existsSync(join(d, "HEAD")) && isDirectory(join(d, "objects")) && isDirectory(join(d, "refs"))) return true;
    if (dirname(d) === d) return false;
  }
}

/** Options (separate word) whose value is a file the command opens, for commands whose other words are no files. */
const FILE_OPTS: Record<string, string[]> = {
  date: ["-f", "--file", "-r", "--reference"],
  file: ["-f", "--files-from", "-m", "--magic-file"],
  find: ["-files0-from", "-newer", "-anewer", "-cnewer", "-samefile", "-fls", "-fprint", "-fprint0", "-fprintf"],
  hostname: ["-F", "--file"],
  git: ["--contents", "--file", "-f", "-F", "--blob"],
};

/**
 * Words inside options that may name a file: `--opt=VALUE`, every tail of a short cluster (`-f.env`, `-fsecrets/x`),
 * the part after a `:` (`-L1,1:.env`), and the next word after a known file option. Checked against deny rules only.
 */
export function optionPathCandidates(argv: ShellWord[]): ShellWord[] {
  const name = argv[0]?.static ? basename(argv[0].value) : "";
  const out: string[] = [];
  for (let i = 1; i < argv.length; i++) {
    const x = argv[i]!;
    if (!x.static) continue;
    const v = x.value;
    if (v === "--") break;
    const eq = v.indexOf("=");
    if (/^--?[^-=][^=]*=/.test(v)) out.push(v.slice(eq + 1));
    else if (/^-[^-]./.test(v)) for (let k = 2; k < v.length; k++) out.push(v.slice(k));
    if (FILE_OPTS[name]?.includes(v) && argv[i + 1]?.static) out.push(argv[i + 1]!.value);
  }
  for (const c of [...out]) if (c.includes(":")) out.push(c.slice(c.lastIndexOf(":") + 1));
  return [...new Set(out)].filter((c) => c !== "").map(w);
}

/** Which file contents a git command prints beyond its named operands. */
export type GitScope =
  | { kind: "none" }
  /** These paths (folders searched for denied paths inside). */
  | { kind: "paths"; targets: ShellWord[] }
  /** Every tracked file of the work tree and index. */
  | { kind: "tracked" }
  /** Anything in the repository's history. */
  | { kind: "history"; why: string };

const PATCH = /^(-p|-u|--patch.*|-U\d*|--unified.*|--cc|-c|-m|--word-diff.*|--color-words.*|--full-diff|-W|--function-context|--binary|--textconv|--remerge-diff|--diff-merges.*)$|^-[LGS]/;
const NO_PATCH = /^(-s|--no-patch|--stat.*|--name-only|--name-status|--numstat|--shortstat|--summary|--dirstat.*|--quiet|--raw|--compact-summary)$/;
const HISTORY_ALWAYS = new Set(["format-patch", "archive", "bundle", "fast-export"]);

/** What a git command shows of file contents (issue 16 class 3). `here` is where it runs. Never throws. */
export function gitContentScope(argv: ShellWord[], here: string): GitScope {
  const { sub, before, after, opts } = gitSubcommand(argv);
  const operands = before.filter((x) => !(x.static && x.value.startsWith("-")));
  const patch = opts.some((o) => PATCH.test(o));
  let content: boolean;
  switch (sub) {
    case "log":
    case "whatchanged":
    case "reflog":
      content = patch;
      break;
    case "show":
      content = patch || !opts.some((o) => NO_PATCH.test(o)) || operands.some((x) => !x.static || /^[0-9a-f]{4,40}$/i.test(x.value));
      break;
    case "diff":
      if (opts.includes("--no-index")) return { kind: "paths", targets: [...operands, ...after] };
      content = patch || !opts.some((o) => NO_PATCH.test(o));
      break;
    case "cat-file":
      if (opts.some((o) => /^-[tse]$/.test(o))) return { kind: "none" };
      if (opts.some((o) => o.startsWith("--batch"))) return { kind: "history", why: "reads objects by id" };
      // `rev:path` operands were checked as files; anything else is an object id.
      return operands.every((x) => x.static && (x.value.includes(":") || /^(blob|tree|commit|tag)$/.test(x.value))) ? { kind: "none" } : { kind: "history", why: "reads an object by id" };
    case "grep":
      if (opts.includes("--no-index") || opts.includes("--untracked")) return { kind: "none" };
      content = true;
      break;
    case "stash":
      content = operands[0]?.value === "show" && patch;
      break;
    default:
      if (HISTORY_ALWAYS.has(sub)) return { kind: "history", why: `${sub} writes out whole commits` };
      return { kind: "none" };
  }
  if (!content) return { kind: "none" };
  // Operands that exist are paths; the others are revisions (their trees and history).
  const pathspecs = [...after];
  let revisions = false;
  for (const x of operands) {
    if (sub === "grep" && x === operands[0] && !opts.some((o) => o === "-e" || o === "-f")) continue;
    if (!x.static) return { kind: "history", why: `cannot tell what ${x.raw} names` };
    if (x.value.includes(":")) continue;
    if (existsSync(join(here, x.value)) || x.value.startsWith("/")) pathspecs.push(x);
    else revisions = true;
  }
  if (pathspecs.some((p) => !p.static || /[*?[]/.test(p.value) || p.value.startsWith(":")))
    return { kind: "history", why: "a pathspec pattern can match any file" };
  if (pathspecs.length) return { kind: "paths", targets: pathspecs };
  if ((sub === "diff" || sub === "grep") && !revisions) return { kind: "tracked" };
  return { kind: "history", why: sub === "diff" ? "it compares whole trees" : "it shows whole commits" };
}

/** Files git tracks in the work tree holding `top` (absolute paths), or undefined when git cannot say. */
export function trackedFiles(top: string): string[] | undefined {
  try {
    const r = runProcessSync(["git", "-c", "core.fsmonitor=false", "ls-files", "-z"], { cwd: top, env: { PATH: process.env.PATH ?? "/usr/bin:/bin" }, timeoutMs: 10_000, maxOutputBytes: 256 * 1024 * 1024 });
    if (r.code !== 0) return undefined;
    return r.stdout.split("\0").filter(Boolean).map((f) => join(top, f));
  } catch {
    return undefined;
  }
}

/** Directories a command reads recursively (`grep -r`, `rg`, `cp -r`, `tar`, `diff` of folders ...): undefined when it does not. */
export function recursiveTargets(argv: ShellWord[], name: string): ShellWord[] | undefined {
  const flags = argv.slice(1).filter((x) => x.static && x.value.startsWith("-")).map((x) => x.value);
  const short = (c: string) => flags.some((f) => /^-[^-]/.test(f) && f.includes(c));
  const recursive =
    ["rg", "ag", "ack", "tar", "rsync", "zip", "7z", "diff"].includes(name)
      ? true
      : ["grep", "egrep", "fgrep"].includes(name)
        ? grepRecursive(argv)
        : ["cp", "scp"].includes(name)
          ? short("r") || short("R") || short("a") || flags.some((f) => f === "--recursive" || f === "--archive")
          : false;
  if (!recursive) return gitGrepTargets(argv, name);
  // diff reads the files of folders it is given (with -N, also those only one side has), recursive or not.
  // The operands only, not option values (`grep -r --exclude-dir=src x` searches the cwd, not src).
  return fileOperands(argv) ?? pathArgs(argv);
}

/** `git grep` searches the tree like `grep -r`: its operands after the pattern, else the cwd. */
function gitGrepTargets(argv: ShellWord[], name: string): ShellWord[] | undefined {
  if (name !== "git") return undefined;
  const { subcommand, paths } = gitOperands(argv);
  // Dropping the first operand as the pattern may drop a path when `-e` gave the pattern: the cwd is then searched, which is stricter.
  return subcommand === "grep" ? paths.slice(1) : undefined;
}

/** APIs and commands by which inline code starts other programs. */
const EXEC_CODE = /\b(system|exec\w*|spawn\w*|popen\w*|subprocess|child_process|Popen|os\.(system|exec\w*|spawn\w*|popen|fork\w*|posix_spawn\w*)|pty|Runtime|ProcessBuilder|Bun\.spawn|Deno\.|shell|pipe|getline|fork)\b|`|\|\s*["'$]|["']\s*\|/;
/**
 * Code that names what it calls at run time, so no word of it says (red team: `getattr(__import__('o'+'s'),'sys'+'tem')`):
 * dynamic imports and attribute lookups, eval, reflection, strings built from pieces or decoded.
 */
const DYNAMIC_CODE = /__import__|__builtins__|\b(getattr|importlib|builtins|globals|locals|vars|eval|compile|marshal|pickle|ctypes|cffi|codecs|b64decode|fromhex|chr|ord|Function|constructor|globalThis|Reflect|mainModule|binding|dlopen|send|public_send|const_get|instance_eval|class_eval|method|qx|fromCharCode|atob|Buffer|decode|unpack|reverse|join)\b|%x|["']\s*[+.]\s*["']|["']\s*\*\s*\d|\[::-1\]/;

/** Whether inline code (`python -c`, `node -e`, `awk` programs, `sed` scripts) may start another program or write files sed-style. */
export function codeMayExec(name: string, code: string): boolean {
  if (name === "sed") return /(^|[;{}\n\s\d$/!])[eWwRr]\b|\/[gpIiMm0-9]*[ew]/.test(code);
  return EXEC_CODE.test(code) || codeIsDynamic(name, code);
}

/** Whether an interpreter's inline code builds what it calls or opens at run time (awk's `"." ` joins are no such thing). */
export const codeIsDynamic = (name: string, code: string): boolean => name !== "awk" && name !== "gawk" && name !== "sed" && DYNAMIC_CODE.test(code);

/**
 * Whether a command writes files an archive or patch names (`tar -x`, `unzip`, `cpio -i`, `patch`): which paths they
 * are is only known when it runs, so they may be protected or denied ones (red team: `tar -xf x.tar` under
 * `Bash(tar:*)` could overwrite `protected/` or plant `.git/hooks/pre-commit`). Pure.
 */
export function writesUnnamedFiles(argv: ShellWord[], name: string): boolean {
  const words = argv.slice(1).filter((x) => x.static).map((x) => x.value);
  if (name === "tar" || name === "bsdtar" || name === "gtar") {
    // The mode is the first word's letters (`tar xf`), a short cluster (`-xzf`) or a long option.
    const first = words[0] ?? "";
    return (/^[a-zA-Z]+$/.test(first) && /x/.test(first)) || words.some((w) => /^-[a-zA-Z]*x/.test(w) || /^--(extract|get)$/.test(w));
  }
  if (name === "unzip") return !words.some((w) => /^-[a-zA-Z]*[lvtpzZ]/.test(w));
  if (name === "cpio") return words.some((w) => /^-[a-zA-Z]*[ip]/.test(w) || /^--(extract|pass-through)$/.test(w));
  if (name === "patch" || name === "ar" || name === "7z" || name === "7za" || name === "unrar" || name === "bsdcpio") return name !== "7z" && name !== "7za" && name !== "unrar" ? (name === "patch" || /x/.test(words[0] ?? "")) : words[0] === "x" || words[0] === "e";
  return false;
}

/** sed's and awk's program read from a file (`sed -f F`, `awk -f F`): not in the command line, so not checkable. */
export function programFromFile(argv: ShellWord[], name: string): boolean {
  if (name !== "sed" && name !== "awk" && name !== "gawk") return false;
  return argv.slice(1).some((x) => x.static && (/^-[a-zA-Z]*f/.test(x.value) || /^--fi(le?)?(=|$)/.test(x.value) || (name !== "sed" && (/^-[a-zA-Z]*E/.test(x.value) || /^--ex(ec?)?(=|$)/.test(x.value)))));
}
