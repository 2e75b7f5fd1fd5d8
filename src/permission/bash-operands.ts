// Operands of programs whose first operand is a pattern or a program (grep, rg, sed, awk, jq), told apart from
// options as the program's own getopt does (issue 16, third red-team pass): `grep -eTOKEN .env` gives the pattern
// in an attached option value, so `.env` is a file it reads; `grep -r -m 5 TOKEN` takes `5` as -m's value, so TOKEN
// is the pattern and the search runs over the working directory. Guessing by position got both wrong. Pure.
import { basename } from "node:path";
import type { ShellWord } from "./bash-parse.ts";
import { type Kind, longKind, SPECS } from "./bash-options.ts";

/** One option as written: its short letter or the long names it may abbreviate, and its value when it takes one. */
export type ParsedOption = { short?: string; longs: string[]; value?: ShellWord };
export type ParsedArgs = { options: ParsedOption[]; operands: ShellWord[] };

const w = (value: string, like: ShellWord): ShellWord => ({ value, raw: like.raw, static: like.static, glob: like.glob });
const TAKES_NEXT = new Set<Kind>(["value", "read", "write", "exec", "name+read", "name+value", "data", "ssh-option"]);

/**
 * The options and operands of a GNU-style command line (options may follow operands; `--` ends them), by the
 * program's spec in bash-options.ts; undefined for a program without one. A word built at run time is an operand.
 */
export function parseArgs(argv: ShellWord[]): ParsedArgs | undefined {
  const name = argv[0]?.static ? basename(argv[0].value) : "";
  const spec = SPECS[name];
  if (!spec) return undefined;
  const words = argv.slice(1);
  const options: ParsedOption[] = [];
  const operands: ShellWord[] = [];
  for (let i = 0; i < words.length; i++) {
    const x = words[i]!;
    if (!x.static || !x.value.startsWith("-") || x.value === "-") {
      operands.push(x);
      continue;
    }
    const v = x.value;
    if (v === "--") {
      operands.push(...words.slice(i + 1));
      break;
    }
    if (v.startsWith("--") || spec.singleDash) {
      const body = v.slice(v.startsWith("--") ? 2 : 1);
      const eq = body.indexOf("=");
      const optName = eq >= 0 ? body.slice(0, eq) : body;
      const longs = Object.keys(spec.long ?? {}).filter((k) => k === optName || k.startsWith(optName));
      const exact = longs.includes(optName) ? [optName] : longs;
      const kind = longKind(spec, optName);
      const opt: ParsedOption = { longs: exact.length ? exact : [optName] };
      if (eq >= 0) opt.value = w(body.slice(eq + 1), x);
      else if (kind && TAKES_NEXT.has(kind)) {
        opt.value = words[i + 1];
        i += kind.startsWith("name+") ? 2 : 1;
      }
      options.push(opt);
      continue;
    }
    const shorts = spec.short ?? {};
    for (let k = 1; k < v.length; k++) {
      const c = v[k]!;
      const kind = shorts[c];
      const rest = v.slice(k + 1);
      if (!kind || kind === "flag") {
        options.push({ short: c, longs: [] });
        continue;
      }
      if (kind === "opt" || kind === "opt-exec") options.push({ short: c, longs: [], ...(rest ? { value: w(rest, x) } : {}) });
      else if (rest) options.push({ short: c, longs: [], value: w(rest, x) });
      else {
        options.push({ short: c, longs: [], value: words[i + 1] });
        i += kind.startsWith("name+") ? 2 : 1;
      }
      break;
    }
  }
  return { options, operands };
}

/** Options that give the pattern or program, so that no operand is one: `grep -e/-f`, `sed -e/-f`, `awk -f/-e/-E`, `jq -f`, `rg --files`. */
const GREP_GIVEN = { short: "ef", long: /^(regexp|file)$/ };
const AWK_GIVEN = { short: "efE", long: /^(file|source|exec)$/ };
const PATTERN_GIVEN: Record<string, { short: string; long: RegExp }> = {
  grep: GREP_GIVEN,
  egrep: GREP_GIVEN,
  fgrep: GREP_GIVEN,
  rg: { short: "ef", long: /^(regexp|file|files|type-list)$/ },
  sed: { short: "ef", long: /^(expression|file)$/ },
  awk: AWK_GIVEN,
  gawk: AWK_GIVEN,
  jq: { short: "f", long: /^from-file$/ },
};

/** Programs whose first operand is a pattern or a program unless an option gave it. */
export const PATTERN_PROGRAMS = new Set(Object.keys(PATTERN_GIVEN));

/**
 * The operands of a pattern program that name files (the pattern dropped unless an option gave it), or undefined
 * when the program is no such one. An abbreviated long option that may be a pattern option counts as one, so
 * every word it could leave is a file: stricter, never looser.
 */
export function fileOperands(argv: ShellWord[]): ShellWord[] | undefined {
  const name = argv[0]?.static ? basename(argv[0].value) : "";
  const given = PATTERN_GIVEN[name];
  const parsed = given ? parseArgs(argv) : undefined;
  if (!given || !parsed) return undefined;
  const byOption = parsed.options.some((o) => (o.short !== undefined && given.short.includes(o.short)) || o.longs.some((l) => given.long.test(l)));
  return byOption ? parsed.operands : parsed.operands.slice(1);
}

/** Whether grep searches folders recursively: `-r`, `-R`, `--recursive` (or a prefix), `-d recurse` / `--directories=rec`. */
export function grepRecursive(argv: ShellWord[]): boolean {
  const parsed = parseArgs(argv);
  if (!parsed) return false;
  return parsed.options.some(
    (o) =>
      o.short === "r" ||
      o.short === "R" ||
      o.longs.some((l) => l === "recursive" || l === "dereference-recursive") ||
      // grep matches the value by unambiguous prefix too (`-d rec`).
      ((o.short === "d" || o.longs.includes("directories")) && o.value !== undefined && (!o.value.static || (o.value.value.length >= 2 && "recurse".startsWith(o.value.value)))),
  );
}
