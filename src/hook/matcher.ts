import { canonicalToolName as canonical, toolNames } from "../tool/declarations.ts";

// contracts §7.1: matchers accept the same legacy names as permission rules (Task→Agent …), from the one
// table of tool declarations.

// contracts §1.3: letters, digits, `_`, `-`, space, `,`, `|` make an exact name or a list.
const EXACT = /^[A-Za-z0-9_\- ,|]+$/;

const regexCache = new Map<string, RegExp | null>();
function compile(matcher: string): RegExp | null {
  if (!regexCache.has(matcher)) {
    let re: RegExp | null = null;
    try {
      re = new RegExp(matcher);
    } catch {
      re = null;
    }
    regexCache.set(matcher, re);
  }
  return regexCache.get(matcher)!;
}

/** Whether a regex matcher is invalid (it then matches nothing); for `yoke hooks list` diagnostics. */
export const isInvalidMatcher = (matcher: string | undefined): boolean =>
  !!matcher && matcher !== "*" && !EXACT.test(matcher) && compile(matcher) === null;

/**
 * Claude Code's matcher rule (contracts §1.3, internals §8.1). `*`, empty or absent match all; an
 * exact name or a `|`/`,` list compares exactly (legacy names such as Task→Agent normalized on both
 * sides); anything else is an unanchored JavaScript RegExp, also tried on the value's legacy names.
 * An invalid regex matches nothing. Pure; never throws.
 */
export function matcherMatches(matcher: string | undefined, value: string | undefined): boolean {
  if (matcher === undefined || matcher === "" || matcher === "*") return true;
  if (value === undefined) return false;
  if (EXACT.test(matcher)) {
    const v = canonical(value);
    return matcher
      .split(/[|,]/)
      .map((s) => s.trim())
      .some((name) => name !== "" && canonical(name) === v);
  }
  const re = compile(matcher);
  if (!re) return false;
  return [value, ...toolNames(value)].some((v) => re.test(v));
}
