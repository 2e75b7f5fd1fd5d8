import type { PermissionRequest, Prompter, PromptAnswer } from "../permission/index.ts";
import type { PermissionMode } from "../permission/types.ts";
import type { Question, QuestionPrompter } from "../tool/builtin/ask-user-question.ts";
import type { Screen } from "./screen.ts";
import { style } from "./theme.ts";
import { diffLines, keyArgument, proposedDiff } from "./tool-lines.ts";

/**
 * The three questions the loop may put to the person: a permission `ask` (the Prompter, the same interface
 * `-p --permission-prompt-tool stdio` answers), AskUserQuestion, and approval of a plan. One dialog at a time:
 * parallel asks wait their turn. Esc answers "no" (permission), "dismissed" (question) or "keep planning" (plan).
 */
export function createDialogs(screen: Screen, o: { cwd: () => string; onRule: (rule: string) => void }) {
  let chain: Promise<unknown> = Promise.resolve();
  const serial = <T>(f: () => Promise<T>): Promise<T> => {
    const next = chain.then(f, f);
    chain = next.catch(() => {});
    return next;
  };

  const prompter: Prompter = {
    ask: (req) => serial(() => permissionDialog(screen, req, o.cwd(), o.onRule)),
  };

  const questions: QuestionPrompter = {
    askQuestions: (qs, signal) => serial(() => questionDialog(screen, qs, signal)),
  };

  return { prompter, questions, plan: (plan: string, modes: PermissionMode[]) => serial(() => planDialog(screen, plan, modes)) };
}

async function permissionDialog(screen: Screen, req: PermissionRequest, cwd: string, onRule: (rule: string) => void): Promise<PromptAnswer> {
  const arg = req.toolName === "Bash" && typeof req.input.command === "string" ? req.input.command : keyArgument(req.toolName, req.input, cwd);
  const lines = [style.bold(style.yellow(`Allow ${req.toolName}?`)), `  ${arg}`];
  if (typeof req.input.description === "string") lines.push(style.gray(`  ${req.input.description}`));
  const diff = proposedDiff(req.toolName, req.input, cwd);
  if (diff) lines.push(...diffLines(diff, 20).map((l) => `  ${l}`));
  if (req.decision.reason) lines.push(style.gray(`  Why: ${req.decision.reason}`));
  const choices = [
    { value: "once", label: "Yes" },
    ...(req.suggestedRule ? [{ value: "always", label: `Yes, and don't ask again for ${req.suggestedRule} (saved in .claude/settings.local.json)` }] : []),
    { value: "no", label: "No, and tell yoke what to do instead" },
  ];
  const got = await screen.choose(lines.join("\n"), choices);
  if (got === "once") return { kind: "allow_once" };
  if (got === "always") {
    onRule(req.suggestedRule!);
    return { kind: "allow_always" };
  }
  if (got === null) return { kind: "deny" };
  const feedback = await screen.askText(style.bold("What should yoke do instead? (Enter to send, Esc for nothing)"));
  return { kind: "deny", feedback: feedback ?? undefined };
}

async function questionDialog(screen: Screen, qs: Question[], signal: AbortSignal): Promise<Record<string, string> | undefined> {
  const answers: Record<string, string> = {};
  for (const q of qs) {
    if (signal.aborted) return undefined;
    const title = `${style.bold(style.cyan(`[${q.header}]`))} ${q.question}${q.multiSelect ? style.gray(" (one choice here; type several with Other)") : ""}`;
    const got = await screen.choose(title, [
      ...q.options.map((opt) => ({ value: opt.label, label: opt.label, description: opt.description })),
      { value: "\u0000other", label: "Other…", description: "type your own answer" },
    ]);
    if (got === null) return undefined;
    if (got === "\u0000other") {
      const typed = await screen.askText(style.bold(q.question));
      if (typed === null) return undefined;
      answers[q.question] = typed;
    } else answers[q.question] = got;
  }
  return answers;
}

/** The plan, then: proceed in which mode, or keep planning. Resolves to the mode, or null to keep planning. */
async function planDialog(screen: Screen, plan: string, modes: PermissionMode[]): Promise<PermissionMode | null> {
  screen.addMarkdown(plan);
  const label: Record<string, string> = {
    acceptEdits: "Yes, and accept edits without asking",
    default: "Yes, and ask before each edit",
    bypassPermissions: "Yes, and bypass permissions",
  };
  const got = await screen.choose(style.bold("Proceed with this plan?"), [
    ...(["acceptEdits", "default", "bypassPermissions"] as const).filter((m) => modes.includes(m)).map((m) => ({ value: m, label: label[m]! })),
    { value: "no", label: "No, keep planning" },
  ]);
  return got === null || got === "no" ? null : (got as PermissionMode);
}
