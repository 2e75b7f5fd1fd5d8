/**
 * The one table of models: aliases, context windows, output limits, prices (USD per million tokens), and the
 * request parameters each model takes (thinking, effort). Figures for the 5.5 generation are what Claude Code
 * 2.1.332 uses (observed: default model claude-opus-5-5, max_tokens 128000, a 1,000,000-token window, and its
 * cost figures); cost figures are estimates, as in Claude Code.
 */
export type EffortLevel = "low" | "medium" | "high" | "xhigh" | "max";
export const EFFORT_LEVELS: readonly EffortLevel[] = ["low", "medium", "high", "xhigh", "max"];

export type ModelInfo = {
  id: string;
  contextWindow: number;
  maxOutputTokens: number;
  price: { input: number; output: number; cacheWrite: number; cacheRead: number };
  /** Takes `output_config.effort`; the level sent when none is configured. */
  effort?: { default: EffortLevel };
  /**
   * Always thinks adaptively (`thinking: {type: "adaptive", display}`): observed in 2.1.332, Claude Code sends no
   * budget and no `disabled` for these models, whatever MAX_THINKING_TOKENS, --thinking or alwaysThinkingEnabled say.
   */
  adaptiveThinking: boolean;
};

const family = (input: number, output: number) => ({ input, output, cacheWrite: input * 1.25, cacheRead: input * 0.1 });

export const DEFAULT_MODEL = "claude-opus-5-5";

export const MODEL_ALIASES: Record<string, string> = {
  opus: "claude-opus-5-5",
  sonnet: "claude-sonnet-5-5",
  haiku: "claude-haiku-5-5",
  fable: "claude-fable-5-2",
  default: DEFAULT_MODEL,
};

/** Small model for side queries (WebFetch extraction, memory selection). */
export const SMALL_MODEL_ALIAS = "haiku";

type Row = Omit<ModelInfo, "id">;
const GEN_5_5 = { contextWindow: 1_000_000, maxOutputTokens: 128_000, adaptiveThinking: true } as const;

// First match wins: the current generation by id prefix, then older ids by family.
const TABLE: Array<[RegExp, Row]> = [
  [/^claude-opus-5-5/, { ...GEN_5_5, price: family(4, 20), effort: { default: "medium" } }],
  [/^claude-sonnet-5-5/, { ...GEN_5_5, price: family(2, 10), effort: { default: "medium" } }],
  [/^claude-haiku-5-5/, { ...GEN_5_5, price: family(0.1, 0.5), effort: { default: "medium" } }],
  [/^claude-fable-5-2/, { ...GEN_5_5, price: family(8, 40), effort: { default: "medium" } }],
  [/opus/, { contextWindow: 200_000, maxOutputTokens: 32_000, price: family(5, 25), adaptiveThinking: false }],
  [/sonnet/, { contextWindow: 200_000, maxOutputTokens: 64_000, price: family(3, 15), adaptiveThinking: false }],
  [/haiku/, { contextWindow: 200_000, maxOutputTokens: 64_000, price: family(1, 5), adaptiveThinking: false }],
  [/fable|mythos/, { contextWindow: 200_000, maxOutputTokens: 64_000, price: family(3, 15), adaptiveThinking: false }],
];
const UNKNOWN: Row = { contextWindow: 200_000, maxOutputTokens: 32_000, price: family(3, 15), adaptiveThinking: false };

export function resolveModel(nameOrAlias: string): string {
  const key = nameOrAlias.trim();
  return MODEL_ALIASES[key.toLowerCase()] ?? key;
}

export function modelInfo(id: string): ModelInfo {
  const hit = TABLE.find(([re]) => re.test(id));
  return { id, ...(hit?.[1] ?? UNKNOWN) };
}

export function costUsd(
  id: string,
  u: { input_tokens: number; output_tokens: number; cache_creation_input_tokens: number; cache_read_input_tokens: number },
): number {
  const p = modelInfo(id).price;
  return (
    (u.input_tokens * p.input +
      u.output_tokens * p.output +
      u.cache_creation_input_tokens * p.cacheWrite +
      u.cache_read_input_tokens * p.cacheRead) /
    1_000_000
  );
}
