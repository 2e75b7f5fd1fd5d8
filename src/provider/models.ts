/**
 * The one table of model aliases, context windows and prices (USD per million tokens).
 * Prices are list prices at the time of writing; cost figures are estimates, as in Claude Code.
 */
export type ModelInfo = {
  id: string;
  contextWindow: number;
  maxOutputTokens: number;
  price: { input: number; output: number; cacheWrite: number; cacheRead: number };
};

const family = (input: number, output: number) => ({ input, output, cacheWrite: input * 1.25, cacheRead: input * 0.1 });

export const MODEL_ALIASES: Record<string, string> = {
  opus: "claude-opus-5-5",
  sonnet: "claude-sonnet-5-5",
  haiku: "claude-haiku-5-5",
  fable: "claude-fable-5-2",
  default: "claude-sonnet-5-5",
};

/** Small model for side queries (WebFetch extraction, memory selection). */
export const SMALL_MODEL_ALIAS = "haiku";

const FAMILIES: Array<[RegExp, Omit<ModelInfo, "id">]> = [
  [/opus/, { contextWindow: 200_000, maxOutputTokens: 32_000, price: family(5, 25) }],
  [/sonnet/, { contextWindow: 200_000, maxOutputTokens: 64_000, price: family(3, 15) }],
  [/haiku/, { contextWindow: 200_000, maxOutputTokens: 64_000, price: family(1, 5) }],
  [/fable|mythos/, { contextWindow: 200_000, maxOutputTokens: 64_000, price: family(3, 15) }],
];

export function resolveModel(nameOrAlias: string): string {
  const key = nameOrAlias.trim();
  return MODEL_ALIASES[key.toLowerCase()] ?? key;
}

export function modelInfo(id: string): ModelInfo {
  const hit = FAMILIES.find(([re]) => re.test(id));
  const base = hit?.[1] ?? { contextWindow: 200_000, maxOutputTokens: 32_000, price: family(3, 15) };
  return { id, ...base };
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
