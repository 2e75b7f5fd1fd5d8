export { createPermissionEvaluator, type Evaluator, type EvaluatorOptions } from "./evaluator.ts";
export { bypassDisabledBy, checkModeAllowed, denyInsteadOfPromptingFrom, resolveHeadless } from "./modes.ts";
export { explainDecision, type Explanation, formatExplanation } from "./explain.ts";
export { type AskAnswer, askPermissionVia, persistAllowRule, type PermissionRequest, type Prompter, type PromptAnswer, promptForDecision, suggestRule } from "./prompter.ts";
export { canonicalToolName, parseRule, splitToolList } from "./rule-parse.ts";
export { parseShell } from "./bash-parse.ts";
export * from "./types.ts";
