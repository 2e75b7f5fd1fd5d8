import { basename, join } from "node:path";
import { braceExpand, unescapePattern } from "./bash-braces.ts";
import { INDIRECT, parseShell, type ShellWord, type SimpleCommand } from "./bash-parse.ts";
import { type OptionEffects, optionEffects } from "./bash-options.ts";
import { codeIsDynamic, codeMayExec, gitConfigUnprotected, gitContentScope, gitTopLevel, isDirectory, optionPathCandidates, programFromFile, recursiveTargets, trackedFiles, writesUnnamedFiles } from "./bash-readers.ts";
import {
  CODE_FLAGS, EXEC_STRING, execStringIndex, gitGlobals, gitOperands, HARMLESS_ENV, isReadOnlyCommand, pathArgs, reachesEnv, renderArgv, SAFE_ENV, SHELLS, unwrap, WRAPPERS,
} from "./bash-words.ts";
import { runnerOpaque } from "./bash-runners.ts";
import { gitRepoRunsPrograms } from "./git-repo-programs.ts";
import { listingOf } from "./bash-listings.ts";
import { expandGlob, mayRewriteScripts, namesVerdict, patternVerdict, scriptsVerdict } from "./bash-names-recipes.ts";
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
  /** How many build-tool recipes deep this check is (project-scripts.ts): `make` whose recipe runs `make` ... */
  depth?: number;
};

/** Rules a program that runs commands by design could talk around: Bash deny/ask rules, Read/Edit deny rules. */
const guardedBy = (set: RuleSet): boolean =>
  set.byList.deny.some((r) => r.toolName === "Bash") || set.byList.ask.some((r) => r.toolName === "Bash") || set.pathRules.deny.Read.length + set.pathRules.deny.Edit.length > 0;

/** One command the shell would run, after wrappers, nested shells, xargs and find -exec were opened up. */
export type Unit = { argv: ShellWord[]; envNames: string[]; allowArgv: ShellWord[]; allowAssigns: string[]; raw: string; cmd: SimpleCommand; implicitArgs: boolean; chdir?: ShellWord; opaque?: string; fx?: OptionEffects };

/** Read-only: the command is (options included, see bash-options.ts), nothing hides what runs, and its environment is harmless. */
const readOnlyUnit = (u: Unit): boolean =>
  isReadOnlyCommand(u.argv) && !u.opaque && u.envNames.every((n) => HARMLESS_ENV.test(n));

const MAX_PARTS = 50;
const DEV_FILES = /^\/dev\/(null|stdout|stderr|tty|fd\/[012])$/;
const WRITE_OPS = new Set([">", ">>", ">|", "&>", "&>>", "<>"]);
// Not rm (irreversible) and not sed (its `e` command runs shell code).
const ACCEPT_EDITS_CMDS = new Set(["mkdir", "touch", "mv", "cp", "ln"]);
const CRITICAL = (home: string) => new Set(["/", home, "/home", "/etc", "/usr", "/bin", "/sbin", "/lib", "/var", "/boot", "/root", "/opt", "/dev", "/proc", "/sys"]);

/** `hard` asks come from a safety check (a deny rule that cannot be proven safe, a protected path): no allow rule, hook or mode lifts them. */
export type Verdict = {
  behavior: "allow" | "ask" | "deny";
  reason: string;
  rule?: PermissionRule;
  unmatched?: boolean;
  hard?: boolean;
  /** The ask is only about which paths a Read/Edit rule covers: the kernel sandbox enforces those rules itself. */
  pathOnly?: boolean;
};

function expandUnits(cmds: SimpleCommand[], ctx: BashContext, depth: number, out: Unit[], params: Set<string>): string | undefined {
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
      if (r.codeInValues) unit.opaque ??= `${what}: ${r.codeInValues}`;
      for (const p of r.params) params.add(p);
      return expandUnits(r.commands, ctx, depth + 1, out, params);
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
      } else if (how === "first") {
        const first = rest.find((x) => !(x.static && x.value.startsWith("-")));
        if (first) err = nested(first, name);
      } else {
        const at = execStringIndex(rest, how);
        if (at) err = nested(at.inline ?? rest[at.index], `${name} ${how}`);
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
    // Inline code that can start programs may start a denied one (`python -c "os.system('rm ...')"`, awk system(), sed's e).
    const bashDenies = ctx.set.byList.deny.some((r) => r.toolName === "Bash");
    if (bashDenies && !unit.opaque) {
      const code = codeOf(d.argv, cmd);
      if (code.some((c) => codeMayExec(name, c))) unit.opaque = `${name} runs inline code that can start other programs`;
    }
    // sed's and awk's program in a file (`sed -f x.sed`, `-f /dev/stdin <<< 'e rm ...'`) can run and write anything.
    if (!unit.opaque && guardedBy(ctx.set) && programFromFile(d.argv, name)) unit.opaque = `${name} runs a program from a file`;
    // Inline code that builds a name at run time (`open('.e'+'nv')`) may open a file a Read or Edit rule denies.
    if (!unit.opaque && guardedBy(ctx.set) && codeOf(d.argv, cmd).some((c) => codeIsDynamic(name, c))) unit.opaque = `${name} runs inline code that builds the names it opens or calls at run time`;
    // `env -S` splits its string by its own quoting and escapes, which the checker does not follow.
    if (!unit.opaque && name !== "env" && cmd.argv[0]?.static && basename(cmd.argv[0].value) === "env" && cmd.argv.some((x) => x.static && /^(-[a-zA-Z]*S|--split-string)/.test(x.value)) && cmd.argv.some((x) => /[\\'"]/.test(x.value)))
      unit.opaque = "env -S splits a string with quotes or escapes by its own rules";
    // Editors, debuggers, database shells, other shell languages ... run commands no rule sees (review point 2).
    if (!unit.opaque && guardedBy(ctx.set)) unit.opaque = runnerOpaque(d.argv, cmd);
    // A program named at run time (`"$(echo rm)"`, `$'\x72m'`) or by a pattern (`/bin/r[m]`) cannot be matched against rules.
    if (d.argv[0] && (!d.argv[0].static || d.argv[0].glob)) unit.opaque ??= `the program name ${d.argv[0].raw} is only known at run time`;
    if (err) return err;
  }
  return undefined;
}

/** Inline code a command runs: `-c`/`-e` arguments, awk and sed programs, and an interpreter's script on standard input. */
function codeOf(argv: ShellWord[], cmd: SimpleCommand): string[] {
  const name = argv[0]?.static ? basename(argv[0].value) : "";
  const flags = CODE_FLAGS[name];
  const code: string[] = [];
  if (flags) {
    argv.forEach((x, i) => i > 0 && flags.includes(argv[i - 1]!.value) && x.static && code.push(x.value));
    for (const r of cmd.redirects) if (r.heredoc !== undefined) code.push(r.heredoc);
      else if (r.op === "<<<" && r.target?.static) code.push(r.target.value);
  }
  if (name === "awk" || name === "gawk" || name === "sed") argv.slice(1).forEach((x) => x.static && !x.value.startsWith("-") && code.push(x.value));
  return code;
}

/** argv after brace expansion (empty unquoted results dropped), argv itself when nothing expands, undefined when too many. */
function braceArgv(argv: ShellWord[]): ShellWord[] | undefined {
  if (!argv.some((x) => x.pattern !== undefined)) return argv;
  const out: ShellWord[] = [];
  for (const x of argv) {
    if (x.pattern === undefined) {
      out.push(x);
      continue;
    }
    const alts = braceExpand(x.pattern);
    if (!alts) return undefined;
    for (const a of alts) if (a !== "") out.push({ ...x, value: unescapePattern(a), pattern: undefined });
    if (out.length > 256) return undefined;
  }
  return out;
}

/** Quoted strings in inline code (`python -c "open('.env')"`) that may name files. */
function codeStrings(argv: ShellWord[], cmd: SimpleCommand): string[] {
  return codeOf(argv, cmd).flatMap((c) => [...c.matchAll(/["']([^"'\s]+)["']|<\s*([^\s;|]+)/g)].map((m) => (m[1] ?? m[2])!));
}

/** yoke's own credentials, which the sandbox removes from a sandboxed command's environment. */
const YOKE_KEYS = new Set(["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"]);
/** Secret-looking environment names: printing one needs approval. */
const SECRET_ENV = /KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH|COOKIE|SESSION|PRIVATE/i;
/** Builtins and programs that print the whole environment when given no command. */
const PRINTS_ENV = (argv: ShellWord[]): boolean => {
  const n = argv[0]?.static ? basename(argv[0].value) : "";
  const rest = argv.slice(1).map((x) => x.value);
  if (n === "printenv" || n === "compgen") return true;
  if (n === "set") return rest.length === 0;
  if (n === "env") return rest.every((x) => x.startsWith("-") || /^[A-Za-z_]\w*=/.test(x));
  if (n === "export" || n === "declare" || n === "typeset" || n === "readonly") return rest.length === 0 || rest.some((x) => /^-[a-zA-Z]*p/.test(x));
  return false;
};
const GIT_WORKTREE_WRITERS = new Set(["checkout", "switch", "restore", "reset", "stash", "merge", "pull", "rebase", "cherry-pick", "revert", "apply", "am", "clone", "worktree", "submodule", "mv", "read-tree", "checkout-index", "sparse-checkout"]);
/** Programs that cannot make a path lead somewhere new (no links made, nothing moved); see `linksMayChange`. */
const NO_LINK_CHANGE = new Set(["mkdir", "touch", "chmod", "rmdir", "rm", "echo", "printf", "true", "false", "test", "[", "cd", "pushd", "popd", "sleep"]);

/** Whether a part may make links or move paths, so later paths may lead elsewhere than they do now (issue 16 class 5). */
function linksMayChange(u: Unit, readOnly: boolean): boolean {
  if (readOnly || u.argv.length === 0) return false;
  const name = u.argv[0]!.static ? basename(u.argv[0]!.value) : "";
  if (NO_LINK_CHANGE.has(name)) return false;
  // Only git commands that write the work tree can put a link where a path was.
  if (name === "git") return GIT_WORKTREE_WRITERS.has(gitOperands(u.argv).subcommand ?? "");
  // A plain copy dereferences; recursive, archive and link-keeping copies can copy links.
  if (name === "cp") return u.argv.slice(1).some((x) => x.static && (/^-[^-]*[rRadPs]/.test(x.value) || /^--(recursive|archive|no-dereference|symbolic-link|preserve|parents|link)/.test(x.value)));
  return true;
}

/**
 * Decides a Bash command: every simple command it would run must be allowed; any denied part denies the whole.
 * Never throws. The mode's final say (bypass, dontAsk) is applied by the caller.
 * `sandboxable`: every ask in the answer is about paths Read/Edit rules cover, which the kernel
 * sandbox enforces by itself, so a sandboxed run may let the command run (`autoAllowBashIfSandboxed`).
 */
export type DecideBash = (command: string, ctx: BashContext) => PermissionDecision & { bypassable: boolean; sandboxable?: boolean };

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
  const params = new Set(parsed.params);
  const err = expandUnits(parsed.commands, ctx, 0, units, params);
  if (err) return { behavior: exactDeny ? "deny" : "ask", reason: exactDeny ? `denied by rule ${exactDeny.text}` : `The command needs approval: ${err}`, rule: exactDeny, bypassable: !exactDeny };
  // Options that run a program (`git grep -Orm`, `sort --compress-prog=sh`, `tar --to-command`) hide what runs; also in
  // commands find -exec and xargs start.
  for (const u of units) {
    u.fx = optionEffects(u.argv);
    // A wrapper's own options count too (`xargs -a .env echo` reads .env).
    if (u.cmd.argv !== u.argv && u.cmd.argv[0]?.value !== u.argv[0]?.value) {
      const outer = optionEffects(u.cmd.argv);
      u.fx = { reads: [...u.fx.reads, ...outer.reads], writes: [...u.fx.writes, ...outer.writes], exec: u.fx.exec ?? outer.exec, refuse: u.fx.refuse ?? outer.refuse };
    }
    if (u.fx.exec) u.opaque ??= `${u.argv[0]?.value ?? ""} runs a program named by its option ${u.fx.exec}`;
    // jq looks modules up in search paths (`import "./secrets/x" as $d`): which file it reads cannot be told.
    if (u.argv[0]?.value === "jq" && u.argv.some((x) => x.static && /\b(import|include)\s*"/.test(x.value))) u.opaque ??= "jq imports modules from files it looks up";
  }
  if (units.length > MAX_PARTS) return { behavior: "ask", reason: `The command has ${units.length} parts (more than ${MAX_PARTS}), so it needs the user's approval`, bypassable: true };

  const hasPathDenies = set.pathRules.deny.Read.length + set.pathRules.deny.Edit.length > 0;
  const hasReadDenies = set.pathRules.deny.Read.length > 0;
  const guarded = guardedBy(set);
  const wholeAllow = findBashRule(set, "allow", [whole]);
  const compound = units.length > 1;
  const verdicts: Verdict[] = [];
  if (exactDeny) verdicts.push({ behavior: "deny", reason: `denied by rule ${exactDeny.text}`, rule: exactDeny });
  let critical = false;
  // `x='a[$(rm -rf p)]'; echo $((x))`: code in a value, run by arithmetic or a prompt expansion (bash-arith.ts).
  if (parsed.codeInValues) {
    const bashRules = set.byList.deny.some((r) => r.toolName === "Bash") || set.byList.ask.some((r) => r.toolName === "Bash");
    verdicts.push({ behavior: "ask", reason: `${parsed.codeInValues}, which cannot be checked`, hard: hasPathDenies || bashRules, pathOnly: !bashRules });
  }

  // Secrets in the environment: printing one, or the whole environment, needs approval (issue 16 class 9).
  const secret = [...params].find((p) => p === INDIRECT || SECRET_ENV.test(p));
  // The sandbox strips yoke's own keys from what a sandboxed command sees, so for those the kernel layer holds.
  if (secret)
    verdicts.push({
      behavior: "ask",
      reason: secret === INDIRECT ? "it expands a variable named at run time, which may hold a secret" : `it expands $${secret}, which may hold a secret`,
      hard: true,
      pathOnly: YOKE_KEYS.has(secret),
    });

  // Every word and assignment that can change where `cd`, `~` and splitting lead, anywhere in the command (also in loops
  // and functions that run later): when one is set, those are unknown.
  const mentioned = new Set<string>();
  for (const u of units) {
    for (const a of u.cmd.assigns) mentioned.add(a.name);
    for (const x of u.cmd.argv) if (x.static) mentioned.add(x.value.split("=")[0]!);
  }
  const stateChanged = (n: string) => mentioned.has(n);
  const cdpathSet = !!ctx.env.CDPATH || stateChanged("CDPATH");

  // The directories the shell may be in at each part (issue 16 class 2). A `cd` that may not run, or runs in a
  // subshell, leaves the earlier ones possible too, so every possible directory is kept; a relative `cd` that may
  // repeat (a loop, a function) or goes where we cannot tell makes the directory unknown.
  let cwds = [ctx.cwd];
  let cwdKnown = !(stateChanged("PWD") || stateChanged("OLDPWD") || stateChanged("DIRSTACK"));
  // Order of parts is unknown once something runs in the background or in a pipeline next to a change.
  const unordered = units.some((u) => u.cmd.background);
  let linkChangeAt = -1;
  const linkChangers = units.map((u) => !u.opaque && linksMayChange(u, readOnlyUnit(u)));
  const repeatChanger = units.some((u, i) => linkChangers[i] && u.cmd.repeat);
  const trackedCache = new Map<string, string[] | undefined>();
  const globOptions = units.some((u) => u.argv[0]?.static && basename(u.argv[0].value) === "shopt");

  units.forEach((u, index) => {
    const name = u.argv[0]?.static ? basename(u.argv[0].value) : "";
    const denySubjects = [renderArgv(u.argv, false), renderArgv(u.argv, true), u.raw.trim()];
    // The command line after brace expansion (`git {push,} origin` runs git push).
    const braced = braceArgv(u.argv);
    if (braced === undefined) u.opaque ??= "its words brace-expand to too many";
    else if (braced !== u.argv) {
      denySubjects.push(renderArgv(braced, false));
      if (name === "git") denySubjects.push(renderArgv(gitGlobals(braced).argv, false));
    }
    if (u.argv[0]?.static && u.argv[0].value.includes("/")) denySubjects.push([basename(u.argv[0].value), ...u.argv.slice(1).map((x) => x.value)].join(" "));
    // `Bash(git push:*)` must also see `git -C . --no-pager push`.
    if (name === "git") denySubjects.push(renderArgv(gitGlobals(u.argv).argv, false));
    // A wrapper's options may hide where its program starts: every tail of its command line is a candidate.
    const orig = u.cmd.argv;
    if (orig[0]?.static && WRAPPERS.has(basename(orig[0].value)))
      for (let i = 1; i < orig.length; i++) if (orig[i]!.static && !orig[i]!.value.startsWith("-")) {
        const tail = orig.slice(i);
        denySubjects.push(renderArgv(tail, false));
        if (tail[0]!.value.includes("/")) denySubjects.push([basename(tail[0]!.value), ...tail.slice(1).map((x) => x.value)].join(" "));
      }
    const deny = findBashRule(set, "deny", denySubjects);
    if (deny) {
      verdicts.push({ behavior: "deny", reason: `denied by rule ${deny.text}`, rule: deny });
      return;
    }
    // `env -C DIR cmd` / `git -C DIR ...` run in DIR: relative paths start there, while the shell's own cwd stays.
    let heres = cwds;
    let chdirUnknown: string | undefined;
    if (u.chdir && !u.chdir.static) chdirUnknown = `cannot tell which directory ${u.chdir.raw} names`;
    else if (u.chdir) heres = [...new Set(cwds.map((c) => resolvePath(u.chdir!.value, c, ctx.home).real))];
    // Paths this part reads and writes, resolved against every directory the shell may be in.
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
    // An archive or patch names the files it writes only when it runs.
    if (writesUnnamedFiles(u.argv, name)) writes.push({ value: "", raw: `the files ${name} unpacks`, static: false, glob: false });
    const blobs = name === "git" ? gitOperands(u.argv).blobs : [];
    for (const s of codeStrings(u.argv, u.cmd)) reads.push({ value: s, raw: s, static: true, glob: false });
    // git reads the configuration of the repository it finds, which can name programs (core.fsmonitor, diff.external):
    // one outside a `.git` folder (a bare repository written as plain files) is no protected path.
    // A repository whose own config or hooks name programs (a folder that came with its `.git`) runs them on `git status`.
    const repoRuns = name === "git" ? heres.map(gitRepoRunsPrograms).find(Boolean) : undefined;
    if (repoRuns && ctx.set.byList.deny.length) u.opaque ??= repoRuns;
    const readOnly = readOnlyUnit(u) && !(name === "git" && (repoRuns || heres.some(gitConfigUnprotected)));
    // Files options read and write (`sort -o F`, `tree -oF`, `--output=F`, `jq --rawfile N F`), parsed as the program does.
    reads.push(...(u.fx?.reads ?? []));
    writes.push(...(u.fx?.writes ?? []).filter((x) => !(x.static && DEV_FILES.test(x.value))));
    let partVerdict: Verdict | undefined;
    let unknownPath: string | undefined = u.implicitArgs && hasPathDenies ? `${name || "xargs"} gets its file names at run time` : chdirUnknown;
    // Links made or paths moved by an earlier part (or one whose order is unknown) may send this part's paths elsewhere.
    const afterLinkChange = linkChangeAt >= 0 || ((unordered || repeatChanger || u.cmd.repeat) && linkChangers.some((c, i) => c && i !== index));
    let outside = false;
    let protectedWrite = false;
    let writesOk = true;
    const check = (word: ShellWord, write: boolean, verb: string, denyOnly = false): void => {
      if (!word.static) {
        unknownPath ??= `cannot tell which file ${word.raw} names`;
        return;
      }
      // `shopt -s nocaseglob` / `extglob` / `dotglob` ... change what a pattern matches.
      if (word.glob && globOptions) unknownPath ??= "shopt changes what file name patterns match";
      // Brace expansion first (`cat {".env",x}`, `.e{n,}v`): every word it makes is checked.
      if (word.pattern !== undefined) {
        const alts = braceExpand(word.pattern);
        if (!alts) {
          unknownPath ??= `${word.raw} expands to too many words`;
          return;
        }
        if (alts.length !== 1 || alts[0] !== word.pattern) {
          for (const a of alts) {
            const value = unescapePattern(a);
            check({ ...word, value, pattern: undefined, glob: /[*?[]/.test(value) }, write, verb, denyOnly);
          }
          return;
        }
      }
      if (DEV_FILES.test(word.value)) return;
      const relative = !word.value.startsWith("/") && !word.raw.startsWith("~");
      if (!cwdKnown && relative) unknownPath ??= "the directory is unknown after a cd it cannot follow";
      if (word.raw.startsWith("~") && stateChanged("HOME")) unknownPath ??= "HOME is changed, so ~ may lead anywhere";
      if (word.split && (stateChanged("IFS") || /\s/.test(word.value))) unknownPath ??= `${word.raw} is split into words at run time`;
      // git's operands are mostly revisions and messages; what git itself opens through links it reads as links.
      if (afterLinkChange && !denyOnly && hasPathDenies && name !== "git") unknownPath ??= "an earlier part may create links or move paths, so paths may lead elsewhere";
      for (const here of heres) {
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
          // A value in an option of a command that writes may be where it writes (`--log=~/.bashrc`, `-o.git/hooks/x`).
          if (denyOnly && write && paths.some(isProtectedPath)) protectedWrite = true;
          if (denyOnly) continue;
          const inside = rp.physical.every((p) => ctx.workingDirs.some((d) => isInside(d, p)));
          if (!inside) outside = true;
          if (paths.some(write ? isProtectedPath : isCredentialPath)) protectedWrite = true;
          if (write && !inside) writesOk = false;
          if (name === "rm" || name === "rmdir") if (paths.some((p) => CRITICAL(ctx.home).has(p))) critical = true;
        }
      }
    };
    // A listing's folders are paths it reads too (`find -L secrets`: find's start points come before its options).
    const listing = hasReadDenies ? listingOf(u.argv, name) : undefined;
    if (listing) reads.push(...listing.targets.filter((t) => !reads.includes(t)));
    // The directory itself: a command run inside a denied folder is treated as reading it.
    if (u.chdir?.static) for (const h of heres) check({ ...u.chdir, value: h, raw: u.chdir.raw, glob: false }, false, "runs in");
    const writeCmd = !readOnly;
    for (const r of reads) check(r, writeCmd, writeCmd ? "uses" : "reads");
    // A write whose target is only known at run time (`> $(echo ~/.bashrc)`) may land anywhere, a protected path too.
    const unknownWrite = writes.find((x) => !x.static);
    for (const wr of writes) check(wr, true, "writes");
    for (const o of optionPathCandidates(u.argv)) check(o, writeCmd, "names in an option", true);
    for (const b of blobs)
      for (const h of heres) check(/^\.\.?\//.test(b.value) ? { ...b, value: join(h, b.value) } : { ...b, value: join(gitTopLevel(h), b.value) }, false, "reads", true);
    // Folders read whole: recursive readers, and git commands that print contents of the tree or its history (class 3).
    const folders: ShellWord[] = [];
    const recursive = recursiveTargets(u.argv, name);
    if (recursive) folders.push(...(recursive.length ? recursive : [{ value: ".", raw: ".", static: true, glob: false }]));
    if (name === "git" && !partVerdict && hasPathDenies)
      for (const here of heres) {
        const scope = gitContentScope(u.argv, here);
        const top = gitTopLevel(here);
        if (scope.kind === "paths") folders.push(...scope.targets);
        else if (scope.kind === "history") {
          for (const pr of set.pathRules.deny.Read)
            if (ruleMayCoverInside(pr.compiled, top) !== "no") {
              partVerdict ??= { behavior: "ask", reason: `git ${gitOperands(u.argv).subcommand} shows file contents from the repository (${scope.why}), which holds paths rule ${pr.rule.text} denies; name the files to show after --`, rule: pr.rule };
              break;
            }
        } else if (scope.kind === "tracked") {
          if (!trackedCache.has(top)) trackedCache.set(top, trackedFiles(top));
          const tracked = trackedCache.get(top);
          const hit = tracked === undefined ? undefined : tracked.map((f) => findPathRule(set, "deny", "Read", [f])).find(Boolean);
          if (tracked === undefined) partVerdict ??= { behavior: "ask", reason: "git cannot list the tracked files, so what git diff shows cannot be checked", hard: true };
          // git grep reads the tracked files from the work tree, which the sandbox guards; git diff also shows the index.
          else if (hit) partVerdict ??= { behavior: "ask", reason: `git ${gitOperands(u.argv).subcommand} shows tracked files, among them a path rule ${hit.text} denies; name the files after --`, rule: hit, pathOnly: gitOperands(u.argv).subcommand === "grep" };
        }
      }
    if (folders.length && !partVerdict)
      outer: for (const tw of folders) {
        if (!tw.static) continue;
        for (const here of heres) {
          const dir = resolvePath(tw.value, here, ctx.home).real;
          if (!isDirectory(dir)) continue;
          for (const pr of set.pathRules.deny.Read) {
            const hit = ruleMayCoverInside(pr.compiled, dir);
            if (hit === "no") continue;
            partVerdict = {
              behavior: "ask",
              reason: hit === "yes" ? `${name} reads ${tw.raw} whole, which holds a path rule ${pr.rule.text} denies; name narrower paths` : `${name} reads ${tw.raw} whole, too big to check against rule ${pr.rule.text}`,
              rule: pr.rule,
              pathOnly: true,
            };
            break outer;
          }
        }
      }
    // Names under denied folders (review point 1): recursive listings, shell patterns, git's listings.
    if (!partVerdict && hasReadDenies) partVerdict = namesVerdict(u, name, listing, heres, ctx, trackedCache);
    // What `make` and `npm run` run for this command, as if typed (review point 2).
    if (!partVerdict && guarded) partVerdict = scriptsVerdict(u, name, heres, ctx, units.some((v, i) => i !== index && mayRewriteScripts(v, linkChangers[i]!)), decideBash);
    if (name === "cd" || name === "pushd") {
      // Options, then `--` ends them: `cd -- secrets` goes to secrets.
      const args = u.argv.slice(1);
      let k = 0;
      while (k < args.length && args[k]!.static && /^-[LPe@]+$/.test(args[k]!.value)) k++;
      if (args[k]?.static && args[k]!.value === "--") k++;
      const t = args[k];
      let next: string[] | undefined;
      if (!t) next = stateChanged("HOME") ? undefined : [ctx.home];
      else if (!t.static || t.value === "-" || /^[+-]\d+$/.test(t.value)) next = undefined;
      else if (cdpathSet && !/^(\/|\.\.?(\/|$))/.test(t.value)) next = undefined;
      else if (u.cmd.repeat && !t.value.startsWith("/")) next = undefined;
      else if (t.raw.startsWith("~") && stateChanged("HOME")) next = undefined;
      else next = cwds.map((c) => resolvePath(t.value, c, ctx.home).real);
      if (next === undefined) cwdKnown = false;
      else {
        cwds = [...new Set([...cwds, ...next])];
        if (next.some((c) => !ctx.workingDirs.some((d) => isInside(d, c)))) outside = true;
      }
    }
    if (linkChangers[index] && linkChangeAt < 0) linkChangeAt = index;
    if (partVerdict?.behavior === "deny") {
      verdicts.push(partVerdict);
      return;
    }
    if (PRINTS_ENV(u.argv)) {
      // An allow rule may lift it (`Bash(env:*)`): the user chose to let the environment be printed.
      verdicts.push({ behavior: "ask", reason: `${name} prints the environment, which may hold secrets`, pathOnly: true });
      return;
    }
    if (unknownPath && hasPathDenies && !(name === "echo" || name === "printf")) {
      verdicts.push({ behavior: "ask", reason: `${unknownPath}, and a deny rule protects some paths`, hard: true, pathOnly: true });
      return;
    }
    const ask = findBashRule(set, "ask", denySubjects);
    if (ask) {
      verdicts.push({ behavior: "ask", reason: `rule ${ask.text} asks for approval`, rule: ask });
      return;
    }
    if (partVerdict) {
      verdicts.push(partVerdict);
      return;
    }
    if (u.opaque) {
      const bashRules = set.byList.deny.some((r) => r.toolName === "Bash") || set.byList.ask.some((r) => r.toolName === "Bash");
      verdicts.push({ behavior: "ask", reason: `${u.opaque}, which cannot be checked`, hard: hasPathDenies || bashRules, pathOnly: !bashRules });
      return;
    }
    // Neither acceptEdits nor a rule for the program covers it; a rule allowing all of Bash, or the sandbox (which
    // holds writes to the working directories), may.
    if (unknownWrite && ctx.mode !== "bypassPermissions") {
      verdicts.push({ behavior: "ask", reason: `cannot tell where it writes (${unknownWrite.raw})`, pathOnly: true });
      return;
    }
    if (protectedWrite && ctx.mode !== "bypassPermissions") {
      verdicts.push({ behavior: "ask", reason: `it touches a protected path (.git, .claude, shell profiles, ~/.ssh, credential stores ...)`, hard: true });
      return;
    }
    const allowSubjects = u.allowAssigns.length ? [] : [renderArgv(u.allowArgv, false), renderArgv(u.allowArgv, true)];
    if (u.argv.length === 0 && writes.length === 0) {
      const reaching = u.cmd.assigns.map((x) => x.name).filter((n) => reachesEnv(n, ctx.env));
      if (reaching.length) verdicts.push({ behavior: "ask", reason: `it sets ${reaching.join(", ")}, which can change what later commands run`, unmatched: true });
      else verdicts.push({ behavior: "allow", reason: "no command runs" });
      return;
    }
    const allow = findBashRule(set, "allow", allowSubjects);
    if (allow && (writesOk || writes.length === 0)) {
      verdicts.push({ behavior: "allow", reason: `allowed by rule ${allow.text}`, rule: allow });
      return;
    }
    if (readOnly && writes.length === 0 && !outside) {
      verdicts.push({ behavior: "allow", reason: `${name || "the command"} is read-only` });
      return;
    }
    if (ctx.mode === "acceptEdits" && writesOk && !outside && (ACCEPT_EDITS_CMDS.has(name) || readOnly)) {
      verdicts.push({ behavior: "allow", reason: `acceptEdits mode allows ${name || "redirection"} inside the working directories` });
      return;
    }
    if (outside) verdicts.push({ behavior: "ask", reason: `${name} touches paths outside the working directories` });
    else verdicts.push({ behavior: "ask", reason: `no rule allows ${renderArgv(u.argv, true).slice(0, 80)}`, unmatched: true });
  });

  // Patterns outside any command's words (for-loop items, array items, case words), against every directory the shell may be in.
  if (hasReadDenies)
    for (const p of parsed.patterns) {
      const v = patternVerdict(p, cwdKnown ? cwds : undefined, ctx);
      if (v) {
        verdicts.push(v);
        break;
      }
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
