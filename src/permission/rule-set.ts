import { canonicalHost, normalizeHost, urlHost } from "../util/host.ts";
import type { LoadedSettings } from "../config/load.ts";
import { compilePathRule, type PathRule, pathRuleMatches } from "./paths.ts";
import { globToRegExp, parseRule, ruleNamesTool, splitToolList } from "./rule-parse.ts";
import type { PermissionRule } from "./types.ts";

export type RuleList = "allow" | "ask" | "deny";
export const LISTS: RuleList[] = ["deny", "ask", "allow"];

export type RuleSet = {
  all: PermissionRule[];
  byList: Record<RuleList, PermissionRule[]>;
  pathRules: Record<RuleList, { Read: PathRule[]; Edit: PathRule[] }>;
  warnings: string[];
};

const FILE_EDIT_NAMES = new Set(["Write", "MultiEdit", "NotebookEdit"]);

/** Gathers every rule from each settings file and the flags, remembering where each came from. Never throws. */
export function buildRuleSet(opts: {
  settings: LoadedSettings;
  cwd: string;
  home: string;
  allowedTools?: string[];
  disallowedTools?: string[];
}): RuleSet {
  const warnings: string[] = [];
  const all: PermissionRule[] = [];
  const byList: RuleSet["byList"] = { allow: [], ask: [], deny: [] };
  const pathRules: RuleSet["pathRules"] = { allow: { Read: [], Edit: [] }, ask: { Read: [], Edit: [] }, deny: { Read: [], Edit: [] } };
  const add = (text: string, file: string, index: number, list: RuleList, ruleRoot: string) => {
    const r = parseRule(text, { file, index, list });
    if (typeof r === "string") {
      warnings.push(`${file}: permissions.${list}[${index}]: ${r} (rule skipped)`);
      return;
    }
    if (FILE_EDIT_NAMES.has(r.toolName) && r.specifier !== undefined) {
      // Edit(...) governs every editing tool; a path rule on Write/MultiEdit/NotebookEdit is read as Edit (contracts §3.1).
      warnings.push(`${file}: permissions.${list}[${index}]: "${text}" treated as Edit(${r.specifier})`);
      r.toolName = "Edit";
    }
    all.push(r);
    byList[list].push(r);
    if ((r.toolName === "Read" || r.toolName === "Edit") && r.specifier !== undefined) {
      pathRules[list][r.toolName].push({ rule: r, compiled: compilePathRule(r.specifier, { cwd: opts.cwd, home: opts.home, ruleRoot }) });
    }
  };
  for (const src of opts.settings.sources) {
    const p = src.settings.permissions;
    if (!p) continue;
    for (const list of LISTS) (p[list] ?? []).forEach((text, i) => add(text, src.path, i, list, src.ruleRoot));
  }
  splitToolList(opts.disallowedTools ?? []).forEach((t, i) => add(t, "--disallowedTools", i, "deny", opts.cwd));
  splitToolList(opts.allowedTools ?? []).forEach((t, i) => add(t, "--allowedTools", i, "allow", opts.cwd));
  return { all, byList, pathRules, warnings };
}

/** Matches one Bash specifier against a command subject (internals §9.1 shellRuleMatching). */
export function bashSpecMatches(spec: string, subject: string): boolean {
  const s = subject.trim();
  if (spec.endsWith(":*")) {
    const prefix = spec.slice(0, -2);
    if (s === prefix || s.startsWith(`${prefix} `)) return true;
    return s.startsWith("xargs ") && bashSpecMatches(spec, s.slice(6));
  }
  if (/(^|[^\\])\*/.test(spec)) {
    if (globToRegExp(spec).test(s)) return true;
    const stars = spec.match(/(^|[^\\])\*/g)?.length ?? 0;
    return spec.endsWith(" *") && stars === 1 && s === spec.slice(0, -2);
  }
  return s === spec.replace(/\\([*\\])/g, "$1");
}

export const wholeToolRule = (set: RuleSet, list: RuleList, toolName: string) =>
  set.byList[list].find((r) => r.specifier === undefined && ruleNamesTool(r, toolName, list));

export const findBashRule = (set: RuleSet, list: RuleList, subjects: string[]) =>
  set.byList[list].find((r) => r.toolName === "Bash" && r.specifier !== undefined && subjects.some((s) => bashSpecMatches(r.specifier!, s)));

/** First path rule of a kind covering any of the given absolute spellings. Deny/ask also try look-alike folding. */
export function findPathRule(set: RuleSet, list: RuleList, kind: "Read" | "Edit", paths: string[]): PermissionRule | undefined {
  const fold = list !== "allow";
  const hit = set.pathRules[list][kind].find((pr) =>
    list === "allow" ? paths.every((p) => pathRuleMatches(pr.compiled, p, false)) : paths.some((p) => pathRuleMatches(pr.compiled, p, fold)),
  );
  return hit?.rule;
}

/** `WebFetch(domain:x)`: exact host, `*.x` subdomains only, `*` any (contracts §3.1). */
export function domainMatches(spec: string, url: string): boolean {
  if (!spec.startsWith("domain:")) return false;
  // `localhost.`, `evil.example%2e`, `EVIL.example` all name the host a rule names (issue 16 class 9).
  const host = urlHost(url);
  if (host === undefined) return false;
  const d = normalizeHost(spec.slice(7));
  if (d === "*") return true;
  if (d.startsWith("*.")) return host.endsWith(d.slice(1)) && host !== d.slice(2);
  // `127.1`, `[::1]`, `0.0.0.0` reach what `localhost` names; `[::ffff:a00:1]` what `10.0.0.1` names (red team).
  return host === d || canonicalHost(host) === canonicalHost(d);
}

const PRIMARY_FIELDS = new Set(["command", "file_path", "path", "url", "notebook_path"]);

/** `Tool(param:value)` for deny/ask: a top-level scalar input field, `*` wildcard. */
export function paramSpecMatches(spec: string, input: Record<string, unknown>): boolean {
  const m = /^([A-Za-z_]\w*):(.*)$/s.exec(spec);
  if (!m || PRIMARY_FIELDS.has(m[1]!) || spec.endsWith(":*")) return false;
  const v = input[m[1]!];
  if (v === undefined || (typeof v === "object" && v !== null)) return false;
  return globToRegExp(m[2]!).test(String(v));
}
