export const PERMISSION_MODES = ["default", "acceptEdits", "plan", "bypassPermissions", "dontAsk", "auto"] as const;
export type PermissionMode = (typeof PERMISSION_MODES)[number];

/** Where a rule came from, for `yoke permissions explain`. */
export type RuleSource = { file: string; index: number; list: "allow" | "ask" | "deny" };
export type PermissionRule = { toolName: string; specifier?: string; text: string; source: RuleSource };

export type PermissionDecision = {
  behavior: "allow" | "deny" | "ask";
  /** Model-facing when denied; human-facing in explain. */
  reason: string;
  rule?: PermissionRule;
  /**
   * Auto mode: an `ask` that no rule, hook or safety check settled (seed 000, step 3), so the auto-mode
   * classifier may decide it. Never set on asks from ask rules, protected paths, credential stores,
   * critical removals, unparsable commands under Bash deny rules, or questions for the user.
   */
  classify?: boolean;
};

export type PermissionQuery = {
  toolName: string;
  input: Record<string, unknown>;
  readOnly: boolean;
  cwd: string;
  /** A PreToolUse hook's decision, already merged. A hook allow never overrides deny/ask rules. */
  hookDecision?: "allow" | "deny" | "ask";
};

/** One evaluator decides every tool call. Pure apart from path canonicalisation (fs reads). Never throws. */
export interface PermissionEvaluator {
  readonly mode: PermissionMode;
  decide(q: PermissionQuery): PermissionDecision;
  /** A bare deny of a tool name removes it from the model's list. */
  isToolHidden(toolName: string): boolean;
}
