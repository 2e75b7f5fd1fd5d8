import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { repinOwnWrite } from "../trust/workspace.ts";
import type { PermissionDecision } from "./types.ts";

export type PermissionRequest = {
  toolName: string;
  input: Record<string, unknown>;
  decision: PermissionDecision;
  /** The rule "allow always" would write, e.g. `Bash(npm test:*)` or `Edit(/src/**)`. */
  suggestedRule?: string;
};
export type PromptAnswer = { kind: "allow_once" } | { kind: "allow_always" } | { kind: "deny"; feedback?: string };

/** The interactive surface. `ask` may reject (e.g. the UI closed); callers treat a rejection as deny. */
export interface Prompter {
  ask(request: PermissionRequest): Promise<PromptAnswer>;
}

/** Suggests the allow rule for "allow always": a Bash prefix of program + subcommand, or the file's folder. Pure. */
export function suggestRule(toolName: string, input: Record<string, unknown>, cwd: string): string | undefined {
  if (toolName === "Bash" && typeof input.command === "string") {
    const words = input.command.trim().split(/\s+/);
    if (!words[0] || /[|&;<>$`()]/.test(input.command)) return undefined;
    const prefix = words.length > 1 && /^[a-z][\w-]*$/.test(words[1]!) ? `${words[0]} ${words[1]}` : words[0];
    return `Bash(${prefix}:*)`;
  }
  const p = toolName === "NotebookEdit" ? input.notebook_path : input.file_path;
  if (typeof p === "string") {
    const kind = ["Edit", "Write", "MultiEdit", "NotebookEdit"].includes(toolName) ? "Edit" : "Read";
    const rel = relative(cwd, dirname(resolve(cwd, p)));
    if (rel.startsWith("..")) return `${kind}(/${dirname(resolve(cwd, p))}/**)`;
    return `${kind}(/${rel ? `${rel}/` : ""}**)`;
  }
  if (toolName === "WebFetch" && typeof input.url === "string") {
    try {
      return `WebFetch(domain:${new URL(input.url).hostname})`;
    } catch {
      return undefined;
    }
  }
  return toolName;
}

/**
 * Adds an allow rule to `<projectDir>/.claude/settings.local.json`, creating it or keeping its other keys,
 * through a temp file and rename. Throws an Error naming the file when it is not valid JSON or cannot be written.
 */
export function persistAllowRule(projectDir: string, rule: string): string {
  const file = join(projectDir, ".claude", "settings.local.json");
  let data: Record<string, unknown> = {};
  if (existsSync(file)) {
    try {
      const parsed = JSON.parse(readFileSync(file, "utf8"));
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) data = parsed;
      else throw new Error("not a JSON object");
    } catch (e) {
      throw new Error(`${file}: cannot add permission rule: ${(e as Error).message}`);
    }
  }
  const perms = (data.permissions && typeof data.permissions === "object" ? data.permissions : {}) as Record<string, unknown>;
  const allow = Array.isArray(perms.allow) ? (perms.allow as unknown[]) : [];
  if (!allow.includes(rule)) allow.push(rule);
  data.permissions = { ...perms, allow };
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(data, null, 2)}\n`);
  renameSync(tmp, file);
  // The user's own "always allow" must not untrust a trusted folder (src/trust pins this file by hash).
  repinOwnWrite(projectDir, file);
  return file;
}

/** One prompt's outcome, before either adapter words it. */
type Answered =
  | { allow: true; suggestedRule?: string; savedTo?: string; saveError?: string }
  | { allow: false; feedback?: string; failure?: string };

/** Asks the prompter and, for "allow always", saves the suggested rule. Never throws: failures are in the result. */
async function askAndSave(
  prompter: Prompter,
  req: { toolName: string; input: Record<string, unknown>; decision: PermissionDecision; cwd: string; projectDir: string },
): Promise<Answered> {
  const suggestedRule = suggestRule(req.toolName, req.input, req.cwd);
  let answer: PromptAnswer;
  try {
    answer = await prompter.ask({ toolName: req.toolName, input: req.input, decision: req.decision, suggestedRule });
  } catch (e) {
    return { allow: false, failure: (e as Error).message };
  }
  if (answer.kind === "deny") return { allow: false, feedback: answer.feedback?.trim() || undefined };
  if (answer.kind === "allow_once" || !suggestedRule) return { allow: true };
  try {
    return { allow: true, suggestedRule, savedTo: persistAllowRule(req.projectDir, suggestedRule) };
  } catch (e) {
    return { allow: true, suggestedRule, saveError: (e as Error).message };
  }
}

/**
 * Asks the prompter about an `ask` decision and turns the answer into allow or deny. Never throws:
 * a prompter failure becomes a deny naming it; a failed save still allows this call and says so in the reason.
 */
export async function promptForDecision(
  prompter: Prompter,
  req: { toolName: string; input: Record<string, unknown>; decision: PermissionDecision; cwd: string; projectDir: string },
): Promise<PermissionDecision> {
  if (req.decision.behavior !== "ask") return req.decision;
  const a = await askAndSave(prompter, req);
  if (!a.allow) {
    if (a.failure) return { behavior: "deny", reason: `The permission prompt failed (${a.failure}); the action was not approved.` };
    return { behavior: "deny", reason: a.feedback ? `The user denied this action and said: ${a.feedback}` : "The user denied this action. Do not retry it; ask what they want instead." };
  }
  if (a.savedTo) return { behavior: "allow", reason: `approved by the user; rule ${a.suggestedRule} saved to ${a.savedTo}` };
  if (a.saveError) return { behavior: "allow", reason: `approved by the user once; saving the rule failed: ${a.saveError}` };
  return { behavior: "allow", reason: "approved by the user for this call" };
}

/** What the tool runner's `askPermission` returns (src/loop/tool-runner.ts AskPermission), structurally. */
export type AskAnswer = { allow: true; input?: Record<string, unknown> } | { allow: false; feedback?: string };

/**
 * Adapts a Prompter to the tool runner's `askPermission` hook, for the interactive mode: allow once, allow always
 * (the suggested rule is saved to `<projectDir>/.claude/settings.local.json`), deny with the user's feedback.
 * The returned function never rejects: a prompter failure is a deny whose feedback names the failure; a failed
 * save still allows this one call and reports the failure through `onSaveError`.
 */
export function askPermissionVia(
  prompter: Prompter,
  where: { cwd: () => string; projectDir: string; onSaveError?: (message: string) => void },
): (req: { toolName: string; input: Record<string, unknown>; reason: string }) => Promise<AskAnswer> {
  return async (req) => {
    const a = await askAndSave(prompter, { ...req, decision: { behavior: "ask", reason: req.reason }, cwd: where.cwd(), projectDir: where.projectDir });
    if (!a.allow) return { allow: false, feedback: a.failure ? `the permission prompt failed (${a.failure}), so the call was not approved` : a.feedback };
    if (a.saveError) where.onSaveError?.(a.saveError);
    return { allow: true };
  };
}
