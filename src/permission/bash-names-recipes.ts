// Verdicts on what a part prints or runs beyond its own words (issue 16 review points 1 and 2): names under denied
// folders (shell patterns, recursive listings, git's listings) and the recipes build tools run. Split from
// bash-check.ts, which calls them per part; they look at the filesystem (bounded) and never throw.
import { existsSync } from "node:fs";
import { basename, join } from "node:path";
import { braceExpand, unescapePattern } from "./bash-braces.ts";
import type { ShellWord } from "./bash-parse.ts";
import type { BashContext, DecideBash, Unit, Verdict } from "./bash-check.ts";
import { deniedAncestor, deniedFolderIn, deniedFolderMayMeet, gitDeniedName, gitNames, type Listing } from "./bash-listings.ts";
import { gitTopLevel, isDirectory } from "./bash-readers.ts";
import { gitOperands } from "./bash-words.ts";
import { resolvePath } from "./paths.ts";
import { projectScripts } from "./project-scripts.ts";

const WRITE_OPS = new Set([">", ">>", ">|", "&>", "&>>", "<>"]);

/** Bracket expressions holding POSIX classes (`[[:lower:]]`), which Bun.Glob does not know: matched as any one character. */
const POSIX_CLASS_BRACKET = /\[[!^]?(?:[^\]\[]|\[[:=.][^\]]*[:=.]\])*\[[:=.][^\]]*[:=.]\](?:[^\]\[]|\[[:=.][^\]]*[:=.]\])*\]/g;

export function expandGlob(pattern: string, cwd: string): string[] | undefined {
  try {
    const out: string[] = [];
    for (const f of new Bun.Glob(pattern.replace(POSIX_CLASS_BRACKET, "?")).scanSync({ cwd, dot: true, onlyFiles: false, followSymlinks: false, absolute: true })) {
      out.push(f);
      if (out.length > 2000) return undefined;
    }
    return out;
  } catch {
    return undefined;
  }
}

/**
 * Whether a shell pattern expands to names inside a folder a Read deny rule covers (`echo secrets/x*`): the
 * shell prints them, whatever the program. `heres` undefined: the directory is unknown.
 */
export function patternVerdict(word: ShellWord, heres: string[] | undefined, ctx: BashContext): Verdict | undefined {
  if (!word.static || !word.glob) return undefined;
  const alts = word.pattern !== undefined ? braceExpand(word.pattern) : [word.value];
  if (!alts) return { behavior: "ask", reason: `${word.raw} expands to too many words`, hard: true, pathOnly: true };
  for (const alt of alts) {
    const value = word.pattern !== undefined ? unescapePattern(alt) : alt;
    if (!/[*?[]/.test(value)) continue;
    const relative = !value.startsWith("/");
    if (relative && heres === undefined) return { behavior: "ask", reason: `cannot tell which folder ${word.raw} is expanded in`, hard: true, pathOnly: true };
    for (const here of relative ? heres! : ["/"]) {
      const found = expandGlob(value, here);
      if (found === undefined) return { behavior: "ask", reason: `cannot expand ${word.raw}`, hard: true, pathOnly: true };
      for (const f of found) {
        const rule = deniedAncestor(ctx.set, f, ctx.home);
        if (rule) return { behavior: "ask", reason: `the pattern ${word.raw} expands to names inside a folder rule ${rule.text} denies`, rule, pathOnly: true };
      }
    }
  }
  return undefined;
}

/** The names a part prints from under denied folders: its shell patterns, a recursive listing, a git listing. */
export function namesVerdict(u: Unit, name: string, listing: Listing | undefined, heres: string[], ctx: BashContext, trackedCache: Map<string, string[] | undefined>): Verdict | undefined {
  for (const x of [...u.argv, ...u.cmd.redirects.flatMap((r) => (r.target && !r.op.startsWith("<<") ? [r.target] : []))]) {
    const v = patternVerdict(x, heres, ctx);
    if (v) return v;
  }
  if (listing)
    for (const t of listing.targets) {
      if (!t.static) continue;
      for (const here of heres) {
        const scope = resolvePath(t.value, here, ctx.home).real;
        if (!isDirectory(scope)) continue;
        const hit = deniedFolderIn(ctx.set, scope, { home: ctx.home, maxDepth: listing.maxDepth, follow: listing.follow });
        if (hit === "unknown") return { behavior: "ask", reason: `${name} lists the names under ${t.raw}, too many to check against the Read deny rules`, hard: true, pathOnly: true };
        if (hit) return { behavior: "ask", reason: `${name} lists the names under ${t.raw}, among them those in ${hit.dir}, which rule ${hit.rule.text} denies; list narrower paths`, rule: hit.rule, pathOnly: true };
      }
    }
  if (name === "git")
    for (const here of heres) {
      const names = gitNames(u.argv, here);
      if (!names) continue;
      // Bounded by pathspecs that meet no denied folder (`git log --stat -- src`): nothing from one is listed.
      if (names.limits && !names.limits.some((l) => deniedFolderMayMeet(ctx.set, resolvePath(l.value, here, ctx.home).real, ctx.home))) continue;
      const top = gitTopLevel(here);
      // Outside a work tree git lists nothing (it fails).
      if (!existsSync(join(top, ".git"))) continue;
      const sub = gitOperands(u.argv).subcommand;
      if (names.untracked) {
        const hit = deniedFolderIn(ctx.set, top, { home: ctx.home, follow: false });
        if (hit === "unknown") return { behavior: "ask", reason: `git ${sub} lists untracked names, too many to check against the Read deny rules`, hard: true, pathOnly: true };
        if (hit) return { behavior: "ask", reason: `git ${sub} lists untracked and ignored names, among them those in ${hit.dir}, which rule ${hit.rule.text} denies`, rule: hit.rule, pathOnly: true };
      }
      const named = gitDeniedName(ctx.set, top, names, ctx.home, trackedCache);
      if (named === "unknown") return { behavior: "ask", reason: `git cannot list what git ${sub} names, so it cannot be checked against the Read deny rules`, hard: true };
      // The index and the history are in .git, which the sandbox does not hide: not `pathOnly`.
      if (named) {
        // Named by the folder, never by the file: the reason goes to the model.
        const rule = deniedAncestor(ctx.set, named, ctx.home);
        return { behavior: "ask", reason: `git ${sub} lists names from the index or the history, some inside a folder ${rule ? `rule ${rule.text}` : "a Read rule"} denies; name the paths to list after --`, rule, hard: !rule };
      }
    }
  return undefined;
}

const SCRIPT_FILES = /(^|\/)(GNUmakefile|makefile|Makefile|[^/]*\.mk|package\.json)$/;
const PM_WRITES = new Set(["pkg", "set-script", "init", "create", "exec", "x", "dlx", "patch", "patch-commit"]);

/** Whether a part may change a makefile or package.json: it names one, edits the manifest, or may write files anywhere. */
export function mayRewriteScripts(v: Unit, changesLinks: boolean): boolean {
  const name = v.argv[0]?.static ? basename(v.argv[0].value) : "";
  const words = [...v.argv.slice(1), ...v.cmd.redirects.flatMap((r) => (r.target ? [r.target] : []))];
  if (v.opaque || words.some((x) => !x.static || SCRIPT_FILES.test(x.value))) return true;
  if (["npm", "pnpm", "yarn", "bun"].includes(name)) return PM_WRITES.has(v.argv.slice(1).find((x) => !x.value.startsWith("-"))?.value ?? "");
  // Build tools' own runs are checked themselves; other programs that may write anywhere (`cp -r`, `tar x`, `git checkout`) may write one.
  if (name === "make" || name === "gmake") return false;
  return changesLinks || v.cmd.redirects.some((r) => WRITE_OPS.has(r.op));
}

/**
 * The recipes a build tool runs for this part (project-scripts.ts), each decided as if typed: one that a deny rule
 * forbids, or that cannot be proven safe from one, makes the part ask whatever rule allows the tool.
 */
export function scriptsVerdict(u: Unit, name: string, heres: string[], ctx: BashContext, othersWrite: boolean, decide: DecideBash): Verdict | undefined {
  const bashRules = ctx.set.byList.deny.some((r) => r.toolName === "Bash") || ctx.set.byList.ask.some((r) => r.toolName === "Bash");
  for (const here of heres) {
    const s = projectScripts(u.argv, name, here);
    if (!s) continue;
    if ("opaque" in s) return { behavior: "ask", reason: `${s.opaque}, so what ${name} runs cannot be checked`, hard: true, pathOnly: !bashRules };
    // `printf 'x:\n\trm -rf p' > Makefile && make x`: what is checked now is not what runs.
    if (othersWrite) return { behavior: "ask", reason: `another part of the command may change what ${name} runs (its makefile or package.json), so it cannot be checked`, hard: true, pathOnly: !bashRules };
    if ((ctx.depth ?? 0) >= 3) return { behavior: "ask", reason: `${name} runs build tools ${ctx.depth} deep, too deep to check`, hard: true, pathOnly: !bashRules };
    for (const line of s.lines) {
      const d = decide(line.text, { ...ctx, cwd: line.cwd, depth: (ctx.depth ?? 0) + 1 });
      if (d.behavior === "deny" || (d.behavior === "ask" && !d.bypassable))
        return {
          behavior: "ask",
          reason: `${name} runs \`${line.text.trim().slice(0, 80)}\` (${line.where}): ${d.reason.replace(/^(Permission to run this Bash command was denied|This Bash command needs approval): /, "").replace(/\.$/, "")}`,
          rule: d.rule,
          hard: true,
          pathOnly: d.behavior === "ask" ? d.sandboxable === true : d.rule?.toolName === "Read" || d.rule?.toolName === "Edit",
        };
    }
  }
  return undefined;
}

