import { relative } from "node:path";
import { userHome } from "../util/home.ts";
import type { LoadedSettings } from "../config/load.ts";
import { grepExcludeGlobs, isInside, resolvePath } from "./paths.ts";
import { builtinDeclaration, canonicalToolName, type ToolDeclaration } from "../tool/declarations.ts";
import { credentialExcludeGlobs, isCredentialPath, isProtectedPath } from "./sensitive-paths.ts";
import { buildRuleSet, domainMatches, findPathRule, paramSpecMatches, type RuleList, type RuleSet, wholeToolRule } from "./rule-set.ts";
import { PERMISSION_MODES, type PermissionDecision, type PermissionEvaluator, type PermissionMode, type PermissionQuery, type PermissionRule } from "./types.ts";
import { modeFromSettings } from "./modes.ts";
export { modeFromSettings } from "./modes.ts";

/**
 * The Bash checker (bash-check.ts and the ~20 modules under it, ~200 KB of the bundle) loads on the first Bash decision,
 * not with the evaluator: a run that calls no Bash never reads it, and one that does reads it after its first request
 * (issue 21: ~2.5 ms of a start's CPU). A require, so the decision stays synchronous; the binary keeps it in a chunk
 * of its own (build.ts splitting).
 */
let bashChecker: typeof import("./bash-check.ts") | undefined;
const bashCheck = () => {
  if (!bashChecker) {
    bashChecker = require("./bash-check.ts") as typeof import("./bash-check.ts");
    // YOKE_TIMING shows when (and whether) a run loaded it: src/cli/shell-warm.ts starts it as a Bash call streams in.
    performance.mark("yoke:bash-checker-loaded");
  }
  return bashChecker;
};
/** Loads the Bash checker now (once): for a caller that knows a Bash decision is coming (its tool call is streaming). */
export const warmBashChecker = (): void => void bashCheck();

export type EvaluatorOptions = {
  settings: LoadedSettings;
  mode?: PermissionMode;
  cwd: string;
  addDirs?: string[];
  allowedTools?: string[];
  disallowedTools?: string[];
  env?: Record<string, string | undefined>;
  /** The validated auto-memory dir(s): file tools may write there without asking (deny rules still apply). */
  autoAllowWriteDirs?: string[];
  /**
   * `sandbox.autoAllowBashIfSandboxed`: true when this Bash input will run inside the kernel sandbox and
   * the settings let such a command run without asking. Deny rules, ask rules and the checks that are
   * never bypassed still hold. Read at decision time (the sandbox is set up after the evaluator).
   */
  sandboxAutoAllow?: (input: Record<string, unknown>) => boolean;
  /**
   * True when the kernel sandbox is on but this Bash input asks to run outside it (`dangerouslyDisableSandbox`,
   * honoured because `allowUnsandboxedCommands` lets it). Such a call is never allowed by the static analysis
   * alone: the analysis is the first line and the sandbox the last, so leaving the sandbox needs a rule or a user.
   */
  sandboxEscape?: (input: Record<string, unknown>) => boolean;
  /**
   * Declarations of tools beyond Claude Code's own (MCP, plugins), by name: an MCP tool with readOnlyHint
   * declares itself read-only. Claude Code's tools are declared in tool/declarations.ts.
   */
  declarations?: (name: string) => ToolDeclaration | undefined;
  /** `permissions.disableAutoMode`: setMode("auto") throws instead of switching (the Agent SDK's set_permission_mode). */
  autoModeDisabled?: boolean;
};

export type Evaluator = PermissionEvaluator & {
  readonly rules: PermissionRule[];
  /** Changes the mode for the rest of the session (the Agent SDK's set_permission_mode). Throws when settings disable that mode. */
  setMode(mode: PermissionMode): void;
  /** Adds allow/deny rules for the rest of the session, as if given with --allowedTools/--disallowedTools. */
  addRules(behavior: "allow" | "deny", rules: string[]): void;
  /**
   * Replaces the temporary allow rules of a running skill or slash command (`allowed-tools`, contracts §6.2:
   * they last until the next user message); `[]` withdraws them. Bad rules are skipped as for --allowedTools.
   */
  grant(rules: string[]): void;
  /** The temporary allow rules in force. */
  readonly granted: readonly string[];
  workingDirectories: string[];
  /** Problems found while reading rules (bad rule skipped), each naming file and index. */
  warnings: string[];
  /** ripgrep `--glob` exclusions (`!x`) for a search rooted at `searchDir`, from Read deny rules. Never throws. */
  grepExcludes(searchDir: string): string[];
  /**
   * Whether a file a search found stays out of its results (Glob names, Grep's file lists): a Read deny rule covers
   * it, through links too, or it is a credential store (not in bypassPermissions). Never throws.
   */
  searchHides(absPath: string): boolean;
  /** The parsed rules, for the sandbox policy (src/sandbox/policy.ts). */
  ruleSet: RuleSet;
};

type PathTarget = Extract<NonNullable<ToolDeclaration["ruleTarget"]>, { kind: "path" }>;

const pathOf = (target: PathTarget, input: Record<string, unknown>, cwd: string): string | undefined => {
  const v = input[target.field] ?? (target.defaultCwd ? cwd : undefined);
  if (typeof v !== "string" || v === "") return undefined;
  const pattern = target.globField ? input[target.globField] : undefined;
  return typeof pattern === "string" ? globBase(v, pattern) : v;
};

/** Where a Glob really looks: its path joined with the pattern's literal leading folders (`/etc/*`, `../x/*` leave the path). */
function globBase(path: string, pattern: string): string {
  const segs = pattern.split("/");
  const lit: string[] = [];
  for (const s of segs.slice(0, -1)) {
    if (/[*?[{]/.test(s)) break;
    lit.push(s);
  }
  if (!lit.length) return path;
  const prefix = lit.join("/") || "/";
  return pattern.startsWith("/") || pattern.startsWith("~") ? prefix : `${path.replace(/\/+$/, "")}/${prefix}`;
}


/**
 * Builds the one evaluator for a session. Never throws: an unparsable rule is skipped and listed in
 * `warnings` with its file and index. `decide` never throws either.
 */
export function createPermissionEvaluator(opts: EvaluatorOptions): Evaluator {
  const env = opts.env ?? process.env;
  const home = userHome(env);
  const real = (p: string, base: string) => resolvePath(p, base, home).real;
  const cwd = real(opts.cwd, "/");
  // Rules added mid-session (the Agent SDK's updatedPermissions, apply_flag_settings) count as command-line rules.
  const added = { allow: [] as string[], deny: [] as string[] };
  let granted: string[] = [];
  const build = (): RuleSet =>
    buildRuleSet({ settings: opts.settings, cwd, home, allowedTools: [...(opts.allowedTools ?? []), ...added.allow, ...granted], disallowedTools: [...(opts.disallowedTools ?? []), ...added.deny] });
  let set: RuleSet = build();
  let mode: PermissionMode = opts.mode ?? modeFromSettings(opts.settings) ?? "default";
  if (!PERMISSION_MODES.includes(mode)) mode = "default";
  const dirs = [cwd];
  for (const s of opts.settings.sources)
    for (const d of s.settings.permissions?.additionalDirectories ?? []) dirs.push(real(d, s.ruleRoot));
  for (const d of opts.addDirs ?? []) dirs.push(real(d, cwd));
  const workingDirectories = [...new Set(dirs)];
  const autoDirs = (opts.autoAllowWriteDirs ?? []).map((d) => real(d, cwd));
  const inWorking = (paths: string[]) => paths.every((p) => workingDirectories.some((d) => isInside(d, p)));

  const declOf = (tool: string): ToolDeclaration | undefined => builtinDeclaration(tool) ?? opts.declarations?.(tool);

  const toolRule = (list: RuleList, tool: string, input: Record<string, unknown>): PermissionRule | undefined => {
    const whole = wholeToolRule(set, list, tool);
    if (whole) return whole;
    const target = declOf(tool)?.ruleTarget;
    for (const r of set.byList[list]) {
      if (r.specifier === undefined || r.toolName !== tool) continue;
      if (list !== "allow" && paramSpecMatches(r.specifier, input)) return r;
      const v = target ? input[target.field] : undefined;
      if (typeof v !== "string") continue;
      if (target?.kind === "domain" && domainMatches(r.specifier, v)) return r;
      // The Agent tool finds a type whatever its case, so the rule must match it that way too.
      if (target?.kind === "name" && (target.ignoreCase ? r.specifier.toLowerCase() === v.trim().toLowerCase() : r.specifier === v)) return r;
    }
    return undefined;
  };

  const core = (q: PermissionQuery, tool: string): PermissionDecision & { bypassable?: boolean } => {
    const input = q.input ?? {};
    const qcwd = q.cwd ? real(q.cwd, cwd) : cwd;
    const decl = declOf(tool);
    const readOnly = q.readOnly || decl?.readOnly === true;
    const target = decl?.ruleTarget;
    const pathTarget = target?.kind === "path" ? target : undefined;
    // Whole-tool Edit rules govern every editing tool; a whole-tool Read deny also covers Grep/Glob.
    const family = pathTarget ? (pathTarget.access === "edit" ? "Edit" : "Read") : undefined;
    const deny = toolRule("deny", tool, input) ?? (family && family !== tool ? wholeToolRule(set, "deny", family) : undefined);
    if (deny) return { behavior: "deny", reason: `Permission to use ${tool} has been denied by rule ${deny.text}.`, rule: deny };
    if (pathTarget) {
      const raw = pathOf(pathTarget, input, qcwd);
      if (raw === undefined) return { behavior: "ask", reason: `${tool} was called without a path` };
      const rp = resolvePath(raw, qcwd, home);
      const paths = rp.all;
      const physical = rp.physical;
      const edit = pathTarget.access === "edit";
      const pdeny = findPathRule(set, "deny", "Read", paths) ?? (edit ? findPathRule(set, "deny", "Edit", paths) : undefined);
      if (pdeny) return { behavior: "deny", reason: `Permission to ${edit ? "edit" : "read"} ${raw} has been denied by rule ${pdeny.text}.`, rule: pdeny };
      const ask = toolRule("ask", tool, input) ?? (family && family !== tool ? wholeToolRule(set, "ask", family) : undefined) ?? (edit ? findPathRule(set, "ask", "Edit", paths) : findPathRule(set, "ask", "Read", paths));
      if (ask) return { behavior: "ask", reason: `Rule ${ask.text} asks before ${tool} on ${raw}.`, rule: ask, bypassable: false };
      if (mode === "bypassPermissions") return { behavior: "allow", reason: "bypassPermissions mode" };
      if (edit && mode === "plan") return { behavior: "deny", reason: `Plan mode: do not edit files (${raw}). Finish the plan and exit plan mode with ExitPlanMode first.` };
      // The auto-memory folder may itself sit under ~/.yoke; only what lies below it is checked, so a memory
      // folder moved onto $HOME still cannot write ~/.bashrc or ~/.ssh.
      if (edit && autoDirs.some((d) => physical.every((p) => isInside(d, p) && !isProtectedPath(relative(d, p)))))
        return { behavior: "allow", reason: "inside the auto-memory directory" };
      // Before any allow (rules, working directories, a hook): these always ask.
      if (edit && paths.some(isProtectedPath))
        return { behavior: "ask", reason: `${raw} is a protected path (.git, .claude, .yoke, shell profiles, ~/.ssh, credential stores ...) and is never edited without approval.`, bypassable: false };
      if (!edit && paths.some(isCredentialPath))
        return { behavior: "ask", reason: `${raw} is a credential store (~/.ssh, ~/.aws, ~/.config/gh, ~/.netrc ...) and is never read without approval.`, bypassable: false };
      if (q.hookDecision === "allow") return { behavior: "allow", reason: "allowed by a PreToolUse hook" };
      if (edit) {
        const allow = wholeToolRule(set, "allow", "Edit") ?? wholeToolRule(set, "allow", tool) ?? findPathRule(set, "allow", "Edit", physical);
        if (allow) return { behavior: "allow", reason: `allowed by rule ${allow.text}`, rule: allow };
        if ((mode === "acceptEdits" || mode === "auto") && inWorking(physical)) return { behavior: "allow", reason: `${mode} mode allows edits inside the working directories` };
        return { behavior: "ask", reason: inWorking(physical) ? `Editing ${raw} needs approval.` : `${raw} is outside the working directories (${workingDirectories.join(", ")}).` };
      }
      const allow =
        wholeToolRule(set, "allow", tool) ?? findPathRule(set, "allow", "Read", physical) ?? findPathRule(set, "allow", "Edit", physical);
      if (allow) return { behavior: "allow", reason: `allowed by rule ${allow.text}`, rule: allow };
      if (inWorking(physical)) return { behavior: "allow", reason: `${tool} is read-only and ${raw} is inside the working directories` };
      return { behavior: "ask", reason: `${raw} is outside the working directories (${workingDirectories.join(", ")}).` };
    }
    if (target?.kind === "command") {
      const raw = input[target.field];
      const command = typeof raw === "string" ? raw : "";
      const ask = toolRule("ask", tool, input);
      if (ask) return { behavior: "ask", reason: `Rule ${ask.text} asks before running Bash.`, rule: ask, bypassable: false };
      const d = bashCheck().decideBash(command, { set, cwd: qcwd, home, env, workingDirs: workingDirectories, mode });
      if (d.behavior === "allow" && !d.rule && opts.sandboxEscape?.(input))
        return { behavior: "ask", reason: "The command asks to run outside the sandbox (dangerouslyDisableSandbox); that needs approval.", bypassable: true };
      const allowAll = d.behavior !== "allow" && d.bypassable ? wholeToolRule(set, "allow", "Bash") : undefined;
      if (allowAll) return { behavior: "allow", reason: `allowed by rule ${allowAll.text}`, rule: allowAll };
      if (d.behavior === "ask" && q.hookDecision === "allow" && d.bypassable) return { behavior: "allow", reason: "allowed by a PreToolUse hook" };
      if (d.behavior === "ask" && (d.bypassable || d.sandboxable) && mode !== "plan" && opts.sandboxAutoAllow?.(input))
        return { behavior: "allow", reason: "runs inside the sandbox (sandbox.autoAllowBashIfSandboxed)" };
      const { sandboxable: _s, ...decision } = d;
      return decision;
    }
    const ask = toolRule("ask", tool, input);
    if (ask) return { behavior: "ask", reason: `Rule ${ask.text} asks before ${tool}.`, rule: ask, bypassable: false };
    if (decl?.effect === "user") {
      // The question itself is the prompt: it needs a user (or a hook that supplies the answers).
      if (mode === "dontAsk") return { behavior: "deny", reason: "dontAsk mode: there is no user to answer questions; continue with your best judgement." };
      if (q.hookDecision === "allow") return { behavior: "allow", reason: "allowed by a PreToolUse hook" };
      return { behavior: "ask", reason: `${tool} needs a user to answer.`, bypassable: false };
    }
    if (q.hookDecision === "allow") return { behavior: "allow", reason: "allowed by a PreToolUse hook" };
    const allow = toolRule("allow", tool, input);
    if (allow) return { behavior: "allow", reason: `allowed by rule ${allow.text}`, rule: allow };
    if (readOnly && decl?.effect !== "network") return { behavior: "allow", reason: `${tool} is read-only` };
    if (decl?.effect === "session") return { behavior: "allow", reason: `${tool} only acts on this session's own state` };
    return { behavior: "ask", reason: `No rule allows ${tool}; it needs the user's approval.` };
  };

  const decide = (q: PermissionQuery): PermissionDecision => {
    const tool = canonicalToolName(q.toolName);
    let d: PermissionDecision & { bypassable?: boolean };
    try {
      if (q.hookDecision === "deny") return { behavior: "deny", reason: `A PreToolUse hook denied ${tool}.` };
      d = core(q, tool);
    } catch (e) {
      d = { behavior: "ask", reason: `The permission check failed (${(e as Error).message}); approval needed.` };
    }
    if (q.hookDecision === "ask" && d.behavior !== "deny") d = { behavior: "ask", reason: `A PreToolUse hook asked for approval of ${tool}.`, rule: d.rule, bypassable: false };
    if (d.behavior === "ask" && mode === "bypassPermissions" && d.bypassable !== false) return { behavior: "allow", reason: "bypassPermissions mode" };
    if (d.behavior === "ask" && mode === "dontAsk")
      return { behavior: "deny", reason: `dontAsk mode denies anything that would prompt: ${d.reason}`, rule: d.rule };
    const { bypassable: _b, ...out } = d;
    // Seed 000 step 3: what is left (no rule, no safety check) goes to the auto-mode classifier. Leaving the
    // sandbox stays a person's call (or a rule's): the classifier never lifts the last line of defence.
    if (out.behavior === "ask" && mode === "auto" && d.bypassable !== false && !(tool === "Bash" && opts.sandboxEscape?.(q.input ?? {})))
      return { ...out, classify: true };
    return out;
  };

  return {
    get mode() {
      return mode;
    },
    decide,
    isToolHidden: (toolName: string) => !!wholeToolRule(set, "deny", canonicalToolName(toolName)),
    get ruleSet() {
      return set;
    },
    get rules() {
      return set.all;
    },
    setMode(m: PermissionMode) {
      if (m === "auto" && opts.autoModeDisabled) throw new Error("auto mode is disabled by settings (permissions.disableAutoMode)");
      if (PERMISSION_MODES.includes(m)) mode = m;
    },
    addRules(behavior: "allow" | "deny", rules: string[]) {
      added[behavior].push(...rules);
      set = build();
    },
    grant(rules: string[]) {
      if (rules.length === 0 && granted.length === 0) return;
      granted = [...rules];
      set = build();
    },
    get granted() {
      return granted;
    },
    workingDirectories,
    searchHides: (absPath: string) => {
      try {
        const paths = resolvePath(absPath, cwd, home).all;
        return !!findPathRule(set, "deny", "Read", paths) || (mode !== "bypassPermissions" && paths.some(isCredentialPath));
      } catch {
        return true;
      }
    },
    grepExcludes: (searchDir: string) => {
      const dir = real(searchDir, cwd);
      const credentials = mode === "bypassPermissions" ? [] : credentialExcludeGlobs();
      return [...new Set([...set.pathRules.deny.Read.flatMap((pr) => grepExcludeGlobs(pr.compiled, dir)), ...credentials])];
    },
    warnings: set.warnings,
  };
}
