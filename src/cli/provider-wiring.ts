import type { LoadedSettings } from "../config/load.ts";
import { createUsageTracker, type UsageTracker } from "../loop/usage.ts";
import type { ProviderError } from "../provider/types.ts";
import { anthropicConfigFromEnv, createAnthropicProvider } from "../provider/anthropic/provider.ts";
import { type Credentials, pickCredentials, ProviderConfigError } from "../provider/anthropic/config.ts";
import { resolveModel, SMALL_MODEL_ALIAS } from "../provider/models.ts";
import type { Provider, ToolSpec } from "../provider/types.ts";
import type { SideQuery } from "../tool/types.ts";
import { VERSION } from "../version.ts";
import { UsageError } from "./args.ts";
import { FALLBACK_ERRORS } from "./run-options.ts";
import { apiKeyFromHelper, NO_CREDENTIALS } from "./run-prelude.ts";

export type ProviderWiring = {
  provider: Provider;
  /** For system/init: where the key came from. */
  apiKeySource: string;
  /** The process's usage: every request, the main conversation's, forks', subagents' and side queries'. */
  usage: UsageTracker;
  /** One small-model request outside the conversation (memory selection, summaries). */
  sideQuery: SideQuery;
};

/** Credentials → the Anthropic provider, the usage tracker and side queries. Throws UsageError without credentials (when required) or when apiKeyHelper fails. */
export function wireProvider(o: { env: Record<string, string>; settings: LoadedSettings; requireCredentials: boolean; credentials?: Credentials }): ProviderWiring {
  const { env } = o;
  // contracts: Claude Code's precedence, ANTHROPIC_AUTH_TOKEN > ANTHROPIC_API_KEY > apiKeyHelper; one credential is sent.
  // A run's prelude picked them already (run-prelude.ts: before its MCP servers are spawned), apiKeyHelper run once.
  const creds = o.credentials ?? pickCredentials(env, () => apiKeyFromHelper(o.settings.merged.apiKeyHelper, env));
  // system/init's apiKeySource has no value for a bearer token (contracts §4.4): "none", as Claude Code reports it.
  const apiKeySource = creds.source === "ANTHROPIC_AUTH_TOKEN" ? "none" : creds.source;
  if (o.requireCredentials && creds.source === "none" && !env.ANTHROPIC_BASE_URL)
    throw new UsageError(NO_CREDENTIALS);
  let provider: Provider;
  try {
    provider = createAnthropicProvider(anthropicConfigFromEnv(env, VERSION, creds));
  } catch (err) {
    if (!(err instanceof ProviderConfigError)) throw err;
    if (o.requireCredentials) throw new UsageError(err.message);
    // Commands that may never call the model (context, hooks run) still work; a model call says why it cannot.
    const error = { status: null, kind: "invalid_request" as const, message: err.message };
    provider = { stream: async function* () { yield { type: "error", error, durationMs: 0 }; } };
  }
  const usage = createUsageTracker();
  const sideQuery: SideQuery = async ({ system, prompt, maxTokens, signal, tools, onMessage }) => {
    const small = resolveModel(env.ANTHROPIC_SMALL_FAST_MODEL ?? SMALL_MODEL_ALIAS);
    for await (const ev of provider.stream(
      { model: small, system: [{ type: "text", text: system }], messages: [{ role: "user", content: prompt }], tools: (tools ?? []) as unknown as ToolSpec[], maxTokens: maxTokens ?? 1024 },
      signal ?? new AbortController().signal,
    )) {
      if (ev.type === "error") throw new Error(ev.error.message);
      if (ev.type === "done") {
        usage.add(ev.message.model, ev.message.usage, ev.durationMs);
        onMessage?.(ev.message.content);
        return ev.message.content.map((b) => (b.type === "text" ? b.text : "")).join("");
      }
    }
    throw new Error("side query ended without an answer");
  };
  return { provider, apiKeySource, usage, sideQuery };
}

/** The main conversation's model: the one it started with, then `--fallback-model` entries in order. */
export type ModelSwitch = {
  current(): string;
  /** The Agent SDK's set_model: this model from the next request on. */
  set(model: string): void;
  /** The next fallback for this error (and switches to it), or undefined. */
  fallback(error: ProviderError): string | undefined;
};

export function modelSwitch(start: string, fallbacks: string[]): ModelSwitch {
  let current = start;
  const left = [...fallbacks];
  return {
    current: () => current,
    set: (model) => {
      current = model;
    },
    fallback(error) {
      if (!FALLBACK_ERRORS.has(error.kind)) return undefined;
      const next = left.shift();
      if (next) current = next;
      return next;
    },
  };
}
