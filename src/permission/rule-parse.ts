import { canonicalToolName } from "../tool/declarations.ts";
import type { PermissionRule, RuleSource } from "./types.ts";

// Legacy names (Task, KillShell …) come from the one table of tool declarations (contracts §7.1).
export { canonicalToolName } from "../tool/declarations.ts";

const TOOL_NAME = /^[A-Za-z_*][\w*.-]*$/;

/** Finds the first `(` that is not escaped by a backslash. */
function firstUnescaped(text: string, ch: string): number {
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === ch) return i;
  }
  return -1;
}

const unescapeSpecifier = (s: string) => s.replace(/\\([()\\])/g, "$1");

/**
 * Parses `Tool` or `Tool(specifier)` (contracts §3.1, internals §9.1). Never throws:
 * returns a string describing the problem for an unparsable rule.
 */
export function parseRule(text: string, source: RuleSource): PermissionRule | string {
  const t = text.trim();
  if (!t) return "empty rule";
  const open = firstUnescaped(t, "(");
  if (open === -1) {
    if (t.includes(")")) return `unbalanced ")" in rule "${t}"`;
    if (!TOOL_NAME.test(t)) return `invalid tool name "${t}"`;
    return { toolName: canonicalToolName(t), text: t, source };
  }
  if (!t.endsWith(")") || t.endsWith("\\)")) return `rule "${t}" must end with ")"`;
  const name = t.slice(0, open).trim();
  if (!TOOL_NAME.test(name)) return `invalid tool name "${name}" in rule "${t}"`;
  const spec = unescapeSpecifier(t.slice(open + 1, -1));
  // `Tool()` and `Tool(*)` mean the whole tool.
  if (spec.trim() === "" || spec.trim() === "*") return { toolName: canonicalToolName(name), text: t, source };
  return { toolName: canonicalToolName(name), specifier: spec, text: t, source };
}

const SEPARATORS = /[\s,]+/;
/** What SEPARATORS leave between them: the same rules as a split on them without the empty ones. */
const RULES = /[^\s,]+/g;

/**
 * Splits a `--allowedTools`/`--disallowedTools` value: commas or whitespace separate rules,
 * except inside parentheses (so `Bash(git commit -m *)` stays one rule).
 */
export function splitToolList(values: string[]): string[] {
  // Without parentheses or escapes every comma and space separates: the rules are the runs between them, one native
  // match, no loop in script (each skill's allowed-tools is split at start-up, when the JIT is held back: issue 14
  // point 7, where a for-of and a split per value cost more than the rest of the file's entry).
  if (values.length === 1 && !values[0]!.includes("(") && !values[0]!.includes("\\")) return values[0]!.match(RULES) ?? [];
  const out: string[] = [];
  for (const value of values) {
    if (!value.includes("(") && !value.includes("\\")) {
      for (const r of value.split(SEPARATORS)) if (r) out.push(r);
      continue;
    }
    let depth = 0;
    let cur = "";
    for (let i = 0; i < value.length; i++) {
      const c = value[i] as string;
      if (c === "\\" && i + 1 < value.length) {
        cur += c + value[++i];
        continue;
      }
      if (c === "(") depth++;
      else if (c === ")") depth = Math.max(0, depth - 1);
      if (depth === 0 && (c === "," || /\s/.test(c))) {
        if (cur.trim()) out.push(cur.trim());
        cur = "";
      } else cur += c;
    }
    if (cur.trim()) out.push(cur.trim());
  }
  return out;
}

/** Turns `*` globs (with `\*` literal) into an anchored, dotAll regexp. */
export function globToRegExp(pattern: string, flags = "s"): RegExp {
  let re = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === "\\" && (pattern[i + 1] === "*" || pattern[i + 1] === "\\")) {
      re += `\\${pattern[++i]}`;
    } else if (c === "*") re += ".*";
    else re += c.replace(/[.+?^${}()|[\]\\/]/g, "\\$&");
  }
  return new RegExp(`^${re}$`, flags);
}

/** True when a tool-name rule (possibly an MCP glob) names this tool. */
export function ruleNamesTool(rule: PermissionRule, toolName: string, list: "allow" | "ask" | "deny"): boolean {
  const r = rule.toolName;
  const t = canonicalToolName(toolName);
  if (r === t) return true;
  if (t.startsWith("mcp__")) {
    // `mcp__server` names every tool of that server.
    if (!r.includes("*") && t.startsWith(`${r}__`) && r.split("__").length === 2) return true;
    if (r.includes("*")) {
      // Allow globs only after a literal `mcp__<server>__` (contracts §3.1).
      if (list === "allow" && !/^mcp__[^*_][^*]*__/.test(r)) return false;
      return globToRegExp(r).test(t);
    }
    return false;
  }
  if (r.includes("*") && list !== "allow") return globToRegExp(r).test(t);
  return false;
}
