// mvdan-sh is the GopherJS build of mvdan/sh (the Go shell parser behind shfmt): a real bash AST in plain
// JavaScript, no native addon or wasm. Required lazily so startup does not pay for it until a Bash call.
import { codeInValues } from "./bash-arith.ts";
import { escapeQuoted, hasBraces } from "./bash-braces.ts";
import { parsePlain } from "./bash-plain.ts";

type ShNode = { Pos(): { Offset(): number }; End(): { Offset(): number } } & Record<string, any>;
type ShSyntax = {
  NewParser(...opts: unknown[]): { Parse(src: string, name: string): ShNode };
  NodeType(n: ShNode): string;
  Walk(n: ShNode, fn: (n: ShNode | null) => boolean): void;
};
let syntaxCache: ShSyntax | undefined;
function sh(): ShSyntax {
  // A plain require() call so `bun build --compile` bundles the module (createRequire would look on disk at run time).
  if (!syntaxCache) {
    syntaxCache = (require("mvdan-sh") as { syntax: ShSyntax }).syntax;
    // YOKE_TIMING shows when (and whether) a run paid for the parser (issue 21).
    performance.mark("yoke:bash-parser-loaded");
  }
  return syntaxCache;
}

/** One shell word after quote removal. `static` false means its value depends on run time (`$x`, `$(...)`, `$((...))`). */
export type ShellWord = {
  value: string;
  raw: string;
  static: boolean;
  glob: boolean;
  /** An unquoted expansion went into it: the shell splits it on IFS and globs it, so its value may be several words. */
  split?: boolean;
  /**
   * Set when the word brace-expands or globs: the word with its quoted characters backslash-escaped, so brace
   * expansion (bash-braces.ts) sees which braces and commas are the shell's (`{".env",x}` → .env x).
   */
  pattern?: string;
};
export type ShellRedirect = { op: string; fd?: string; target?: ShellWord; heredoc?: string };
/** One simple command, wherever it sat in the script (inside `$(...)`, subshells, loops, functions ...). */
export type SimpleCommand = {
  argv: ShellWord[];
  assigns: { name: string; value?: ShellWord }[];
  redirects: ShellRedirect[];
  /** Source text of the command, redirections included. */
  raw: string;
  /** Nesting: "top" for a command of the script itself, "subst" inside `$(...)`, backticks or `<(...)`. */
  origin: "top" | "subst";
  /** Inside a loop or a function body: it may run any number of times, before or after what follows it. */
  repeat?: boolean;
  /** Runs in the background (`&`) or inside something that does: its order against other commands is unknown. */
  background?: boolean;
};
export type ParseResult =
  | {
      ok: true;
      commands: SimpleCommand[];
      /** Every variable name expanded anywhere (words, heredocs, arithmetic), INDIRECT when an indirect or name-listing expansion occurs. */
      params: string[];
      /** Every word anywhere with an unquoted pattern character (`for f in secrets/x*`, array items, `case` words), as far as known before run time. */
      patterns: ShellWord[];
      /** Why an arithmetic or prompt expansion may run code held in a variable's value (bash-arith.ts). */
      codeInValues?: string;
    }
  | { ok: false; reason: string };

const GLOB_CHARS = /(^|[^\\])[*?[]/;

type Ctx = {
  buf: Buffer;
  /** Shell variables set so far; undefined: set to something we cannot know (`f=$(...)`, a branch that may or may not run). */
  vars: Map<string, string | undefined>;
  /** Assignments here may not run (after `&&`/`||`, in `if`/`case` branches): a variable they change becomes unknown. */
  cond: number;
  /** Names set anywhere in the script, and names set by builtins at run time (`read`, `unset`, `printf -v` ...). */
  assigned: Set<string>;
  dynamic: Set<string>;
  /** `eval`, `source`, `declare -n` ...: any variable may change. */
  anyDynamic: boolean;
  env: Record<string, string | undefined>;
  home: string;
  out: SimpleCommand[];
  repeat: number;
  background: number;
};

const rawOf = (ctx: Ctx, n: ShNode) => ctx.buf.subarray(n.Pos().Offset(), n.End().Offset()).toString("utf8");

function unescapeUnquoted(s: string): string {
  return s.replace(/\\\n/g, "").replace(/\\(.)/gs, "$1");
}
function unescapeDouble(s: string): string {
  return s.replace(/\\\n/g, "").replace(/\\([$`"\\])/g, "$1");
}

function paramValue(ctx: Ctx, p: ShNode): string | undefined {
  if (p.Excl || p.Length || p.Width || p.Index || p.Slice || p.Repl || p.Exp || p.Names) return undefined;
  const name: string | undefined = p.Param?.Value;
  if (!name) return undefined;
  return varValue(ctx, name);
}

/** A variable's value at this point of the script, or undefined when it may be several things or is unknown. */
function varValue(ctx: Ctx, name: string): string | undefined {
  if (ctx.anyDynamic || ctx.dynamic.has(name)) return undefined;
  // In a loop or function body, an assignment anywhere may have run before (an earlier pass, a caller).
  if (ctx.repeat && ctx.assigned.has(name)) return undefined;
  if (ctx.vars.has(name)) return ctx.vars.get(name);
  if (name === "HOME") return ctx.home;
  // The shell sets these itself from where it runs, not from our environment.
  if (name === "PWD" || name === "OLDPWD" || name === "CDPATH") return undefined;
  const v = ctx.env[name];
  return typeof v === "string" ? v : undefined;
}

function wordOf(ctx: Ctx, w: ShNode): ShellWord {
  const s = sh();
  let value = "";
  // The same word with quoted characters escaped, for brace expansion.
  let pattern = "";
  let isStatic = true;
  let glob = false;
  let split = false;
  const quoted = (v: string) => {
    value += v;
    pattern += escapeQuoted(v);
  };
  const parts: ShNode[] = w.Parts ?? [];
  parts.forEach((part, i) => {
    const t = s.NodeType(part);
    if (t === "Lit") {
      let raw: string = part.Value.replace(/\\\n/g, "");
      // A word that is only `[` (the test builtin) has no closing bracket: no pattern.
      if (GLOB_CHARS.test(raw) && !(parts.length === 1 && raw === "[")) glob = true;
      let v = unescapeUnquoted(raw);
      if (i === 0 && (v === "~" || v.startsWith("~/"))) {
        v = ctx.home + v.slice(1);
        raw = escapeQuoted(ctx.home) + raw.slice(1);
      } else if (i === 0 && v.startsWith("~")) isStatic = false;
      value += v;
      pattern += raw;
    } else if (t === "SglQuoted") {
      if (part.Dollar && /\\/.test(part.Value)) isStatic = false;
      quoted(part.Value);
    } else if (t === "DblQuoted") {
      for (const q of part.Parts ?? []) {
        const qt = s.NodeType(q);
        if (qt === "Lit") quoted(unescapeDouble(q.Value));
        else if (qt === "ParamExp") {
          const v = paramValue(ctx, q);
          if (v === undefined) isStatic = false;
          else quoted(v);
        } else isStatic = false;
      }
    } else if (t === "ParamExp") {
      const v = paramValue(ctx, part);
      split = true;
      if (v === undefined) isStatic = false;
      else {
        if (/[*?[]/.test(v)) glob = true;
        value += v;
        // Brace expansion comes before parameter expansion: braces from a value are literal, its glob characters are not.
        pattern += v.replace(/[{},\\]/g, "\\$&");
      }
    } else isStatic = false;
  });
  const braces = isStatic && hasBraces(pattern);
  return { value, raw: rawOf(ctx, w), static: isStatic, glob: glob || braces, ...(split ? { split } : {}), ...(glob || braces ? { pattern } : {}) };
}

/** Finds `$(...)`, backticks and `<(...)` inside a node and collects their commands too. */
function collectNested(ctx: Ctx, n: ShNode | null | undefined): void {
  if (!n) return;
  const s = sh();
  s.Walk(n, (c) => {
    if (!c) return true;
    const t = s.NodeType(c);
    if (t === "CmdSubst" || t === "ProcSubst") {
      subshell(ctx, () => collectStmts(ctx, c.Stmts ?? [], "subst"));
      return false;
    }
    // The parser's walk does not enter a slice's offset and length (`${x:$(cat f)}`).
    if (t === "ParamExp" && c.Slice) {
      collectNested(ctx, c.Slice.Offset);
      collectNested(ctx, c.Slice.Length);
    }
    // An extended glob's pattern is kept as text (`@(x|$(cat f))` after `shopt -s extglob`): its substitutions run too.
    if (t === "ExtGlob") extGlobNested(ctx, String(c.Pattern?.Value ?? ""));
    return true;
  });
}

/** The commands inside an extended glob's pattern, parsed as words (`|` separates alternatives, as a pipe would). */
function extGlobNested(ctx: Ctx, pattern: string): void {
  if (!/[`$<>]/.test(pattern)) return;
  const r = parseShell(`: ${pattern}`, { env: ctx.env, home: ctx.home, vars: new Map([...ctx.vars].filter((e): e is [string, string] => e[1] !== undefined)) });
  const unknown: ShellWord = { value: "", raw: pattern, static: false, glob: false };
  if (!r.ok) push(ctx, { argv: [unknown], assigns: [], redirects: [], raw: pattern, origin: "subst" });
  else for (const c of r.commands) if (c.origin === "subst") push(ctx, c);
}

function redirectOf(ctx: Ctx, r: ShNode): ShellRedirect {
  const wordStart = r.Word ? r.Word.Pos().Offset() : r.End().Offset();
  const op = ctx.buf.subarray(r.OpPos.Offset(), wordStart).toString("utf8").trim();
  const out: ShellRedirect = { op };
  if (r.N?.Value) out.fd = r.N.Value;
  if (r.Word) out.target = wordOf(ctx, r.Word);
  if (r.Hdoc) out.heredoc = rawOf(ctx, r.Hdoc);
  return out;
}

function collectStmts(ctx: Ctx, stmts: (ShNode | null)[], origin: SimpleCommand["origin"]): void {
  for (const st of stmts) if (st) collectStmt(ctx, st, origin);
}

function collectStmt(ctx: Ctx, st: ShNode, origin: SimpleCommand["origin"]): void {
  if (st.Background || st.Coprocess) {
    ctx.background++;
    try {
      subshell(ctx, () => collectStmtInner(ctx, st, origin));
    } finally {
      ctx.background--;
    }
  } else collectStmtInner(ctx, st, origin);
}

/** Sets a shell variable: where the assignment may not run, a changed value makes the variable unknown. */
function setVar(ctx: Ctx, name: string, value: string | undefined): void {
  if ((ctx.cond || ctx.repeat) && (value === undefined || value !== varValue(ctx, name))) ctx.vars.set(name, undefined);
  else ctx.vars.set(name, value);
}

/** Runs `fn` as a subshell: variables it sets do not reach what follows (`(f=x); cat $f`, pipelines, `$(...)`, `&`). */
function subshell(ctx: Ctx, fn: () => void): void {
  const saved = new Map(ctx.vars);
  try {
    fn();
  } finally {
    ctx.vars = saved;
  }
}

/** Runs `fn` with its assignments marked as maybe not running. */
function conditional(ctx: Ctx, fn: () => void): void {
  ctx.cond++;
  try {
    fn();
  } finally {
    ctx.cond--;
  }
}

/** Runs `fn` with the statements it collects marked as repeatable (loop and function bodies). */
function repeated(ctx: Ctx, fn: () => void): void {
  ctx.repeat++;
  try {
    fn();
  } finally {
    ctx.repeat--;
  }
}

function push(ctx: Ctx, c: SimpleCommand): void {
  ctx.out.push({ ...c, ...(ctx.repeat ? { repeat: true } : {}), ...(ctx.background ? { background: true } : {}) });
}

function collectStmtInner(ctx: Ctx, st: ShNode, origin: SimpleCommand["origin"]): void {
  const s = sh();
  const redirs: ShNode[] = (st.Redirs ?? []).filter(Boolean);
  for (const r of redirs) {
    collectNested(ctx, r.Word);
    collectNested(ctx, r.Hdoc);
  }
  const cmd: ShNode | null = st.Cmd;
  const redirects = redirs.map((r) => redirectOf(ctx, r));
  if (!cmd) {
    // A bare redirection (`> file`, `< file`) is still a file access.
    if (redirects.length) push(ctx, { argv: [], assigns: [], redirects, raw: rawOf(ctx, st), origin });
    return;
  }
  const t = s.NodeType(cmd);
  // Redirections of a compound command (`{ ...; } > f`, `(cat) < f`, `for ...; done < f`, `if ...; fi >> f`) apply to
  // everything inside it: the file access is its own part, as a bare redirection is.
  if (redirects.length && t !== "CallExpr" && t !== "DeclClause" && t !== "TestClause" && t !== "ArithmCmd" && t !== "LetClause")
    push(ctx, { argv: [], assigns: [], redirects, raw: rawOf(ctx, st), origin });
  switch (t) {
    case "CallExpr": {
      const assigns = (cmd.Assigns ?? []).filter(Boolean).map((a: ShNode) => {
        // The whole assignment: its value, an array's items (`a=($(cat f))`) and an index (`a[$(cat f)]=1`).
        collectNested(ctx, a);
        return { name: a.Name?.Value ?? "", value: a.Value ? wordOf(ctx, a.Value) : undefined };
      });
      const args: ShNode[] = (cmd.Args ?? []).filter(Boolean);
      for (const a of args) collectNested(ctx, a);
      const argv = args.map((a) => wordOf(ctx, a));
      // A statement of pure assignments sets shell variables later words may use (`F=.env; cat $F`).
      if (argv.length === 0) for (const a of assigns) setVar(ctx, a.name, a.value?.static ? a.value.value : a.value ? undefined : "");
      push(ctx, { argv, assigns, redirects, raw: rawOf(ctx, st), origin });
      return;
    }
    case "BinaryCmd": {
      // The parts of a pipeline run at the same time: their order is as unknown as a background job's.
      const op = cmd.X && cmd.Y ? ctx.buf.subarray(cmd.X.End().Offset(), cmd.Y.Pos().Offset()).toString("utf8").trim() : "";
      const pipe = op === "|" || op === "|&";
      if (pipe) ctx.background++;
      try {
        // Each part of a pipeline runs in a subshell; the right side of && and || may not run at all.
        if (pipe) {
          if (cmd.X) subshell(ctx, () => collectStmt(ctx, cmd.X, origin));
          if (cmd.Y) subshell(ctx, () => collectStmt(ctx, cmd.Y, origin));
        } else {
          if (cmd.X) collectStmt(ctx, cmd.X, origin);
          if (cmd.Y) conditional(ctx, () => collectStmt(ctx, cmd.Y, origin));
        }
      } finally {
        if (pipe) ctx.background--;
      }
      break;
    }
    case "Subshell":
      subshell(ctx, () => collectStmts(ctx, cmd.Stmts ?? [], origin));
      break;
    case "Block":
      collectStmts(ctx, cmd.Stmts ?? [], origin);
      break;
    case "IfClause": {
      // The first condition always runs; branches and later conditions may not.
      collectStmts(ctx, cmd.Cond ?? [], origin);
      conditional(ctx, () => {
        collectStmts(ctx, cmd.Then ?? [], origin);
        for (let c: ShNode | null = cmd.Else; c; c = c.Else) {
          collectStmts(ctx, c.Cond ?? [], origin);
          collectStmts(ctx, c.Then ?? [], origin);
        }
      });
      break;
    }
    case "WhileClause":
      repeated(ctx, () => {
        collectStmts(ctx, cmd.Cond ?? [], origin);
        collectStmts(ctx, cmd.Do ?? [], origin);
      });
      break;
    case "ForClause":
      collectNested(ctx, cmd.Loop);
      // The loop variable's value is unknown to later words.
      if (cmd.Loop?.Name?.Value) ctx.vars.set(cmd.Loop.Name.Value, undefined);
      repeated(ctx, () => collectStmts(ctx, cmd.Do ?? [], origin));
      break;
    case "CaseClause":
      collectNested(ctx, cmd.Word);
      conditional(ctx, () => {
        for (const item of cmd.Items ?? []) if (item) collectStmts(ctx, item.Stmts ?? [], origin);
      });
      break;
    case "FuncDecl":
      // A function runs where it is called, as often as it is called.
      if (cmd.Body) repeated(ctx, () => collectStmt(ctx, cmd.Body, origin));
      break;
    case "TimeClause":
    case "CoprocClause":
      if (cmd.Stmt) collectStmt(ctx, cmd.Stmt, origin);
      break;
    case "DeclClause": {
      collectNested(ctx, cmd);
      const variant: string = cmd.Variant?.Value ?? "declare";
      const argv: ShellWord[] = [{ value: variant, raw: variant, static: true, glob: false }];
      const assigns: SimpleCommand["assigns"] = [];
      for (const a of (cmd.Args ?? []).filter(Boolean) as ShNode[]) {
        if (a.Naked && a.Value) argv.push(wordOf(ctx, a.Value));
        else if (a.Naked && a.Name) argv.push({ value: a.Name.Value, raw: a.Name.Value, static: true, glob: false });
        else {
          const value = a.Value ? wordOf(ctx, a.Value) : undefined;
          assigns.push({ name: a.Name?.Value ?? "", value });
          setVar(ctx, a.Name?.Value ?? "", value ? (value.static ? value.value : undefined) : "");
        }
      }
      push(ctx, { argv, assigns, redirects, raw: rawOf(ctx, st), origin });
      break;
    }
    case "TestClause":
    case "ArithmCmd":
    case "LetClause":
      collectNested(ctx, cmd);
      // Tests and arithmetic run no program, but their redirections still touch files.
      if (redirects.length) push(ctx, { argv: [], assigns: [], redirects, raw: rawOf(ctx, st), origin });
      break;
    default:
      throw new Error(`unsupported shell construct ${t}`);
  }
}

/** Builtins that set the variables they name at run time (`read f`, `unset f`, `getopts o f`, `printf -v f` ...). */
const SETS_NAMED = new Set(["read", "mapfile", "readarray", "getopts", "unset", "wait"]);
/** Builtins after which any variable may have changed. */
const SETS_ANY = new Set(["eval", "source", "."]);

/**
 * One pass over the script before commands are collected (the parser's tree walk is the costly part): every
 * parameter expanded (ParseResult.params; INDIRECT for `${!x}` / `${!prefix*}`), every name assigned anywhere,
 * and the names builtins set at run time.
 */
function scanScript(ctx: Ctx, file: ShNode, patterns: ShellWord[]): string[] {
  const s = sh();
  const params = new Set<string>();
  s.Walk(file, (n) => {
    if (!n) return true;
    const t = s.NodeType(n);
    if (t === "Word" && (n.Parts ?? []).some((p: ShNode) => s.NodeType(p) === "Lit" && GLOB_CHARS.test(p.Value))) patterns.push(wordOf(ctx, n));
    if (t === "ParamExp") {
      if (n.Excl || n.Names) params.add(INDIRECT);
      // Special parameters ($!, $?, $1 ...) are no environment names.
      if (/^[A-Za-z_]\w*$/.test(n.Param?.Value ?? "")) params.add(n.Param.Value);
    } else if (t === "Assign" && n.Name?.Value) ctx.assigned.add(n.Name.Value);
    else if (t === "ForClause" && n.Loop?.Name?.Value) ctx.assigned.add(n.Loop.Name.Value);
    else if (t === "CallExpr") {
      const words: string[] = (n.Args ?? []).filter(Boolean).map((a: ShNode) => rawOf(ctx, a));
      const first = words[0] ?? "";
      if (SETS_ANY.has(first)) ctx.anyDynamic = true;
      if (SETS_NAMED.has(first) || (first === "printf" && words.some((x) => x.startsWith("-v")))) for (const x of words.slice(1)) for (const m of x.matchAll(/[A-Za-z_]\w*/g)) ctx.dynamic.add(m[0]);
    } else if (t === "DeclClause") {
      const flags = (n.Args ?? []).filter(Boolean).map((a: ShNode) => rawOf(ctx, a)).join(" ");
      // `declare -n ref=NAME` makes assignments to ref land in NAME.
      if (/(^|\s)-[a-zA-Z]*n/.test(flags)) ctx.anyDynamic = true;
    } else if (t === "ArithmCmd" || t === "ArithmExp" || t === "LetClause") {
      // `(( f = 1 ))`, `$(( f++ ))` set variables too.
      for (const m of rawOf(ctx, n).matchAll(/([A-Za-z_]\w*)\s*(?:[-+*/%&|^]|<<|>>)?=(?!=)|([A-Za-z_]\w*)\s*(?:\+\+|--)|(?:\+\+|--)\s*([A-Za-z_]\w*)/g)) ctx.dynamic.add((m[1] ?? m[2] ?? m[3])!);
    }
    return true;
  });
  return [...params];
}

/**
 * Loads the shell parser and runs it once on a small script (its first parse costs as much as its load), while the
 * model is still writing a command that will need it (shell-warm.ts). Pure; the result is dropped.
 */
export function warmShellParser(): void {
  parseShellWithParser('cd "a b" && ls -l | wc -l > /dev/null; echo $HOME', { env: {}, home: "/" });
}

/** Stands in ParseResult.params for `${!x}` and `${!prefix*}`: a variable named at run time. */
export const INDIRECT = "${!}";

/**
 * Parses a bash command into every simple command it would run. Never throws: a syntax error or an
 * unsupported construct comes back as `{ ok: false, reason }` (callers ask the user then).
 */
export function parseShell(command: string, opts: { env: Record<string, string | undefined>; home: string; vars?: Map<string, string> }): ParseResult {
  // A program and plain words need no parser (bash-plain.ts): the common call never pays for loading it.
  return parsePlain(command) ?? parseShellWithParser(command, opts);
}

/** parseShell through mvdan-sh whatever the text (test/permission/bash-plain.test.ts compares the two). */
export function parseShellWithParser(command: string, opts: { env: Record<string, string | undefined>; home: string; vars?: Map<string, string> }): ParseResult {
  const ctx: Ctx = {
    buf: Buffer.from(command, "utf8"),
    vars: new Map(opts.vars ?? []),
    cond: 0,
    assigned: new Set(),
    dynamic: new Set(),
    anyDynamic: false,
    env: opts.env,
    home: opts.home,
    out: [],
    repeat: 0,
    background: 0,
  };
  try {
    const file = sh().NewParser().Parse(command, "command");
    const patterns: ShellWord[] = [];
    const params = scanScript(ctx, file, patterns);
    collectStmts(ctx, file.Stmts ?? [], "top");
    const code = codeInValues(sh(), file, (n) => rawOf(ctx, n as ShNode), opts.env);
    return { ok: true, commands: ctx.out, params, patterns, ...(code ? { codeInValues: code } : {}) };
  } catch (e) {
    const err = e as { Error?: () => string; message?: string };
    const msg = typeof err?.Error === "function" ? err.Error() : (err?.message ?? String(e));
    return { ok: false, reason: msg };
  }
}
