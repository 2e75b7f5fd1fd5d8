import { EFFORT_LEVELS, type EffortLevel, modelInfo } from "./models.ts";
import type { ThinkingParam } from "./types.ts";

/** Where thinking and effort settings come from (effort: env, session, flag, settings, highest first). */
export type ModelParamSources = {
  env: Record<string, string | undefined>;
  /** settings.json `alwaysThinkingEnabled` and `effortLevel`. */
  settings: { alwaysThinkingEnabled?: boolean; effortLevel?: string };
  /** `--effort LEVEL`. */
  effortFlag?: string;
  /** `--thinking adaptive|enabled|disabled`. */
  thinkingFlag?: string;
  /** `--max-thinking-tokens N` (wins over MAX_THINKING_TOKENS). */
  maxThinkingTokensFlag?: string;
  /** `/effort` or a control request during the session; wins over the flag and settings, not over the env. */
  sessionEffort?: () => string | undefined;
  /** `--thinking-display VALUE` (the Agent SDK passes it). */
  thinkingDisplayFlag?: string;
  /** stream-json output: adaptive thinking is asked with display `updates`, else `omitted` (observed in 2.1.332). */
  streamJson?: boolean;
};

export type ModelParams = { maxTokens: number; thinking?: ThinkingParam; effort?: EffortLevel };

/** Claude Code's default thinking budget for models that think with a budget (MAX_THINKING_TOKENS unset). */
const DEFAULT_BUDGET = 31_999;

const posInt = (v: string | undefined): number | undefined => {
  if (v === undefined || v.trim() === "") return undefined;
  const n = Number(v);
  return Number.isInteger(n) && n >= 0 ? n : undefined;
};

/** Throws an Error naming the source of a bad value (flag, env var, settings key); callers report it as a usage error. */
export function checkModelParamSources(s: ModelParamSources): void {
  const effort = (v: string | undefined, where: string) => {
    if (v !== undefined && !EFFORT_LEVELS.includes(v as EffortLevel))
      throw new Error(`${where} must be one of ${EFFORT_LEVELS.join(", ")} (got '${v}')`);
  };
  effort(s.effortFlag, "--effort");
  effort(s.env.CLAUDE_CODE_EFFORT_LEVEL || undefined, "CLAUDE_CODE_EFFORT_LEVEL");
  effort(s.settings.effortLevel, 'settings "effortLevel"');
  if (s.thinkingFlag !== undefined && !["adaptive", "enabled", "disabled"].includes(s.thinkingFlag))
    throw new Error(`--thinking must be adaptive, enabled or disabled (got '${s.thinkingFlag}')`);
  if (s.maxThinkingTokensFlag !== undefined && posInt(s.maxThinkingTokensFlag) === undefined)
    throw new Error(`--max-thinking-tokens must be a whole number of tokens (got '${s.maxThinkingTokensFlag}')`);
  const env = s.env.MAX_THINKING_TOKENS;
  if (env !== undefined && env !== "" && posInt(env) === undefined) throw new Error(`MAX_THINKING_TOKENS must be a whole number of tokens (got '${env}')`);
  const out = s.env.CLAUDE_CODE_MAX_OUTPUT_TOKENS;
  if (out !== undefined && out !== "" && !posInt(out)) throw new Error(`CLAUDE_CODE_MAX_OUTPUT_TOKENS must be a positive whole number (got '${out}')`);
}

/** The effort level in force for a model, or undefined when the model takes no effort parameter. */
export function effortFor(model: string, s: ModelParamSources): EffortLevel | undefined {
  const info = modelInfo(model);
  if (!info.effort) return undefined;
  // Observed in 2.1.332: CLAUDE_CODE_EFFORT_LEVEL beats /effort, which beats --effort, which beats effortLevel.
  const pick = [s.env.CLAUDE_CODE_EFFORT_LEVEL || undefined, s.sessionEffort?.(), s.effortFlag, s.settings.effortLevel].find(
    (v): v is EffortLevel => v !== undefined && EFFORT_LEVELS.includes(v as EffortLevel),
  );
  return pick ?? info.effort.default;
}

/**
 * max_tokens, thinking and effort for one request to `model`, as Claude Code sends them: max_tokens is the model's
 * output limit (CLAUDE_CODE_MAX_OUTPUT_TOKENS lowers it); adaptive models always think adaptively, with the display
 * the output asks for (observed in 2.1.332: budgets and `disabled` are not sent to them); older models think only
 * with a budget (MAX_THINKING_TOKENS / `--max-thinking-tokens`) or alwaysThinkingEnabled.
 * Pure; call checkModelParamSources first.
 */
export function modelParams(model: string, s: ModelParamSources): ModelParams {
  const info = modelInfo(model);
  const cap = posInt(s.env.CLAUDE_CODE_MAX_OUTPUT_TOKENS);
  const maxTokens = cap ? Math.min(cap, info.maxOutputTokens) : info.maxOutputTokens;
  const budget = posInt(s.maxThinkingTokensFlag) ?? posInt(s.env.MAX_THINKING_TOKENS);
  const off = s.thinkingFlag === "disabled" || budget === 0 || (s.settings.alwaysThinkingEnabled === false && budget === undefined && s.thinkingFlag === undefined);
  let thinking: ThinkingParam | undefined;
  const withBudget = (n: number): ThinkingParam => ({ type: "enabled", budget_tokens: Math.max(1024, Math.min(n, maxTokens - 1)) });
  if (info.adaptiveThinking) thinking = { type: "adaptive", display: s.thinkingDisplayFlag || (s.streamJson ? "updates" : "omitted") };
  else if (off) thinking = undefined;
  else if (budget !== undefined) thinking = withBudget(budget);
  else if (s.thinkingFlag === "enabled" || s.thinkingFlag === "adaptive" || s.settings.alwaysThinkingEnabled === true) thinking = withBudget(DEFAULT_BUDGET);
  const effort = effortFor(model, s);
  return { maxTokens, ...(thinking ? { thinking } : {}), ...(effort ? { effort } : {}) };
}
