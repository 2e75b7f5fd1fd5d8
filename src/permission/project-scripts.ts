// What a build tool runs for the targets it is given (issue 16 review point 2): `make`'s recipes from the makefile,
// and the package.json scripts `npm run` / `pnpm` / `yarn` / `bun run` start (with their pre/post scripts). Under an
// allow rule for the tool (`Bash(make:*)`), each command line is checked against the deny rules as if it were typed,
// so a recipe that runs what a deny rule forbids asks. What make can do that is not modelled here (includes,
// `$(shell)`, `define`, `$(eval)`, a recipe prefix of its own, a make variable or function yoke cannot expand) comes
// back as opaque. Reads the filesystem; never throws.
import { existsSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import type { ShellWord } from "./bash-parse.ts";

export type ScriptLine = { text: string; where: string; cwd: string };
export type ProjectScripts = { lines: ScriptLine[] } | { opaque: string };

const MAX_FILE = 1024 * 1024;
const read = (f: string): string | undefined => {
  try {
    return statSync(f).size <= MAX_FILE ? readFileSync(f, "utf8") : undefined;
  } catch {
    return undefined;
  }
};

/**
 * The command lines a build tool runs for this command (none when its makefile or script does not exist yet), or
 * undefined when it is no build tool running a project's scripts.
 */
export function projectScripts(argv: ShellWord[], name: string, here: string): ProjectScripts | undefined {
  if (name === "make" || name === "gmake") return makeScripts(argv, here);
  if (["npm", "pnpm", "yarn", "bun"].includes(name)) return packageScripts(argv, name, here);
  return undefined;
}

// make's built-in variables that name programs (GNU make's defaults), for recipes that use them (`$(RM) out`).
const DEFAULTS: Record<string, string> = {
  RM: "rm -f", CC: "cc", CXX: "g++", CPP: "cc -E", AR: "ar", AS: "as", LD: "ld", MAKE: "make", YACC: "yacc", LEX: "lex", FC: "f77", PC: "pc",
  CO: "co", GET: "get", TEX: "tex", WEAVE: "weave", TANGLE: "tangle", MAKEINFO: "makeinfo", CTANGLE: "ctangle", CWEAVE: "cweave", M2C: "m2c",
};
/** Makefile features whose effect on what runs is not modelled. */
const UNMODELLED = /^\s*(-?include|sinclude|define|\.RECIPEPREFIX|SHELL\s*[:?+!]?=|\.SHELLFLAGS|MAKEFLAGS|MAKEFILES|vpath|VPATH|\.SECONDEXPANSION|load|-load)\b|\$[({](shell|eval|call|value|file|guile|foreach|if|or|and|origin|let)[\s,)}]/m;

function makeScripts(argv: ShellWord[], here: string): ProjectScripts | undefined {
  const words = argv.slice(1);
  if (words.some((x) => !x.static)) return { opaque: "make gets words built at run time" };
  let dir = here;
  const files: string[] = [];
  const targets: string[] = [];
  const vars = new Map<string, string>();
  for (let i = 0; i < words.length; i++) {
    const v = words[i]!.value;
    const next = () => words[++i]?.value ?? "";
    if (v === "-C" || v === "--directory") dir = resolve(dir, next());
    else if (v.startsWith("--directory=")) dir = resolve(dir, v.slice(12));
    else if (/^-C./.test(v)) dir = resolve(dir, v.slice(2));
    else if (v === "-f" || v === "--file" || v === "--makefile") files.push(next());
    else if (/^--(file|makefile)=/.test(v)) files.push(v.slice(v.indexOf("=") + 1));
    else if (/^-f./.test(v)) files.push(v.slice(2));
    else if (/^(-E|--eval)/.test(v)) return { opaque: "make --eval adds makefile text from the command line" };
    else if (/^(-I|--include-dir|-o|--old-file|--assume-old|-W|--what-if|--new-file|--assume-new|-j|--jobs|-l|--load-average|-O|--output-sync|--debug)$/.test(v)) {
      if (!/^(-j|--jobs|-l|--load-average)$/.test(v) || /^\d/.test(words[i + 1]?.value ?? "")) i++;
    } else if (v.startsWith("-")) continue;
    else if (/^[A-Za-z_.][\w.]*\s*[:?+!]?=/.test(v)) {
      const m = /^([A-Za-z_.][\w.]*)\s*[:?+!]?=(.*)$/s.exec(v)!;
      if (/^(SHELL|\.SHELLFLAGS|MAKEFLAGS|MAKEFILES|MAKE)$/.test(m[1]!)) return { opaque: `make ${m[1]}= changes what runs the recipes` };
      vars.set(m[1]!, m[2]!);
    } else targets.push(v);
  }
  if (files.some((f) => f === "-" || f.startsWith("/dev/") || f.startsWith("/proc/"))) return { opaque: "make reads its makefile from standard input" };
  const found = files.length ? files.map((f) => resolve(dir, f)) : [["GNUmakefile", "makefile", "Makefile"].map((f) => join(dir, f)).find((f) => existsSync(f))].filter((f): f is string => !!f);
  // No makefile yet: nothing runs now (a part before it that writes one is the caller's business).
  if (!found.length) return { lines: [] };
  const rules: MakeRule[] = [];
  const defined = new Map<string, string>();
  for (const f of found) {
    const text = read(f);
    if (text === undefined) return { opaque: `cannot read ${f}` };
    const m = UNMODELLED.exec(text);
    if (m) return { opaque: `${basename(f)} uses ${m[0].trim().replace(/[\s,)}=:?+!]+$/, "")}, which yoke does not follow` };
    const r = parseMakefile(text, basename(f));
    if ("opaque" in r) return r;
    rules.push(...r.rules);
    for (const [k, v] of r.vars) defined.set(k, v);
  }
  for (const [k, v] of vars) defined.set(k, v);
  const recipes = recipesFor(rules, targets);
  if ("opaque" in recipes) return recipes;
  const lines: ScriptLine[] = [];
  for (const r of recipes.lines) {
    const text = expand(r.text, defined);
    if (text === undefined) return { opaque: `${r.where} uses a make variable or function yoke cannot expand` };
    lines.push({ text, where: r.where, cwd: dir });
  }
  return { lines };
}

type MakeRule = { targets: string[]; prereqs: string[]; recipes: { text: string; where: string }[] };

function parseMakefile(text: string, file: string): { rules: MakeRule[]; vars: Map<string, string> } | { opaque: string } {
  const vars = new Map<string, string>();
  const rules: MakeRule[] = [];
  let current: MakeRule | undefined;
  const raw = text.split("\n");
  for (let i = 0; i < raw.length; i++) {
    const start = i;
    let line = raw[i]!;
    while (line.endsWith("\\") && i + 1 < raw.length) line = `${line.slice(0, -1)} ${raw[++i]!.replace(/^\t/, "")}`;
    const where = `${file}:${start + 1}`;
    if (line.startsWith("\t")) {
      if (!current) continue;
      const cmd = line.slice(1).replace(/^[\s@+-]+/, "");
      if (cmd.trim()) current.recipes.push({ text: cmd, where });
      continue;
    }
    const stripped = line.replace(/(^|[^\\])#.*$/, "$1").trim();
    if (!stripped) continue;
    if (/^(ifeq|ifneq|ifdef|ifndef|else|endif|export|unexport|override|private)\b/.test(stripped) && !/[:?+!]?=/.test(stripped.replace(/^(export|override|private)\s+/, ""))) continue;
    const assign = /^(?:(?:export|override|private)\s+)*([A-Za-z_.][\w.-]*)\s*(::?:?=|[?+!]?=)\s*(.*)$/s.exec(stripped);
    if (assign) {
      const [, name, op, value] = assign;
      if (op === "!=") return { opaque: `${where} assigns the output of a shell command` };
      if (op === "?=" && vars.has(name!)) continue;
      vars.set(name!, op === "+=" && vars.has(name!) ? `${vars.get(name!)} ${value}` : value!);
      current = undefined;
      continue;
    }
    const rule = /^([^:=]+?)\s*::?(?!=)\s*([^;]*?)\s*(?:;\s*(.*))?$/.exec(stripped);
    if (rule) {
      // `target: VAR = value` is a target-specific variable, not prerequisites.
      if (/[?+!:]?=/.test(rule[2]!)) {
        current = undefined;
        continue;
      }
      current = { targets: rule[1]!.split(/\s+/).filter(Boolean), prereqs: rule[2]!.replace(/\|/g, " ").split(/\s+/).filter(Boolean), recipes: [] };
      if (rule[3]?.trim()) current.recipes.push({ text: rule[3].trim().replace(/^[@+-]+/, ""), where });
      rules.push(current);
      continue;
    }
    return { opaque: `${where} is a makefile line yoke does not follow` };
  }
  return { rules, vars };
}

/** The recipes make runs for `goals` (the first ordinary target when none), through prerequisites and pattern rules. */
function recipesFor(rules: MakeRule[], goals: string[]): { lines: { text: string; where: string }[] } | { opaque: string } {
  const explicit = new Map<string, MakeRule[]>();
  const patterns: MakeRule[] = [];
  for (const r of rules)
    for (const t of r.targets) {
      if (t.includes("%")) patterns.push(r);
      else explicit.set(t, [...(explicit.get(t) ?? []), r]);
    }
  const first = rules.flatMap((r) => r.targets).find((t) => !t.startsWith(".") && !t.includes("%"));
  const todo = goals.length ? [...goals] : first ? [first] : [];
  if (todo.some((t) => /[$]/.test(t))) return { opaque: "a make target is built at run time" };
  const seen = new Set<string>();
  const out: { text: string; where: string }[] = [];
  const usedPatterns = new Set<MakeRule>();
  while (todo.length) {
    const t = todo.pop()!;
    if (seen.has(t)) continue;
    seen.add(t);
    if (seen.size > 2000) return { opaque: "the makefile has too many targets to follow" };
    const own = explicit.get(t);
    const matching = own?.some((r) => r.recipes.length) ? [] : patterns.filter((r) => r.targets.some((p) => patternMatches(p, t)));
    for (const r of [...(own ?? []), ...matching]) {
      const stem = r.targets.map((p) => (p.includes("%") ? patternStem(p, t) : undefined)).find((s) => s !== undefined);
      for (const p of r.prereqs) if (!p.includes("$")) todo.push(stem !== undefined ? p.replace("%", stem) : p);
      if (r.targets.some((x) => x.includes("%"))) {
        if (usedPatterns.has(r)) continue;
        usedPatterns.add(r);
      }
      out.push(...r.recipes);
    }
  }
  return { lines: out };
}

const patternMatches = (p: string, t: string) => patternStem(p, t) !== undefined;
function patternStem(p: string, t: string): string | undefined {
  const i = p.indexOf("%");
  const pre = p.slice(0, i);
  const post = p.slice(i + 1);
  return t.length >= pre.length + post.length && t.startsWith(pre) && t.endsWith(post) ? t.slice(pre.length, t.length - post.length) : undefined;
}

/** A recipe line with make's variables expanded (as far as known); undefined when one cannot be. */
function expand(text: string, vars: Map<string, string>, depth = 0): string | undefined {
  if (depth > 10) return undefined;
  let unknown = false;
  const out = text.replace(/\$(\$|[@<^*?+|%]|\(([^()]*)\)|\{([^{}]*)\}|[A-Za-z])/g, (m, one: string, paren?: string, brace?: string) => {
    if (one === "$") return "\u0000";
    const name = paren ?? brace ?? one;
    // Automatic variables name files of the rule: a plain word stands in for them.
    if (/^[@<^*?+|%]([DF])?$/.test(name)) return "_make_file_";
    if (/\s|,|:/.test(name)) {
      unknown = true;
      return m;
    }
    const v = vars.has(name) ? vars.get(name)! : (DEFAULTS[name] ?? (process.env[name] === undefined && /FLAGS$|LIBS$/.test(name) ? "" : undefined));
    if (v === undefined) {
      unknown = true;
      return m;
    }
    const inner = expand(v, vars, depth + 1);
    if (inner === undefined) unknown = true;
    return inner ?? m;
  });
  return unknown ? undefined : out.replaceAll("\u0000", "$");
}

/** The package.json scripts a package manager runs for this command (`npm run build`, `yarn test`, `bun run lint`). */
function packageScripts(argv: ShellWord[], name: string, here: string): ProjectScripts | undefined {
  const words = argv.slice(1);
  if (words.some((x) => !x.static)) return { opaque: `${name} gets words built at run time` };
  const w = words.map((x) => x.value).filter((x) => !x.startsWith("-"));
  let script: string | undefined;
  const lifecycle = ["test", "start", "stop", "restart"];
  // Installing runs the project's own install scripts (bun runs the root package's too).
  const installs = ["install", "i", "ci", "add"];
  if (installs.includes(w[0] ?? "") || (name === "yarn" && w.length === 0)) return scriptsOf(here, ["preinstall", "install", "postinstall", "preprepare", "prepare", "postprepare"]);
  if (w[0] === "run" || w[0] === "run-script" || w[0] === "rum" || w[0] === "urn") script = w[1];
  else if (name !== "bun" && lifecycle.includes(w[0] ?? "")) script = w[0];
  else if ((name === "yarn" || name === "pnpm") && w[0] && !YARN_COMMANDS.has(w[0])) script = w[0];
  if (!script) return undefined;
  return scriptsOf(here, [`pre${script}`, script, `post${script}`]);
}

/** The scripts of the nearest package.json that exist among `names`, in order. */
function scriptsOf(here: string, names: string[]): ProjectScripts {
  let dir = here;
  while (!existsSync(join(dir, "package.json")) && dirname(dir) !== dir) dir = dirname(dir);
  const text = read(join(dir, "package.json"));
  if (text === undefined) return { lines: [] };
  let scripts: Record<string, unknown>;
  try {
    scripts = (JSON.parse(text) as { scripts?: Record<string, unknown> }).scripts ?? {};
  } catch {
    return { opaque: "package.json cannot be read as JSON" };
  }
  const lines: ScriptLine[] = [];
  for (const s of names)
    if (typeof scripts[s] === "string") lines.push({ text: scripts[s] as string, where: `package.json scripts.${s}`, cwd: dir });
  return { lines };
}

/** yarn and pnpm commands that are not script names (`yarn add`, `pnpm install` ...). */
const YARN_COMMANDS = new Set(["add", "remove", "install", "i", "upgrade", "up", "update", "outdated", "info", "why", "list", "ls", "init", "create", "dlx", "exec", "link", "unlink", "pack", "publish", "config", "cache", "global", "import", "audit", "version", "versions", "workspaces", "workspace", "set", "plugin", "node", "bin", "dedupe", "rebuild", "store", "prune", "fetch", "patch", "patch-commit", "env", "root", "licenses", "help", "login", "logout", "owner", "tag", "team", "unplug", "constraints", "search", "explain", "setup", "self-update", "doctor", "deploy", "approve-builds", "ignored-builds"]);
