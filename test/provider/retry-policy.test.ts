// Issue 20.2 / 20.3: the retry policy as data, and the provider's refusal to retry what cannot heal.
import { describe, expect, test } from "bun:test";
import { anthropicConfigFromEnv, ProviderConfigError, pickCredentials } from "../../src/provider/anthropic/config.ts";
import { createAnthropicProvider } from "../../src/provider/anthropic/provider.ts";
import { classifyError, decideRetry, retryDelay } from "../../src/provider/anthropic/retry.ts";
import type { ProviderEvent } from "../../src/provider/types.ts";

const low = () => 0;
const policy = { maxRetries: 10, baseMs: 500, maxWaitMs: 60_000 };

describe("retry policy", () => {
  test("retry-after: 0 never undercuts the jittered exponential floor", () => {
    for (let a = 1; a <= 6; a++) expect(retryDelay(a, 500, 0, low)).toBe(Math.min(375 * 2 ** (a - 1), 24_000));
  });
  test("a longer retry-after wins over the floor", () => {
    expect(retryDelay(1, 500, 7000, low)).toBe(7000);
  });
  test("a retry-after beyond the cap ends the run, naming the header and the setting", () => {
    const d = decideRetry(classifyError({ status: 529, headers: new Headers({ "retry-after": "86400" }), message: "Overloaded" }), 1, policy, low);
    expect(d.retry).toBe(false);
    if (!d.retry) expect(d.message).toMatch(/retry-after header asks for a wait of 86400 s, longer than the 60 s yoke waits \(set YOKE_MAX_RETRY_WAIT_MS/);
  });
  test("a retry-after at the cap is waited; maxRetries bounds the count; 400 is never retried", () => {
    expect(decideRetry(classifyError({ status: 429, headers: new Headers({ "retry-after": "60" }) }), 1, policy, low)).toEqual({ retry: true, delayMs: 60_000 });
    expect(decideRetry(classifyError({ status: 529 }), 11, policy, low).retry).toBe(false);
    expect(decideRetry(classifyError({ status: 400 }), 1, policy, low).retry).toBe(false);
  });
});

describe("credentials and settings (Claude Code's precedence)", () => {
  const never = () => {
    throw new Error("the helper must not run");
  };
  test("token > key > helper; the helper runs only when neither variable is set", () => {
    expect(pickCredentials({ ANTHROPIC_API_KEY: "k", ANTHROPIC_AUTH_TOKEN: "t" }, never)).toEqual({ authToken: "t", source: "ANTHROPIC_AUTH_TOKEN" });
    expect(pickCredentials({ ANTHROPIC_API_KEY: "k" }, never)).toEqual({ apiKey: "k", source: "ANTHROPIC_API_KEY" });
    expect(pickCredentials({}, () => "h")).toEqual({ apiKey: "h", source: "apiKeyHelper" });
    expect(pickCredentials({}, () => undefined)).toEqual({ source: "none" });
  });
  test("a helper's key with a bad character is named as the helper's", () => {
    expect(() => anthropicConfigFromEnv({}, "t", { apiKey: "k\u00e9y", source: "apiKeyHelper" })).toThrow(/the key apiKeyHelper printed contains "é"/);
    expect(() => anthropicConfigFromEnv({ ANTHROPIC_BASE_URL: "localhost:8080" }, "t")).toThrow(ProviderConfigError);
  });
});

test("an error raised before the request leaves the machine is reported at once, never retried", async () => {
  // Past the config checks (built by hand): fetch itself refuses the URL.
  const p = createAnthropicProvider({ baseURL: "http://exa mple.com", apiKey: "k", maxRetries: 5, retryBaseMs: 1, timeoutMs: 30_000, idleTimeoutMs: 30_000, userAgent: "t" });
  const evs: ProviderEvent[] = [];
  for await (const e of p.stream({ model: "m", system: [], messages: [{ role: "user", content: "hi" }], tools: [], maxTokens: 10 }, new AbortController().signal)) evs.push(e);
  expect(evs.filter((e) => e.type === "retry")).toHaveLength(0);
  const last = evs.at(-1)!;
  expect(last.type).toBe("error");
  if (last.type === "error") expect(last.error.message).toStartWith("the request could not be sent:");
});
