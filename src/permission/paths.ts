import { readdirSync, readlinkSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import ignore from "ignore";
import type { PermissionRule } from "./types.ts";

const expandTilde = (p: string, home: string): string =>
  p === "~" ? home : p.startsWith("~/") ? join(home, p.slice(2)) : p;

/** One path as rules must see it. `all` feeds deny/ask checks; `physical` feeds allow and inside-the-working-dirs checks. */
export type ResolvedPath = {
  /** Absolute, `..` removed by text (what a naive check would see). */
  lexical: string;
  /** Parent directories resolved through symlinks as the kernel walks them; the last component kept as named. */
  link: string;
  /** Fully resolved, including a symlinked last component; missing tails appended as written. */
  real: string;
  all: string[];
  physical: string[];
};

/** The kernel's limit on symlinks followed in one lookup (ELOOP past it). */
const MAX_HOPS = 40;

/** The target of `p` when it is a symlink, else undefined. Never throws. */
function linkTarget(p: string): string | undefined {
  try {
    return readlinkSync(p);
  } catch {
    return undefined;
  }
}

/**
 * Walks the path component by component as the kernel does, so `link/..` goes where the link points. A last component
 * that is a dangling symlink is followed too: opening it to write creates its target (O_CREAT follows the link), so
 * `real` is where a write lands, not the link's own name. Never throws.
 */
function walkPhysical(raw: string, hops = 0): { link: string; real: string } {
  const parts = raw.split("/").filter(Boolean);
  let cur = "/";
  let link = "/";
  let exists = true;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (part === ".") {
      link = cur;
      continue;
    }
    if (part === "..") {
      cur = dirname(cur);
      link = cur;
      continue;
    }
    const next = join(cur, part);
    link = next;
    if (exists) {
      try {
        cur = realpathSync(next);
        continue;
      } catch {
        exists = false;
        const target = i === parts.length - 1 && hops < MAX_HOPS ? linkTarget(next) : undefined;
        if (target !== undefined) return { link, real: walkPhysical(isAbsolute(target) ? target : `${cur}/${target}`, hops + 1).real };
      }
    }
    cur = next;
  }
  return { link, real: cur };
}

/** Resolves `~`, relative forms, `..`, symlinks and /proc/self/cwd. Never throws. */
export function resolvePath(p: string, cwd: string, home: string): ResolvedPath {
  const expanded = expandTilde(p.normalize("NFC"), home);
  let raw = (isAbsolute(expanded) ? expanded : `${cwd}/${expanded}`).replace(/\/+/g, "/");
  // /proc/self/cwd means the shell's or tool's directory, not ours.
  const m = /^\/proc\/(?:self|thread-self)\/(cwd|root)(?=\/|$)/.exec(raw);
  if (m) raw = `${m[1] === "cwd" ? cwd : ""}/${raw.slice(m[0].length)}`;
  const lexical = resolve(raw);
  const { link, real } = walkPhysical(raw);
  return { lexical, link, real, all: [...new Set([lexical, link, real])], physical: [...new Set([link, real])] };
}

// Cyrillic and Greek letters that look like Latin ones, folded so a look-alike spelling of a denied name is caught.
const CONFUSABLES: Record<string, string> = {
  а: "a", е: "e", о: "o", р: "p", с: "c", х: "x", у: "y", і: "i", ј: "j", ѕ: "s", ԁ: "d", һ: "h", ӏ: "l", к: "k", м: "m", т: "t", в: "b", н: "h",
  α: "a", ο: "o", ρ: "p", ν: "v", τ: "t", ι: "i", κ: "k", υ: "u", χ: "x", ϲ: "c",
};

/** Compatibility-folds a path (NFKC, case, look-alikes, zero-width chars) for deny matching only. */
export function foldPath(p: string): string {
  return p
    .normalize("NFKC")
    .replace(/[\u200b-\u200d\u2060\ufeff]/g, "")
    .toLowerCase()
    .replace(/[^\x00-\x7f]/g, (c) => CONFUSABLES[c] ?? c);
}

export type PathRuleContext = { cwd: string; home: string; ruleRoot: string };

export type CompiledPathRule = { root: string; realRoot: string; pattern: string; folded: ReturnType<typeof ignore>; exact: ReturnType<typeof ignore> };

/** Compiles a Read/Edit specifier into a root and a gitignore pattern (internals §9.1 path table). */
export function compilePathRule(spec: string, ctx: PathRuleContext): CompiledPathRule {
  let root: string;
  let pattern: string;
  if (spec.startsWith("//")) {
    root = "/";
    pattern = spec.slice(1);
  } else if (spec === "~" || spec.startsWith("~/")) {
    root = ctx.home;
    pattern = spec === "~" ? "/" : spec.slice(1);
  } else if (spec.startsWith("/")) {
    root = ctx.ruleRoot;
    pattern = spec;
  } else {
    root = ctx.cwd;
    pattern = spec.startsWith("./") ? spec.slice(2) : spec;
  }
  if (pattern.endsWith("/**") && pattern.length > 3) {
    pattern = pattern.slice(0, -3);
    // `secrets/**` is anchored in gitignore terms; `secrets` alone would match at any depth.
    if (!pattern.includes("/")) pattern = `/${pattern}`;
  }
  if (pattern === "/" || pattern === "" || pattern === "**") pattern = "**";
  let realRoot = root;
  try {
    realRoot = realpathSync(root);
  } catch {}
  return { root, realRoot, pattern, exact: ignore().add(pattern), folded: ignore({ ignorecase: true }).add(foldPath(pattern)) };
}

/** True when one absolute path is covered by the compiled rule. `fold` also tries the look-alike-folded spelling. */
export function pathRuleMatches(rule: CompiledPathRule, abs: string, fold: boolean): boolean {
  for (const root of rule.realRoot === rule.root ? [rule.root] : [rule.root, rule.realRoot]) {
    const rel = relative(root, abs);
    if (rel === "") {
      if (rule.pattern === "**") return true;
      continue;
    }
    if (rel.startsWith(`..${sep}`) || rel === ".." || isAbsolute(rel)) continue;
    const posix = rel.split(sep).join("/");
    // A folder rule (`Read(./secrets/)`) covers the folder itself too, as Grep and Glob name it without the slash.
    if (rule.exact.ignores(posix) || rule.exact.ignores(`${posix}/`)) return true;
    if (fold && (rule.folded.ignores(foldPath(posix)) || rule.folded.ignores(`${foldPath(posix)}/`))) return true;
  }
  return false;
}

export const isInside = (dir: string, abs: string): boolean => {
  const rel = relative(dir, abs);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
};

/** A compiled path rule plus the rule it came from. */
export type PathRule = { rule: PermissionRule; compiled: CompiledPathRule };

const WALK_BUDGET = 20000;

/**
 * Whether a rule may cover something inside `dir` (for recursive readers like `grep -r`, `rg`, `cp -r`).
 * Anchored rules are decided from their literal base; others by walking `dir` with a budget.
 * Returns "yes", "no", or "unknown" (budget exhausted). Never throws.
 */
export function ruleMayCoverInside(rule: CompiledPathRule, dir: string): "yes" | "no" | "unknown" {
  if (!isInside(rule.root, dir) && !isInside(dir, rule.root)) return "no";
  if (pathRuleMatches(rule, dir, true)) return "yes";
  if (rule.pattern === "**") return isInside(dir, rule.root) ? "yes" : "no";
  const p = rule.pattern.replace(/\/$/, "");
  const anchored = p.startsWith("/") || p.includes("/");
  if (anchored) {
    const segs = p.replace(/^\//, "").split("/");
    const lit: string[] = [];
    for (const s of segs) {
      if (/[*?[\\]/.test(s)) break;
      lit.push(s);
    }
    const base = join(rule.root, ...lit);
    return isInside(dir, base) || isInside(base, dir) ? "yes" : "no";
  }
  let budget = WALK_BUDGET;
  const stack = [dir];
  while (stack.length) {
    const d = stack.pop()!;
    let entries: import("node:fs").Dirent[];
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      if (--budget < 0) return "unknown";
      const abs = join(d, e.name);
      if (pathRuleMatches(rule, abs, true)) return "yes";
      if (e.isDirectory()) stack.push(abs);
    }
  }
  return "no";
}

/**
 * ripgrep `--glob` exclusions that keep a search under `searchDir` out of paths the rule denies,
 * so the Grep tool can honour Read deny rules without refusing whole-tree searches. Pure apart from realpath.
 */
export function grepExcludeGlobs(rule: CompiledPathRule, searchDir: string): string[] {
  if (!isInside(rule.root, searchDir) && !isInside(searchDir, rule.root)) return [];
  const p = rule.pattern.replace(/\/$/, "");
  if (p === "**") {
    const rel = relative(searchDir, rule.root).split(sep).join("/");
    return isInside(rule.root, searchDir) ? ["!**"] : [`!${rel}`, `!${rel}/**`];
  }
  const anchored = p.startsWith("/") || p.includes("/");
  if (!anchored) return [`!${p}`, `!${p}/**`];
  const abs = join(rule.root, p.replace(/^\//, ""));
  if (!isInside(searchDir, abs)) return isInside(abs.replace(/\/[^/]*[*?[].*$/, ""), searchDir) ? ["!**"] : [];
  const rel = relative(searchDir, abs);
  if (rel === "") return ["!**"];
  const posix = rel.split(sep).join("/");
  return [`!${posix}`, `!${posix}/**`];
}
