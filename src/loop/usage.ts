import { costUsd, modelInfo } from "../provider/models.ts";
import { emptyUsage, type Usage } from "../provider/types.ts";
import type { ModelUsageEntry } from "./events.ts";

/** Usage and cost summed per model for the whole process (result.total_cost_usd is cumulative). */
export function createUsageTracker() {
  const byModel: Record<string, ModelUsageEntry> = {};
  let apiMs = 0;
  return {
    add(model: string, u: Usage, durationMs: number) {
      apiMs += durationMs;
      const info = modelInfo(model);
      const e = (byModel[model] ??= {
        inputTokens: 0,
        outputTokens: 0,
        cacheReadInputTokens: 0,
        cacheCreationInputTokens: 0,
        webSearchRequests: 0,
        costUSD: 0,
        contextWindow: info.contextWindow,
        maxOutputTokens: info.maxOutputTokens,
      });
      e.inputTokens += u.input_tokens;
      e.outputTokens += u.output_tokens;
      e.cacheReadInputTokens += u.cache_read_input_tokens;
      e.cacheCreationInputTokens += u.cache_creation_input_tokens;
      e.costUSD += costUsd(model, u);
    },
    modelUsage: () => structuredClone(byModel),
    totalCost: () => Object.values(byModel).reduce((s, e) => s + e.costUSD, 0),
    apiMs: () => apiMs,
  };
}
export type UsageTracker = ReturnType<typeof createUsageTracker>;

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    cache_creation_input_tokens: a.cache_creation_input_tokens + b.cache_creation_input_tokens,
    cache_read_input_tokens: a.cache_read_input_tokens + b.cache_read_input_tokens,
  };
}
export { emptyUsage };
