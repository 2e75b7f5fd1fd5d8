// Issue 17 point 7: one model table, as Claude Code 2.1.332 uses it (observed in 2.1.332 against the fake API:
// default model claude-opus-5-5, max_tokens 128000, a 1,000,000-token window, prices per million tokens
// opus-5-5 $4/$20, sonnet-5-5 $2/$10, haiku-5-5 $0.10/$0.50, fable-5-2 $8/$40 with the same window and output limit;
// every one of them is sent adaptive thinking and an effort).
import { describe, expect, test } from "bun:test";
import { checkModelParamSources, modelParams, type ModelParamSources } from "../../src/provider/model-params.ts";
import { costUsd, DEFAULT_MODEL, modelInfo, resolveModel } from "../../src/provider/models.ts";

const usage = (input: number, output: number) => ({ input_tokens: input, output_tokens: output, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 });

describe("model table (issue 17.7)", () => {
  test("aliases and the default model", () => {
    expect(DEFAULT_MODEL).toBe("claude-opus-5-5");
    expect(resolveModel("default")).toBe("claude-opus-5-5");
    expect(resolveModel("opus")).toBe("claude-opus-5-5");
    expect(resolveModel(" Sonnet ")).toBe("claude-sonnet-5-5");
    expect(resolveModel("haiku")).toBe("claude-haiku-5-5");
    expect(resolveModel("claude-custom-1")).toBe("claude-custom-1");
  });
  test.each([
    ["claude-opus-5-5", 4, 20],
    ["claude-sonnet-5-5", 2, 10],
    ["claude-haiku-5-5", 0.1, 0.5],
    ["claude-opus-5-5-20260901", 4, 20],
    ["claude-fable-5-2", 8, 40],
  ])("%s: 1,000,000 window, 128000 output, $%d/$%d per million", (id, input, output) => {
    const m = modelInfo(id);
    expect(m.contextWindow).toBe(1_000_000);
    expect(m.maxOutputTokens).toBe(128_000);
    expect(costUsd(id, usage(1e6, 0))).toBeCloseTo(input);
    expect(costUsd(id, usage(0, 1e6))).toBeCloseTo(output);
  });
  test("older ids keep their own limits and prices (a 5.5 price never leaks to them)", () => {
    expect(modelInfo("claude-sonnet-4-5").contextWindow).toBe(200_000);
    expect(costUsd("claude-opus-4-1", usage(1e6, 0))).toBeCloseTo(5);
  });
});

const src = (over: Partial<ModelParamSources> = {}): ModelParamSources => ({ env: {}, settings: {}, ...over });

describe("thinking, effort and max_tokens per request (issue 17.7)", () => {
  test("5.5 models: max_tokens is the output limit, adaptive thinking, effort medium by default", () => {
    const adaptive = { type: "adaptive" as const, display: "omitted" };
    expect(modelParams("claude-opus-5-5", src())).toEqual({ maxTokens: 128_000, thinking: adaptive, effort: "medium" });
    // observed in 2.1.332: haiku and fable take an effort too
    expect(modelParams("claude-haiku-5-5", src())).toEqual({ maxTokens: 128_000, thinking: adaptive, effort: "medium" });
    expect(modelParams("claude-fable-5-2", src({ effortFlag: "low" }))).toEqual({ maxTokens: 128_000, thinking: adaptive, effort: "low" });
  });
  test("CLAUDE_CODE_EFFORT_LEVEL beats /effort beats --effort beats effortLevel (observed in 2.1.332)", () => {
    const all = src({ effortFlag: "low", sessionEffort: () => "high", env: { CLAUDE_CODE_EFFORT_LEVEL: "max" }, settings: { effortLevel: "xhigh" } });
    expect(modelParams("claude-opus-5-5", all).effort).toBe("max");
    expect(modelParams("claude-opus-5-5", { ...all, env: {} }).effort).toBe("high");
    expect(modelParams("claude-opus-5-5", { ...all, env: {}, sessionEffort: undefined }).effort).toBe("low");
    expect(modelParams("claude-opus-5-5", { ...all, env: {}, sessionEffort: undefined, effortFlag: undefined }).effort).toBe("xhigh");
    expect(modelParams("claude-opus-5-5", src({ settings: { effortLevel: "xhigh" } })).effort).toBe("xhigh");
  });
  test("adaptive models: display updates in stream-json, omitted otherwise, --thinking-display wins; budgets and off switches are not sent (observed in 2.1.332)", () => {
    expect(modelParams("claude-opus-5-5", src({ streamJson: true })).thinking).toEqual({ type: "adaptive", display: "updates" });
    expect(modelParams("claude-opus-5-5", src({ streamJson: true, thinkingDisplayFlag: "summarized" })).thinking).toEqual({ type: "adaptive", display: "summarized" });
    for (const over of [{ env: { MAX_THINKING_TOKENS: "8000" } }, { env: { MAX_THINKING_TOKENS: "0" } }, { settings: { alwaysThinkingEnabled: false } }, { thinkingFlag: "disabled" }, { maxThinkingTokensFlag: "4096" }])
      expect(modelParams("claude-opus-5-5", src(over)).thinking).toEqual({ type: "adaptive", display: "omitted" });
  });
  test("older models: MAX_THINKING_TOKENS gives a budget below max_tokens, the flag wins, 0 or alwaysThinkingEnabled:false is none", () => {
    expect(modelParams("claude-sonnet-4-5", src({ env: { MAX_THINKING_TOKENS: "8000" } })).thinking).toEqual({ type: "enabled", budget_tokens: 8000 });
    expect(modelParams("claude-sonnet-4-5", src({ env: { MAX_THINKING_TOKENS: "999999" } })).thinking).toEqual({ type: "enabled", budget_tokens: 63_999 });
    expect(modelParams("claude-sonnet-4-5", src({ env: { MAX_THINKING_TOKENS: "0" } })).thinking).toBeUndefined();
    expect(modelParams("claude-sonnet-4-5", src({ settings: { alwaysThinkingEnabled: false }, env: { MAX_THINKING_TOKENS: "0" } })).thinking).toBeUndefined();
    expect(modelParams("claude-sonnet-4-5", src({ maxThinkingTokensFlag: "4096", env: { MAX_THINKING_TOKENS: "8000" } })).thinking).toEqual({ type: "enabled", budget_tokens: 4096 });
  });
  test("older models think only when asked; CLAUDE_CODE_MAX_OUTPUT_TOKENS lowers max_tokens", () => {
    expect(modelParams("claude-sonnet-4-5", src()).thinking).toBeUndefined();
    expect(modelParams("claude-sonnet-4-5", src({ settings: { alwaysThinkingEnabled: true } })).thinking).toEqual({ type: "enabled", budget_tokens: 31_999 });
    expect(modelParams("claude-opus-5-5", src({ env: { CLAUDE_CODE_MAX_OUTPUT_TOKENS: "16000" } })).maxTokens).toBe(16_000);
  });
  test("bad values are named with where they came from", () => {
    expect(() => checkModelParamSources(src({ effortFlag: "extreme" }))).toThrow("--effort must be one of low, medium, high, xhigh, max (got 'extreme')");
    expect(() => checkModelParamSources(src({ settings: { effortLevel: "hi" } }))).toThrow('settings "effortLevel"');
    expect(() => checkModelParamSources(src({ env: { MAX_THINKING_TOKENS: "lots" } }))).toThrow("MAX_THINKING_TOKENS");
    expect(() => checkModelParamSources(src({ thinkingFlag: "on" }))).toThrow("--thinking must be adaptive, enabled or disabled");
    expect(() => checkModelParamSources(src({ env: { CLAUDE_CODE_MAX_OUTPUT_TOKENS: "0" } }))).toThrow("CLAUDE_CODE_MAX_OUTPUT_TOKENS");
  });
});
