import { existsSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { parseShell, type ShellWord, type SimpleCommand } from "./bash-parse.ts";
import { CODE_FLAGS, EXEC_STRING, gitGlobals, gitOperands, HARMLESS_ENV, isReadOnlyCommand, pathArgs, reachesEnv, renderArgv, SAFE_ENV, SHELLS, unwrap } from "./bash-words.ts";
import { isInside, type ResolvedPath, resolvePath, ruleMayCoverInside } from "./paths.ts";
import { isCredentialPath, isProtectedPath } from "./sensitive-paths.ts";
import { findBashRule, findPathRule, type RuleSet } from "./rule-set.ts";
import type { PermissionDecision, PermissionMode, PermissionRule } from "./types.ts";

export type BashContext = {
  set: RuleSet;
  cwd: string;
  home: string;
  env: Record<string, string | undefined>;
  workingDirs: string[];
  mode: PermissionMode;
};

/** One command the shell would run, after wrappers, nested shells, xargs and find -exec were opened up. */
type Unit = { argv: ShellWord[]; envNames: string[]; allowArgv: ShellWord[]; allowAssigns: string[]; raw: string; cmd: SimpleCommand; implicitArgs: boolean; chdir?: ShellWord; opaque?: string };

const MAX_PARTS = 50;
const DEV_FILES = /^\/dev\/(null|stdout|stderr|tty|fd\/[012])$/;
const WRITE_OPS = new Set([">", ">>", ">|", "&>", "&>>", "<>"]);
// Not rm (irreversible) and not sed (its `e` command runs shell code).
const ACCEPT_EDITS_CMDS = new Set(["mkdir", "touch", "mv", "cp", "ln"]);
const CRITICAL = (home: string) => new Set(["/", home, "/home", "/etc", "/usr", "/bin", "/sbin", "/lib", "/var", "/boot", "/root", "/opt", "/dev", "/proc", "/sys"]);

/** `hard` asks come from a safety check (a deny rule that cannot be proven safe, a protected path): no allow rule, hook or mode lifts them. */
type Verdict = {
  behavior: "allow" | "ask" | "deny";
  reason: string;
  rule?: PermissionRule;
  unmatched?: boolean;
  hard?: boolean;
  /** The ask is only about which paths a Read/Edit rule covers: the kernel sandbox enforces those rules itself. */
  pathOnly?: boolean;
};

function expandUnits(cmds: SimpleCommand[], ctx: BashContext, depth: number, out: Unit[]): string | undefined {
  for (const cmd of cmds) {
    const d = unwrap(cmd.argv, true);
    const a = unwrap(cmd.argv, false);
    const safeAssigns = cmd.assigns.map((x) => x.name).filter((n) => !SAFE_ENV.test(n));
    // Every name the program's environment gets from this command line, the `env` wrapper's included.
    const envNames = [...cmd.assigns.map((x) => x.name), ...d.assigns];
    const unit: Unit = { argv: d.argv, envNames, allowArgv: a.argv, allowAssigns: [...safeAssigns, ...a.assigns.filter((n) => !SAFE_ENV.test(n))], raw: cmd.raw, cmd, implicitArgs: d.implicitArgs, chdir: d.chdir };
    out.push(unit);
    const name = d.argv[0]?.static ? basename(d.argv[0].value) : "";
    const rest = d.argv.slice(1);
    const nested = (script: ShellWord | string | undefined, what: string) => {
      if (depth > 4) return `${what} nested too deep`;
      if (script === undefined) return `${what} with no script`;
      const text = typeof script === "string" ? script : script.static ? script.value : undefined;
      if (text === undefined) {
        unit.opaque = `${what} runs a script built at run time`;
        return;
      }
      const r = parseShell(text, { env: ctx.env, home: ctx.home });
      if (!r.ok) return `${what}: ${r.reason}`;
      return expandUnits(r.commands, ctx, depth + 1, out);
    };
    let err: string | undefined;
    if (SHELLS.has(name)) {
      const ci = rest.findIndex((x) => x.static && /^-[a-z]*c[a-z]*$/.test(x.value));
      if (ci >= 0) err = nested(rest[ci + 1], `${name} -c`);
      else if (rest.every((x) => x.static && x.value.startsWith("-"))) {
        const hd = cmd.redirects.find((r) => r.op.startsWith("<<"));
        if (hd?.op === "<<<") err = nested(hd.target, `${name} <<<`);
        else if (hd?.heredoc !== undefined) err = nested(hd.heredoc, `${name} <<`);
        else unit.opaque = `${name} reads its script from standard input`;
      }
    } else if (EXEC_STRING[name]) {
      const how = EXEC_STRING[name]!;
      if (how === "all") {
        const pos = rest.filter((x) => !(x.static && x.value.startsWith("-")));
        if (!pos.every((x) => x.static)) unit.opaque = `${name} runs a command built at run time`;
        else if (pos.length) err = nested(pos.map((x) => x.value).join(" "), name);
      } else {
        const ci = rest.findIndex((x) => x.static && x.value === how);
        if (ci >= 0) err = nested(rest[ci + 1], `${name} ${how}`);
      }
    } else if (name === "eval") {
      err = rest.every((x) => x.static) ? nested(rest.map((x) => x.value).join(" "), "eval") : nested(rest[0] ?? "", "eval");
      if (!rest.every((x) => x.static)) unit.opaque = "eval of a string built at run time";
    } else if (name === "find") {
      for (let i = 0; i < rest.length; i++) {
        if (/^-(exec|execdir|ok|okdir)$/.test(rest[i]!.value)) {
          const end = rest.findIndex((x, j) => j > i && (x.value === ";" || x.value === "+"));
          const sub = rest.slice(i + 1, end < 0 ? undefined : end);
          const inner = unwrap(sub, true);
          out.push({ argv: inner.argv, envNames: inner.assigns, allowArgv: sub, allowAssigns: [], raw: renderArgv(sub, true), cmd, implicitArgs: true });
        }
      }
    } else if (name === "git") {
      const g = gitGlobals(d.argv);
      unit.chdir ??= g.chdir;
      // Only where a deny rule could be talked around: otherwise `git -c user.name=x commit` stays as allowed as git is.
      if (g.config && ctx.set.byList.deny.length) unit.opaque = "git -c sets configuration that can run other programs";
    } else if (CODE_FLAGS[name]) {
      const fi = rest.findIndex((x) => CODE_FLAGS[name]!.includes(x.value));
      if (fi >= 0 && !rest[fi + 1]?.static) unit.opaque = `${name} runs code built at run time`;
    }
    if (err) return err;
  }
  return undefined;
}

/** Quoted strings in inline code (`python -c "open('.env')"`) that may name files. */
function codeStrings(argv: ShellWord[]): string[] {
  const name = argv[0]?.static ? basename(argv[0].value) : "";
  const flags = CODE_FLAGS[name];
  const code: string[] = [];
  if (flags) argv.forEach((x, i) => i > 0 && flags.includes(argv[i - 1]!.value) && x.static && code.push(x.value));
  if (name === "awk" || name === "gawk" || name === "sed") argv.slice(1).forEach((x) => x.static && !x.value.startsWith("-") && code.push(x.value));
  return code.flatMap((c) => [...c.matchAll(/["']([^"'\s]+)["']|<\s*([^\s;|]+)/g)].map((m) => (m[1] ?? m[2])!));
}

const isDirectory = (p: string) => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};

/** Directories a command reads recursively (`grep -r`, `rg`, `cp -r`, `tar`, ...): undefined when it does not recurse. */
function recursiveTargets(argv: ShellWord[], name: string): ShellWord[] | undefined {
  const flags = argv.slice(1).filter((x) => x.static && x.value.startsWith("-")).map((x) => x.value);
  const short = (c: string) => flags.some((f) => /^-[^-]/.test(f) && f.includes(c));
  const recursive =
    ["rg", "ag", "ack", "tar", "rsync", "zip", "7z"].includes(name)
      ? true
      : ["grep", "egrep", "fgrep"].includes(name)
        ? short("r") || short("R") || flags.some((f) => /^--(recursive|dereference-recursive|directories=recurse)$/.test(f))
        : ["cp", "scp"].includes(name)
          ? short("r") || short("R") || short("a") || flags.some((f) => f === "--recursive" || f === "--archive")
          : false;
  if (!recursive) return gitGrepTargets(argv, name);
  return pathArgs(argv);
}

/** The work tree holding `dir` (nearest folder with a `.git`), else `dir`. Never throws. */
function gitTopLevel(dir: string): string {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, ".git"))) return d;
    if (dirname(d) === d) return dir;
  }
}

/** `git grep` searches the tree like `grep -r`: its operands after the pattern, else the cwd. */
function gitGrepTargets(argv: ShellWord[], name: string): ShellWord[] | undefined {
  if (name !== "git") return undefined;
  const { subcommand, paths } = gitOperands(argv);
  // Dropping the first operand as the pattern may drop a path when `-e` gave the pattern: the cwd is then searched, which is stricter.
  return subcommand === "grep" ? paths.slice(1) : undefined;
}

function expandGlob(pattern: string, cwd: string): string[] | undefined {
  try {
    const out: string[] = [];
    for (const f of new Bun.Glob(pattern).scanSync({ cwd, dot: true, onlyFiles: false, followSymlinks: false, absolute: true })) {
      out.push(f);
      if (out.length > 2000) return undefined;
    }
    return out;
  } catch {
    return undefined;
  }
}

/**
 * Decides a Bash command: every simple command it would run must be allowed; any denied part denies the whole.
 * Never throws. The mode's final say (bypass, dontAsk) is applied by the caller.
 */
/**
 * `sandboxable`: every ask in the answer is about paths Read/Edit rules cover, which the kernel
 * sandbox enforces by itself, so a sandboxed run may let the command run (`autoAllowBashIfSandboxed`).
 */
export function decideBash(command: string, ctx: BashContext): PermissionDecision & { bypassable: boolean; sandboxable?: boolean } {
  const set = ctx.set;
  const whole = command.trim();
  const exactDeny = findBashRule(set, "deny", [whole]);
  const parsed = parseShell(command, { env: ctx.env, home: ctx.home });
  if (!parsed.ok) {
    if (exactDeny) return { behavior: "deny", reason: `Bash command denied by rule ${exactDeny.text}`, rule: exactDeny, bypassable: false };
    return { behavior: "ask", reason: `The command could not be parsed (${parsed.reason}), so it needs the user's approval`, bypassable: true };
  }
  const units: Unit[] = [];
  const err = expandUnits(parsed.commands, ctx, 0, units);
  if (err) return { behavior: exactDeny ? "deny" : "ask", reason: exactDeny ? `denied by rule ${exactDeny.text}` : `The command needs approval: ${err}`, rule: exactDeny, bypassable: !exactDeny };
  if (units.length > MAX_PARTS) return { behavior: "ask", reason: `The command has ${units.length} parts (more than ${MAX_PARTS}), so it needs the user's approval`, bypassable: true };

  const hasPathDenies = set.pathRules.deny.Read.length + set.pathRules.deny.Edit.length > 0;
  const wholeAllow = findBashRule(set, "allow", [whole]);
  const compound = units.length > 1;
  let cwd = ctx.cwd;
  let cwdKnown = true;
  const verdicts: Verdict[] = [];
  if (exactDeny) verdicts.push({ behavior: "deny", reason: `denied by rule ${exactDeny.text}`, rule: exactDeny });
  let critical = false;

  for (const u of units) {
    const name = u.argv[0]?.static ? basename(u.argv[0].value) : "";
    const denySubjects = [renderArgv(u.argv, false), renderArgv(u.argv, true), u.raw.trim()];
    if (u.argv[0]?.static && u.argv[0].value.includes("/")) denySubjects.push([basename(u.argv[0].value), ...u.argv.slice(1).map((x) => x.value)].join(" "));
    // `Bash(git push:*)` must also see `git -C . --no-pager push`.
    if (name === "git") denySubjects.push(renderArgv(gitGlobals(u.argv).argv, false));
    const deny = findBashRule(set, "deny", denySubjects);
    if (deny) {
      verdicts.push({ behavior: "deny", reason: `denied by rule ${deny.text}`, rule: deny });
      continue;
    }
    // `env -C DIR cmd` / `git -C DIR ...` run in DIR: relative paths start there, while the shell's own cwd stays.
    let here = cwd;
    let chdirUnknown: string | undefined;
    if (u.chdir && !u.chdir.static) chdirUnknown = `cannot tell which directory ${u.chdir.raw} names`;
    else if (u.chdir) here = resolvePath(u.chdir.value, cwd, ctx.home).real;
    // Paths this part reads and writes, resolved against the directory earlier `cd`s moved to.
    const reads: ShellWord[] = [...pathArgs(u.argv)];
    const writes: ShellWord[] = [];
    for (const r of u.cmd.redirects) {
      if (!r.target || r.op.startsWith("<<")) continue;
      if (r.op.endsWith("&") || /^(>&|<&)$/.test(r.op)) continue;
      if (r.target.static && DEV_FILES.test(r.target.value)) continue;
      if (WRITE_OPS.has(r.op)) writes.push(r.target);
      else if (r.op === "<") reads.push(r.target);
    }
    if (name === "tee") writes.push(...reads.splice(0));
    if (name === "git")
      for (const b of gitOperands(u.argv).blobs) reads.push(/^\.\.?\//.test(b.value) ? b : { ...b, value: join(gitTopLevel(here), b.value) });
    for (const s of codeStrings(u.argv)) reads.push({ value: s, raw: s, static: true, glob: false });
    // A program given an environment name that is not known harmless may run anything (GIT_CONFIG_*, PATH, LESSOPEN).
    const readOnly = isReadOnlyCommand(u.argv) && !u.opaque && u.envNames.every((n) => HARMLESS_ENV.test(n));
    let partVerdict: Verdict | undefined;
    let unknownPath: string | undefined = u.implicitArgs && hasPathDenies ? `${name || "xargs"} gets its file names at run time` : chdirUnknown;
    let outside = false;
    let protectedWrite = false;
    let writesOk = true;
    const check = (word: ShellWord, write: boolean, verb: string) => {
      if (!word.static) {
        unknownPath ??= `cannot tell which file ${word.raw} names`;
        return;
      }
      if (DEV_FILES.test(word.value)) return;
      if (!cwdKnown && !word.value.startsWith("/") && !word.value.startsWith("~")) unknownPath ??= `the directory is unknown after a cd to a run-time value`;
      let list: ResolvedPath[] = [resolvePath(word.value, here, ctx.home)];
      if (word.glob) {
        const found = expandGlob(word.value, here);
        if (found === undefined) unknownPath ??= `cannot expand ${word.value}`;
        else list = list.concat(found.map((f) => resolvePath(f, here, ctx.home)));
      }
      for (const rp of list) {
        const paths = rp.all;
        const rule = findPathRule(set, "deny", "Read", paths) ?? (write ? findPathRule(set, "deny", "Edit", paths) : undefined);
        if (rule) {
          partVerdict ??= { behavior: "deny", reason: `${name || "the command"} ${verb} ${word.value}, which rule ${rule.text} denies`, rule };
          return;
        }
        const ask = findPathRule(set, "ask", "Read", paths) ?? (write ? findPathRule(set, "ask", "Edit", paths) : undefined);
        if (ask) partVerdict ??= { behavior: "ask", reason: `${word.value} is covered by ask rule ${ask.text}`, rule: ask };
        const inside = rp.physical.every((p) => ctx.workingDirs.some((d) => isInside(d, p)));
        if (!inside) outside = true;
        if (paths.some(write ? isProtectedPath : isCredentialPath)) protectedWrite = true;
        if (write && !inside) writesOk = false;
        if (name === "rm" || name === "rmdir") if (paths.some((p) => CRITICAL(ctx.home).has(p))) critical = true;
      }
    };
    // The directory itself: a command run inside a denied folder is treated as reading it.
    if (u.chdir?.static) check({ ...u.chdir, value: here, glob: false }, false, "runs in");
    const writeCmd = !readOnly;
    for (const r of reads) check(r, writeCmd, writeCmd ? "uses" : "reads");
    for (const wr of writes) check(wr, true, "writes");
    const recursive = recursiveTargets(u.argv, name);
    if (recursive && !partVerdict) {
      const targets = recursive.length ? recursive : [{ value: here, raw: ".", static: true, glob: false }];
      for (const tw of targets) {
        if (!tw.static) continue;
        const dir = resolvePath(tw.value, here, ctx.home).real;
        if (!isDirectory(dir)) continue;
        for (const pr of set.pathRules.deny.Read) {
          const hit = ruleMayCoverInside(pr.compiled, dir);
          if (hit === "no") continue;
          partVerdict = {
            behavior: "ask",
            reason: hit === "yes" ? `${name} reads ${tw.raw} recursively, which holds a path rule ${pr.rule.text} denies; search a narrower path` : `${name} reads ${tw.raw} recursively, too big to check against rule ${pr.rule.text}`,
            rule: pr.rule,
            pathOnly: true,
          };
          break;
        }
        if (partVerdict) break;
      }
    }
    if (name === "cd" || name === "pushd") {
      const t = u.argv.slice(1).find((x) => !(x.static && /^-[LPe@]+$/.test(x.value)));
      if (!t) cwd = ctx.home;
      else if (!t.static || t.value === "-" || (ctx.env.CDPATH && !/^[/.~]/.test(t.value))) cwdKnown = false;
      else {
        cwd = resolvePath(t.value, cwd, ctx.home).real;
        if (!ctx.workingDirs.some((d) => isInside(d, cwd))) outside = true;
      }
    }
    if (partVerdict?.behavior === "deny") {
      verdicts.push(partVerdict);
      continue;
    }
    if (unknownPath && hasPathDenies && !(name === "echo" || name === "printf")) {
      verdicts.push({ behavior: "ask", reason: `${unknownPath}, and a deny rule protects some paths`, hard: true, pathOnly: true });
      continue;
    }
    const ask = findBashRule(set, "ask", denySubjects);
    if (ask) {
      verdicts.push({ behavior: "ask", reason: `rule ${ask.text} asks for approval`, rule: ask });
      continue;
    }
    if (partVerdict) {
      verdicts.push(partVerdict);
      continue;
    }
    if (u.opaque) {
      const bashRules = set.byList.deny.some((r) => r.toolName === "Bash") || set.byList.ask.some((r) => r.toolName === "Bash");
      verdicts.push({ behavior: "ask", reason: `${u.opaque}, which cannot be checked`, hard: hasPathDenies || bashRules, pathOnly: !bashRules });
      continue;
    }
    if (protectedWrite && ctx.mode !== "bypassPermissions") {
      verdicts.push({ behavior: "ask", reason: `it touches a protected path (.git, .claude, shell profiles, ~/.ssh, credential stores ...)`, hard: true });
      continue;
    }
    const allowSubjects = u.allowAssigns.length ? [] : [renderArgv(u.allowArgv, false), renderArgv(u.allowArgv, true)];
    if (u.argv.length === 0 && writes.length === 0) {
      const reaching = u.cmd.assigns.map((x) => x.name).filter((n) => reachesEnv(n, ctx.env));
      if (reaching.length) verdicts.push({ behavior: "ask", reason: `it sets ${reaching.join(", ")}, which can change what later commands run`, unmatched: true });
      else verdicts.push({ behavior: "allow", reason: "no command runs" });
      continue;
    }
    const allow = findBashRule(set, "allow", allowSubjects);
    if (allow && (writesOk || writes.length === 0)) {
      verdicts.push({ behavior: "allow", reason: `allowed by rule ${allow.text}`, rule: allow });
      continue;
    }
    if (readOnly && writes.length === 0 && !outside) {
      verdicts.push({ behavior: "allow", reason: `${name || "the command"} is read-only` });
      continue;
    }
    if (ctx.mode === "acceptEdits" && writesOk && !outside && (ACCEPT_EDITS_CMDS.has(name) || readOnly)) {
      verdicts.push({ behavior: "allow", reason: `acceptEdits mode allows ${name || "redirection"} inside the working directories` });
      continue;
    }
    if (outside) verdicts.push({ behavior: "ask", reason: `${name} touches paths outside the working directories` });
    else verdicts.push({ behavior: "ask", reason: `no rule allows ${renderArgv(u.argv, true).slice(0, 80)}`, unmatched: true });
  }

  const denied = verdicts.find((v) => v.behavior === "deny");
  if (denied) return { behavior: "deny", reason: `Permission to run this Bash command was denied: ${denied.reason}.`, rule: denied.rule, bypassable: false };
  if (critical) return { behavior: "ask", reason: "The command removes a critical path (/, home or a system directory) and always needs the user's approval.", bypassable: false };
  const asked = verdicts.find((v) => v.behavior === "ask" && (v.rule || v.hard));
  if (asked) {
    const sandboxable = verdicts.every((v) => v.behavior === "allow" || v.pathOnly || (v.behavior === "ask" && !v.rule && !v.hard));
    return { behavior: "ask", reason: `This Bash command needs approval: ${asked.reason}.`, rule: asked.rule, bypassable: false, sandboxable };
  }
  // An exact allow of the whole command stands in for per-part rules, never for a safety check.
  const onlyUnmatched = verdicts.every((v) => v.behavior === "allow" || v.unmatched);
  if (wholeAllow && onlyUnmatched && (!compound || !wholeAllow.specifier!.includes("*"))) return { behavior: "allow", reason: `allowed by rule ${wholeAllow.text}`, rule: wholeAllow, bypassable: true };
  const pending = verdicts.find((v) => v.behavior === "ask");
  if (pending) return { behavior: "ask", reason: `This Bash command needs approval: ${pending.reason}.`, bypassable: true };
  const byRule = verdicts.find((v) => v.rule);
  const other = [...new Set(verdicts.map((v) => v.reason).filter((r) => !r.endsWith("is read-only") && r !== "no command runs"))];
  const reason = byRule ? byRule.reason : other.length ? other.join("; ") : "every part of the command is read-only";
  return { behavior: "allow", reason, rule: byRule?.rule, bypassable: true };
}
