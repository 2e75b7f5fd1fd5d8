// mvdan-sh is the GopherJS build of mvdan/sh (the Go shell parser behind shfmt): a real bash AST in plain
// JavaScript, no native addon or wasm. Required lazily so startup does not pay for it until a Bash call.
type ShNode = { Pos(): { Offset(): number }; End(): { Offset(): number } } & Record<string, any>;
type ShSyntax = {
  NewParser(...opts: unknown[]): { Parse(src: string, name: string): ShNode };
  NodeType(n: ShNode): string;
  Walk(n: ShNode, fn: (n: ShNode | null) => boolean): void;
};
let syntaxCache: ShSyntax | undefined;
function sh(): ShSyntax {
  // A plain require() call so `bun build --compile` bundles the module (createRequire would look on disk at run time).
  if (!syntaxCache) syntaxCache = (require("mvdan-sh") as { syntax: ShSyntax }).syntax;
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
    }
  | { ok: false; reason: string };

const GLOB_CHARS = /(^|[^\\])[*?[]/;

type Ctx = {
  buf: Buffer;
  vars: Map<string, string>;
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
  let isStatic = true;
  let glob = false;
  let split = false;
  const parts: ShNode[] = w.Parts ?? [];
  parts.forEach((part, i) => {
    const t = s.NodeType(part);
    if (t === "Lit") {
      let v: string = part.Value;
      if (GLOB_CHARS.test(v) || /\{[^}]*(,|\.\.)[^}]*\}/.test(v)) glob = true;
      v = unescapeUnquoted(v);
      if (i === 0 && (v === "~" || v.startsWith("~/"))) v = ctx.home + v.slice(1);
      else if (i === 0 && v.startsWith("~")) isStatic = false;
      value += v;
    } else if (t === "SglQuoted") {
      if (part.Dollar && /\\/.test(part.Value)) isStatic = false;
      value += part.Value;
    } else if (t === "DblQuoted") {
      for (const q of part.Parts ?? []) {
        const qt = s.NodeType(q);
        if (qt === "Lit") value += unescapeDouble(q.Value);
        else if (qt === "ParamExp") {
          const v = paramValue(ctx, q);
          if (v === undefined) isStatic = false;
          else value += v;
        } else isStatic = false;
      }
    } else if (t === "ParamExp") {
      const v = paramValue(ctx, part);
      split = true;
      if (v === undefined) isStatic = false;
      else {
        if (/[*?[]/.test(v)) glob = true;
        value += v;
      }
    } else isStatic = false;
  });
  return { value, raw: rawOf(ctx, w), static: isStatic, glob, ...(split ? { split } : {}) };
}

/** Finds `$(...)`, backticks and `<(...)` inside a node and collects their commands too. */
function collectNested(ctx: Ctx, n: ShNode | null | undefined): void {
  if (!n) return;
  const s = sh();
  s.Walk(n, (c) => {
    if (!c) return true;
    const t = s.NodeType(c);
    if (t === "CmdSubst" || t === "ProcSubst") {
      collectStmts(ctx, c.Stmts ?? [], "subst");
      return false;
    }
    return true;
  });
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
      collectStmtInner(ctx, st, origin);
    } finally {
      ctx.background--;
    }
  } else collectStmtInner(ctx, st, origin);
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
  switch (t) {
    case "CallExpr": {
      const assigns = (cmd.Assigns ?? []).filter(Boolean).map((a: ShNode) => {
        collectNested(ctx, a.Value);
        return { name: a.Name?.Value ?? "", value: a.Value ? wordOf(ctx, a.Value) : undefined };
      });
      const args: ShNode[] = (cmd.Args ?? []).filter(Boolean);
      for (const a of args) collectNested(ctx, a);
      const argv = args.map((a) => wordOf(ctx, a));
      // A statement of pure assignments sets shell variables later words may use (`F=.env; cat $F`).
      if (argv.length === 0) for (const a of assigns) if (a.value?.static) ctx.vars.set(a.name, a.value.value);
        else ctx.vars.delete(a.name);
      push(ctx, { argv, assigns, redirects, raw: rawOf(ctx, st), origin });
      return;
    }
    case "BinaryCmd": {
      // The parts of a pipeline run at the same time: their order is as unknown as a background job's.
      const op = cmd.X && cmd.Y ? ctx.buf.subarray(cmd.X.End().Offset(), cmd.Y.Pos().Offset()).toString("utf8").trim() : "";
      const pipe = op === "|" || op === "|&";
      if (pipe) ctx.background++;
      try {
        if (cmd.X) collectStmt(ctx, cmd.X, origin);
        if (cmd.Y) collectStmt(ctx, cmd.Y, origin);
      } finally {
        if (pipe) ctx.background--;
      }
      break;
    }
    case "Subshell":
    case "Block":
      collectStmts(ctx, cmd.Stmts ?? [], origin);
      break;
    case "IfClause": {
      for (let c: ShNode | null = cmd; c; c = c.Else) {
        collectStmts(ctx, c.Cond ?? [], origin);
        collectStmts(ctx, c.Then ?? [], origin);
      }
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
      if (cmd.Loop?.Name?.Value) ctx.vars.delete(cmd.Loop.Name.Value);
      repeated(ctx, () => collectStmts(ctx, cmd.Do ?? [], origin));
      break;
    case "CaseClause":
      collectNested(ctx, cmd.Word);
      for (const item of cmd.Items ?? []) if (item) collectStmts(ctx, item.Stmts ?? [], origin);
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
          if (value?.static) ctx.vars.set(a.Name?.Value ?? "", value.value);
          else ctx.vars.delete(a.Name?.Value ?? "");
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

/** Stands in ParseResult.params for `${!x}` and `${!prefix*}`: a variable named at run time. */
export const INDIRECT = "${!}";

/** Names of every parameter expansion in the script, heredoc bodies included; INDIRECT for `${!x}` and `${!prefix*}`. */
function paramNames(file: ShNode): string[] {
  const s = sh();
  const names = new Set<string>();
  s.Walk(file, (n) => {
    if (n && s.NodeType(n) === "ParamExp") {
      if (n.Excl || n.Names) names.add(INDIRECT);
      // Special parameters ($!, $?, $1 ...) are no environment names.
      if (/^[A-Za-z_]\w*$/.test(n.Param?.Value ?? "")) names.add(n.Param.Value);
    }
    return true;
  });
  return [...names];
}

/**
 * Parses a bash command into every simple command it would run. Never throws: a syntax error or an
 * unsupported construct comes back as `{ ok: false, reason }` (callers ask the user then).
 */
export function parseShell(command: string, opts: { env: Record<string, string | undefined>; home: string; vars?: Map<string, string> }): ParseResult {
  const ctx: Ctx = { buf: Buffer.from(command, "utf8"), vars: opts.vars ?? new Map(), env: opts.env, home: opts.home, out: [], repeat: 0, background: 0 };
  try {
    const file = sh().NewParser().Parse(command, "command");
    collectStmts(ctx, file.Stmts ?? [], "top");
    return { ok: true, commands: ctx.out, params: paramNames(file) };
  } catch (e) {
    const err = e as { Error?: () => string; message?: string };
    const msg = typeof err?.Error === "function" ? err.Error() : (err?.message ?? String(e));
    return { ok: false, reason: msg };
  }
}
