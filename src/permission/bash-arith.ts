// Variable values that bash runs as code (issue 16, third red-team pass). Bash evaluates a variable's value again in
// arithmetic (`$((x))`, `((x))`, `let`, `$[x]`, array subscripts, `${s:x}`, `[[ $x -eq 1 ]]`, `declare -i`) and in
// prompt expansion (`${x@P}`); an array subscript inside that value is expanded, command substitutions included. So
// `x='a[$(rm -rf p)]'; echo $((x))` runs rm though no word of the command names it, and so does `x=$(cat f)` when f
// (a file the repository ships) holds such a value. This finds arithmetic and prompt expansions that may reach a value
// not known to be free of expansions. Pure over the parsed tree.

type Node = Record<string, any>;
type Syntax = { NodeType(n: Node): string; Walk(n: Node, fn: (n: Node | null) => boolean): void };

const IDENT = /[A-Za-z_]\w*/g;
/** Set by bash itself to text a command chose (`$_` is the last word of the previous command, REPLY what read read ...). */
const SHELL_SET = /^(_|REPLY|OPTARG|MAPFILE|BASH_\w+|COPROC\w*|READLINE_\w+|COMP_\w+|FUNCNAME|PIPESTATUS|PWD|OLDPWD|\d+|[@*])$/;
/** Builtins that set the variables they name from run-time text. */
const SETS_NAMED = new Set(["read", "mapfile", "readarray", "getopts", "wait", "printf"]);
/** Builtins that evaluate an array subscript in a variable name they are given (`unset 'a[x]'`, `test -v 'a[x]'`). */
const NAME_ARGS = new Set(["test", "[", "read", "unset", "printf", "mapfile", "readarray", "wait", "getopts", "declare", "typeset", "local", "export", "readonly", "let"]);
/** Command substitutions whose output is a number, so arithmetic over it runs nothing. */
const NUMBER_PRINTER = /^\s*(wc(\s+-[lcmwL]+)*(\s+[\w./-]+)?(\s*<\s*[\w./-]+)?|nproc|id\s+-[ug]|date\s+\+%s|seq(\s+-?\d+){1,3})\s*$/;
const substBody = (r: string): string => r.replace(/^[$<>]\(|\)$|^`|`$/g, "");

/**
 * Why an arithmetic or prompt expansion of this script may run code no word shows, or undefined.
 * `raw` gives a node's source text; `env` the environment the script starts with.
 */
export function codeInValues(s: Syntax, file: Node, raw: (n: Node) => string, env: Record<string, string | undefined>): string | undefined {
  // What each name may be set to: known text, or unknown (`undefined` in the list).
  const values = new Map<string, (string | undefined)[]>();
  const set = (name: string, v: string | undefined) => values.set(name, [...(values.get(name) ?? []), v]);
  let anyDynamic = false;
  let positional = false;
  let integerDecl = false;
  // Names evaluated as arithmetic or prompts, and substitutions whose output arithmetic evaluates.
  const arith = new Set<string>();
  const prompts = new Set<string>();
  let substInArith: string | undefined;

  const text = (w: Node | null | undefined): string | undefined => {
    if (!w) return "";
    let out = "";
    for (const p of (w.Parts ?? []) as Node[]) {
      const t = s.NodeType(p);
      if (t === "Lit") out += p.Value;
      else if (t === "SglQuoted" && !p.Dollar) out += p.Value;
      else if (t === "DblQuoted" && (p.Parts ?? []).every((q: Node) => s.NodeType(q) === "Lit")) out += (p.Parts ?? []).map((q: Node) => q.Value).join("");
      // Arithmetic and number printers make numbers (`i=$((i+1))`, `n=$(wc -l < f)`).
      else if (t === "ArithmExp" || (t === "CmdSubst" && NUMBER_PRINTER.test(substBody(raw(p))))) out += "0";
      else return undefined;
    }
    return out;
  };
  /** Identifiers, parameters and substitutions inside an arithmetic expression. */
  const arithInputs = (n: Node | null | undefined) => {
    if (!n) return;
    s.Walk(n, (c) => {
      if (!c) return true;
      const t = s.NodeType(c);
      if (t === "Lit") for (const m of String(c.Value).matchAll(IDENT)) arith.add(m[0]);
      else if (t === "ParamExp" && c.Param?.Value) arith.add(c.Param.Value);
      else if (t === "CmdSubst" || t === "ProcSubst") {
        if (!NUMBER_PRINTER.test(substBody(raw(c)))) substInArith ??= raw(c);
        return false;
      }
      return true;
    });
  };

  s.Walk(file, (n) => {
    if (!n) return true;
    const t = s.NodeType(n);
    switch (t) {
      case "ArithmExp":
      case "ArithmCmd":
      case "LetClause":
      case "CStyleLoop":
        arithInputs(n);
        return false;
      case "ParamExp":
        if (n.Index) arithInputs(n.Index);
        if (n.Slice) {
          arithInputs(n.Slice.Offset);
          arithInputs(n.Slice.Length);
        }
        if (/@P\}$/.test(raw(n)) && n.Param?.Value) prompts.add(n.Param.Value);
        return true;
      case "BinaryTest":
        if (n.X && n.Y && /^-(eq|ne|lt|le|gt|ge)$/.test(rawBetween(raw, n))) {
          arithInputs(n.X);
          arithInputs(n.Y);
        }
        return true;
      case "Assign": {
        if (n.Index) arithInputs(n.Index);
        const name: string | undefined = n.Name?.Value;
        if (!name) return true;
        if (n.Array) for (const e of (n.Array.Elems ?? []) as Node[]) set(name, text(e?.Value));
        else set(name, n.Value ? text(n.Value) : "");
        return true;
      }
      case "DeclClause": {
        const words = ((n.Args ?? []) as Node[]).filter((a) => a?.Naked && a.Value).map((a) => text(a.Value) ?? "");
        if (words.some((w) => /^-[a-zA-Z]*n/.test(w))) anyDynamic = true;
        if (words.some((w) => /^-[a-zA-Z]*i/.test(w))) integerDecl = true;
        for (const w of words) nameArg(w);
        return true;
      }
      case "ForClause":
        if (n.Loop && s.NodeType(n.Loop) === "WordIter" && n.Loop.Name?.Value) {
          const items = (n.Loop.Items ?? []) as Node[];
          // Items that are words as written (no pattern, no expansion) are known; a file name a pattern finds is not.
          for (const it of items) set(n.Loop.Name.Value, ((v) => (v === undefined || /[*?[]/.test(v) ? undefined : v))(text(it)));
          if (!items.length) positional = true;
        }
        return true;
      case "FuncDecl":
        positional = true;
        return true;
      case "CallExpr": {
        const words = ((n.Args ?? []) as Node[]).filter(Boolean).map((a) => text(a));
        const first = words[0] ?? "";
        if (first === "eval" || first === "source" || first === ".") anyDynamic = true;
        if (first === "set" || first === "shift") positional = true;
        if (first && SETS_NAMED.has(first) && (first !== "printf" || words.some((w) => w?.startsWith("-v")))) for (const w of words.slice(1)) for (const m of (w ?? "").matchAll(IDENT)) set(m[0], undefined);
        if (first && NAME_ARGS.has(first)) for (const w of words.slice(1)) nameArg(w);
        return true;
      }
      default:
        return true;
    }
  });

  /** A variable name given as a word (`unset 'a[x]'`): its subscript is arithmetic; a substitution in it runs. */
  function nameArg(w: string | undefined): void {
    const m = /^[A-Za-z_]\w*\[(.*)\]/s.exec(w ?? "");
    if (!m) return;
    if (/[`$]/.test(m[1]!)) substInArith ??= w;
    for (const id of m[1]!.matchAll(IDENT)) arith.add(id[0]);
  }

  if (substInArith !== undefined) return `arithmetic evaluates the output of ${substInArith.slice(0, 60)}, which may hold a command substitution`;
  if (integerDecl) for (const vs of values.values()) for (const v of vs) for (const m of (v ?? "").matchAll(IDENT)) arith.add(m[0]);
  const unsafe = (name: string, stack: Set<string>): string | undefined => {
    if (stack.has(name)) return undefined;
    stack.add(name);
    if (anyDynamic) return name;
    if (/^(\d+|[@*])$/.test(name) && !positional) return undefined;
    const vs = values.get(name) ?? (SHELL_SET.test(name) ? [undefined] : [env[name] ?? ""]);
    for (const v of vs) {
      if (v === undefined || /[`$]/.test(v)) return name;
      for (const m of v.matchAll(IDENT)) {
        const bad = unsafe(m[0], stack);
        if (bad) return bad;
      }
    }
    return undefined;
  };
  for (const name of arith) {
    const bad = unsafe(name, new Set());
    if (bad) return `arithmetic evaluates $${bad}, whose value may hold a command substitution`;
  }
  for (const name of prompts) {
    const bad = unsafe(name, new Set());
    if (bad) return `\${${name}@P} expands $${bad} as a prompt, which runs command substitutions`;
  }
  return undefined;
}

/** The operator text of a binary test (`-eq`), from the source between its operands. */
function rawBetween(raw: (n: Node) => string, n: Node): string {
  const whole = raw(n);
  const x = raw(n.X);
  const y = raw(n.Y);
  return whole.slice(x.length, whole.length - y.length).trim();
}
