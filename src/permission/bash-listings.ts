// Commands that print the NAMES of what lies under a folder (issue 16 review point 1): recursive listings (`ls -R`,
// `find`, `tree`, `du`, `fd`, `locate`), shell patterns (`echo */*`), and git's listings of the work tree, the index
// and the history. With `Read(./secrets/**)` denied, the names under `secrets/` are as hidden as the contents: such a
// command is not auto-allowed when its scope holds a denied folder (the sandbox hides the folder's contents itself:
// an empty tmpfs is mounted over it, so the ask is `pathOnly`). A denied FILE's own name (`.env`) is what the rule
// already says and what a plain `ls` shows, so only names strictly inside a denied folder count.
// Looks at the filesystem (bounded) and, for git, asks git (bounded); never throws.
import { existsSync, readdirSync, realpathSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import type { ShellWord } from "./bash-parse.ts";
import { gitSubcommand } from "./bash-words.ts";
import { isDirectory, trackedFiles } from "./bash-readers.ts";
import { isInside, resolvePath } from "./paths.ts";
import { findPathRule, type RuleSet } from "./rule-set.ts";
import type { PermissionRule } from "./types.ts";
import { ruleTargets } from "../sandbox/policy.ts";
import { deniedInHistorySync } from "../sandbox/history.ts";
import { runProcessSync } from "../util/subprocess.ts";

const w = (value: string): ShellWord => ({ value, raw: value, static: true, glob: false });
const DOT = [w(".")];

/** Folders a command lists the names under. `maxDepth`: how deep below a target names are printed (1: its entries). */
export type Listing = { targets: ShellWord[]; maxDepth?: number; follow: boolean };

/** Operands of a command: words that are no option and no option's value (`valued`: options taking the next word). */
function operands(argv: ShellWord[], valued: Set<string>, from = 1): ShellWord[] {
  const out: ShellWord[] = [];
  let end = false;
  for (let i = from; i < argv.length; i++) {
    const x = argv[i]!;
    if (!end && x.static && x.value === "--") end = true;
    else if (!end && x.static && x.value.startsWith("-") && x.value.length > 1) {
      if (valued.has(x.value)) i++;
    } else out.push(x);
  }
  return out;
}

const flagWords = (argv: ShellWord[]) => argv.slice(1).filter((x) => x.static && x.value.startsWith("-")).map((x) => x.value);
/** A short option letter in any cluster (`-laR`), or one of the long spellings. */
const hasFlag = (flags: string[], short: string, ...long: string[]) =>
  flags.some((f) => (/^-[^-]/.test(f) && f.includes(short)) || long.some((l) => f === l || f.startsWith(`${l}=`)));
const numberAfter = (argv: ShellWord[], names: string[]): number | undefined => {
  for (let i = 1; i < argv.length; i++) {
    const v = argv[i]!.value;
    for (const n of names) {
      if (v === n && argv[i + 1]?.static) return Number(argv[i + 1]!.value);
      if (n.startsWith("--") && v.startsWith(`${n}=`)) return Number(v.slice(n.length + 1));
      if (!n.startsWith("--") && n.length === 2 && v.startsWith(n) && /^\d+$/.test(v.slice(2))) return Number(v.slice(2));
    }
  }
  return undefined;
};
const finite = (n: number | undefined) => (n === undefined || Number.isNaN(n) ? undefined : n);

const LS_VALUED = new Set(["-I", "-T", "-w", "--ignore", "--hide", "--tabsize", "--width", "--block-size", "--format", "--sort", "--time", "--time-style", "--color", "--quoting-style", "--indicator-style"]);
const TREE_VALUED = new Set(["-L", "-P", "-I", "-H", "-T", "-o", "--filelimit", "--charset", "--timefmt", "--sort", "--infofile", "--gitfile", "--hintro", "--houtro"]);
const DU_VALUED = new Set(["-B", "-d", "-t", "-X", "--block-size", "--max-depth", "--threshold", "--exclude-from", "--time-style", "--files0-from"]);
const FD_VALUED = new Set(["-e", "-E", "-t", "-d", "-x", "-X", "-j", "-S", "-c", "-o", "--extension", "--exclude", "--type", "--max-depth", "--min-depth", "--exact-depth", "--exec", "--exec-batch", "--threads", "--size", "--color", "--owner", "--changed-within", "--changed-before", "--max-results", "--ignore-file", "--path-separator", "--batch-size", "--format", "--and"]);
const EZA_VALUED = new Set(["-L", "-I", "--level", "--ignore-glob", "--sort", "--color", "--colour", "--time-style", "--width", "-w"]);

/** The folders a command lists the names under, recursively; undefined when it lists none that way. Pure. */
export function listingOf(argv: ShellWord[], name: string): Listing | undefined {
  const flags = flagWords(argv);
  switch (name) {
    case "ls":
    case "dir":
    case "vdir": {
      if (!hasFlag(flags, "R", "--recursive") || hasFlag(flags, "d", "--directory")) return undefined;
      const t = operands(argv, LS_VALUED);
      return { targets: t.length ? t : DOT, follow: hasFlag(flags, "L", "--dereference") };
    }
    case "find": {
      // Leading options (-H -L -P -D x -Olevel), then start points up to the first expression word.
      let i = 1;
      let follow = false;
      for (; i < argv.length && argv[i]!.static; i++) {
        const v = argv[i]!.value;
        if (v === "-L") follow = true;
        else if (v === "-D") i++;
        else if (!/^-(H|P|O\d*)$/.test(v)) break;
      }
      const starts: ShellWord[] = [];
      for (; i < argv.length; i++) {
        const x = argv[i]!;
        if (x.static && (/^[-(!,]/.test(x.value) || x.value === ")")) break;
        starts.push(x);
      }
      follow ||= argv.some((x) => x.static && x.value === "-follow");
      return { targets: starts.length ? starts : DOT, maxDepth: finite(numberAfter(argv, ["-maxdepth"])), follow };
    }
    case "tree": {
      const t = operands(argv, TREE_VALUED);
      return { targets: t.length ? t : DOT, maxDepth: finite(numberAfter(argv, ["-L"])), follow: hasFlag(flags, "l") };
    }
    case "du": {
      const t = operands(argv, DU_VALUED);
      // `du -s` prints one line per operand; `-d N` prints folders N deep (`-a`: files too).
      const depth = hasFlag(flags, "s", "--summarize") ? 0 : finite(numberAfter(argv, ["-d", "--max-depth"]));
      return { targets: t.length ? t : DOT, maxDepth: depth, follow: hasFlag(flags, "L", "--dereference") };
    }
    case "fd":
    case "fdfind": {
      const ops = operands(argv, FD_VALUED);
      const paths = [...ops.slice(1)];
      for (let i = 1; i < argv.length; i++) if (argv[i]!.value === "--search-path" || argv[i]!.value === "--base-directory") argv[i + 1] && paths.push(argv[i + 1]!);
      return { targets: paths.length ? paths : DOT, maxDepth: finite(numberAfter(argv, ["-d", "--max-depth", "--exact-depth"])), follow: hasFlag(flags, "L", "--follow") };
    }
    case "locate":
    case "plocate":
    case "mlocate":
    case "slocate":
      // The database names every file on the machine.
      return { targets: [w("/")], follow: false };
    case "eza":
    case "exa": {
      if (!hasFlag(flags, "R", "--recurse") && !hasFlag(flags, "T", "--tree")) return undefined;
      const t = operands(argv, EZA_VALUED);
      return { targets: t.length ? t : DOT, maxDepth: finite(numberAfter(argv, ["-L", "--level"])), follow: false };
    }
    default:
      return undefined;
  }
}

/** A Read deny rule covering a proper ancestor of `abs` (by any of its spellings): `abs` lies in a denied folder. */
export function deniedAncestor(set: RuleSet, abs: string, home: string): PermissionRule | undefined {
  for (let d = dirname(abs), guard = 0; guard < 64; d = dirname(d), guard++) {
    const rule = findPathRule(set, "deny", "Read", resolvePath(d, "/", home).all);
    if (rule) return rule;
    if (dirname(d) === d) return undefined;
  }
  return undefined;
}

export type FolderHit = { dir: string; rule: PermissionRule; depth: number };
const depthBelow = (scope: string, p: string) => (relative(scope, p) === "" ? 0 : relative(scope, p).split(sep).length);
const GLOB = /[*?[\]{}]/;
const GLOB_LIMIT = 5000;
const WALK_BUDGET = 20000;

/**
 * A folder a Read deny rule covers, strictly inside `scope` (a real path) and within `maxDepth` of printing its
 * entries; "unknown" when that cannot be told within budget. Candidates are the rule's own targets, the paths the
 * sandbox mounts over (policy.ts `ruleTargets`); `follow` also walks the scope for links to denied folders.
 */
export function deniedFolderIn(set: RuleSet, scope: string, o: { home: string; maxDepth?: number; follow: boolean }): FolderHit | "unknown" | undefined {
  const leaks = (depth: number) => o.maxDepth === undefined || depth + 1 <= o.maxDepth;
  for (const pr of set.pathRules.deny.Read) {
    for (const t of ruleTargets(pr.compiled)) {
      if (!GLOB.test(t)) {
        if (t !== scope && isInside(scope, t) && isDirectory(t) && leaks(depthBelow(scope, t))) return { dir: t, rule: pr.rule, depth: depthBelow(scope, t) };
        continue;
      }
      const base = t.slice(0, t.search(GLOB)).replace(/\/[^/]*$/, "") || "/";
      if (!isInside(scope, base) && !isInside(base, scope)) continue;
      let n = 0;
      try {
        for (const rel of new Bun.Glob(t.slice(base.length).replace(/^\/+/, "")).scanSync({ cwd: base, dot: true, onlyFiles: false, followSymlinks: false })) {
          if (++n > GLOB_LIMIT) return "unknown";
          const abs = join(base, rel);
          if (abs !== scope && isInside(scope, abs) && isDirectory(abs) && leaks(depthBelow(scope, abs))) return { dir: abs, rule: pr.rule, depth: depthBelow(scope, abs) };
        }
      } catch {
        return "unknown";
      }
    }
  }
  return o.follow ? linkedFolderIn(set, scope, o.home, leaks) : undefined;
}

/** Following links (`find -L`, `ls -RL`, `tree -l`): a link anywhere under `scope` that leads into a denied folder. */
function linkedFolderIn(set: RuleSet, scope: string, home: string, leaks: (depth: number) => boolean): FolderHit | "unknown" | undefined {
  let budget = WALK_BUDGET;
  const seen = new Set<string>([scope]);
  const stack: Array<{ dir: string; depth: number }> = [{ dir: scope, depth: 0 }];
  while (stack.length) {
    const { dir, depth } = stack.pop()!;
    let entries: import("node:fs").Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      if (--budget < 0) return "unknown";
      const abs = join(dir, e.name);
      if (e.isDirectory()) {
        if (!seen.has(abs)) (seen.add(abs), stack.push({ dir: abs, depth: depth + 1 }));
        continue;
      }
      if (!e.isSymbolicLink() || !isDirectory(abs)) continue;
      let real: string;
      try {
        real = realpathSync(abs);
      } catch {
        continue;
      }
      const rule = findPathRule(set, "deny", "Read", [real]) ?? deniedAncestor(set, join(real, "x"), home);
      if (rule && leaks(depth + 1)) return { dir: abs, rule, depth: depth + 1 };
      if (!rule && !seen.has(real)) (seen.add(real), stack.push({ dir: real, depth: depth + 1 }));
    }
  }
  return undefined;
}

/**
 * What names a git command prints beyond contents (gitContentScope): the untracked tree, the index, the history.
 * `limits`: the pathspecs after `--` that bound it, when every one is a plain static path.
 */
export type GitNames = { untracked: boolean; tracked: boolean; history: boolean; limits?: ShellWord[] };

const NAME_OPTS = /^(--stat.*|--name-only|--name-status|--raw|--numstat|--summary|--dirstat.*|--compact-summary|--find-renames.*|-M\d*|-C\d*)$/;

/** Which names a git command lists (issue 16 review point 1); undefined for none. `here`: where it runs. */
export function gitNames(argv: ShellWord[], here: string): GitNames | undefined {
  const { sub, before, after, opts } = gitSubcommand(argv);
  const limits = after.length && after.every((x) => x.static && !/[*?[]/.test(x.value) && !x.value.startsWith(":")) ? after : undefined;
  const out = (n: Omit<GitNames, "limits">): GitNames => ({ ...n, ...(limits ? { limits } : {}) });
  const all = (o: string) => /^(-u|-uall|--untracked-files(=all)?|--ignored(=.*)?)$/.test(o);
  switch (sub) {
    case "status":
      // Untracked folders show collapsed (`secrets/`) unless asked otherwise, on the line or in git's config.
      return out({ untracked: opts.some(all) || untrackedAllConfigured(here), tracked: true, history: false });
    case "ls-files":
      // `--with-tree=REV` lists that commit's files too, deleted ones included.
      return out({ untracked: opts.some((o) => /^(-o|--others|-i|--ignored|--directory)$/.test(o) || /^-[a-zA-Z]*[oi]/.test(o)), tracked: true, history: opts.some((o) => o.startsWith("--with-tree")) });
    case "rev-list":
      // `--objects` (and `--objects-edge...`) prints every tree and blob reachable, with its path.
      return opts.some((o) => o.startsWith("--objects")) ? out({ untracked: false, tracked: false, history: true }) : undefined;
    case "clean":
      return out({ untracked: true, tracked: false, history: false });
    case "ls-tree":
      return out({ untracked: false, tracked: true, history: true });
    case "diff": {
      if (!opts.some((o) => NAME_OPTS.test(o))) return undefined;
      // The work tree against the index names tracked files only; `--cached` or a revision brings in a commit's tree.
      const revisions = before.some((x) => !(x.static && x.value.startsWith("-")) && !(x.static && existsSync(join(here, x.value))));
      return out({ untracked: false, tracked: true, history: revisions || opts.some((o) => o === "--cached" || o === "--staged") });
    }
    case "log":
    case "show":
    case "whatchanged":
    case "reflog":
    case "diff-tree":
    case "diff-index":
    case "diff-files":
    case "stash":
      return opts.some((o) => NAME_OPTS.test(o)) || sub === "whatchanged" || sub.startsWith("diff-") ? out({ untracked: false, tracked: true, history: sub !== "diff-files" }) : undefined;
    default:
      return undefined;
  }
}

/**
 * Whether a folder a Read deny rule covers may lie inside `abs` or hold it: a literal target whether or not it
 * exists now (it may be only in the history), a glob target by the folders it matches on disk.
 */
export function deniedFolderMayMeet(set: RuleSet, abs: string, home: string): boolean {
  if (findPathRule(set, "deny", "Read", resolvePath(abs, "/", home).all) || deniedAncestor(set, abs, home)) return true;
  if (set.pathRules.deny.Read.some((pr) => ruleTargets(pr.compiled).some((t) => !GLOB.test(t) && isInside(abs, t)))) return true;
  return isDirectory(abs) && deniedFolderIn(set, abs, { home, follow: false }) !== undefined;
}

/** `status.showUntrackedFiles=all` in the configuration git would read there. */
function untrackedAllConfigured(here: string): boolean {
  try {
    const r = runProcessSync(["git", "-c", "core.fsmonitor=false", "config", "--get", "status.showUntrackedFiles"], { cwd: here, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/" }, timeoutMs: 5_000 });
    return r.stdout.trim().toLowerCase() === "all";
  } catch {
    return true;
  }
}

/**
 * The first name under a denied folder a git listing would print from the index or the history of the work tree
 * `top`, as a path; "unknown" when git cannot say. `tracked` lists git ls-files once per top (`cache`).
 */
export function gitDeniedName(set: RuleSet, top: string, names: GitNames, home: string, cache: Map<string, string[] | undefined>): string | "unknown" | undefined {
  if (names.tracked) {
    if (!cache.has(top)) cache.set(top, trackedFiles(top));
    const tracked = cache.get(top);
    if (tracked === undefined) return "unknown";
    const hit = tracked.find((f) => deniedAncestor(set, f, home));
    if (hit) return hit;
  }
  if (names.history) {
    // Folder rules only: a denied file's own name is what the rule says.
    const folders = set.pathRules.deny.Read.filter((pr) => /\/(\*\*)?$/.test(pr.rule.specifier ?? "") || ruleTargets(pr.compiled).some((t) => !GLOB.test(t) && isDirectory(t)));
    const targets = folders.flatMap((pr) => ruleTargets(pr.compiled)).filter((t) => t === top || isInside(top, t));
    if (targets.length) return deniedInHistorySync([top], targets);
  }
  return undefined;
}
