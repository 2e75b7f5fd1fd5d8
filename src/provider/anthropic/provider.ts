import type { AssistantMessage, ModelRequest, Provider, ProviderEvent, TextBlock, Message, ContentBlock } from "../types.ts";
import { createAccumulator } from "./accumulate.ts";
import { classifyError, retryDelay } from "./retry.ts";

export type AnthropicConfig = {
  apiKey?: string;
  authToken?: string;
  baseURL?: string;
  maxRetries: number;
  retryBaseMs: number;
  /** Per-request timeout (API_TIMEOUT_MS). */
  timeoutMs: number;
  /** A stream that sends nothing (not even a ping) for this long is dropped and retried (YOKE_STREAM_IDLE_TIMEOUT_MS). */
  idleTimeoutMs: number;
  userAgent: string;
};

export function anthropicConfigFromEnv(env: Record<string, string | undefined>, version: string): AnthropicConfig {
  const num = (k: string, d: number) => {
    const v = Number(env[k]);
    return Number.isFinite(v) && env[k] !== undefined && env[k] !== "" ? v : d;
  };
  return {
    apiKey: env.ANTHROPIC_API_KEY || undefined,
    authToken: env.ANTHROPIC_AUTH_TOKEN || undefined,
    baseURL: env.ANTHROPIC_BASE_URL || undefined,
    maxRetries: Math.min(10, Math.max(0, num("CLAUDE_CODE_MAX_RETRIES", 10))),
    retryBaseMs: num("YOKE_RETRY_BASE_MS", 500),
    timeoutMs: num("API_TIMEOUT_MS", 600_000),
    idleTimeoutMs: num("YOKE_STREAM_IDLE_TIMEOUT_MS", 90_000),
    userAgent: `yoke/${version}`,
  };
}

/** Marks the system prompt and the last message as cache breakpoints (prompt caching). */
export function withCacheControl(system: TextBlock[], messages: Message[]): { system: TextBlock[]; messages: Message[] } {
  const sys = system.map((b, i) => (i === system.length - 1 ? { ...b, cache_control: { type: "ephemeral" as const } } : b));
  if (messages.length === 0) return { system: sys, messages };
  const last = messages[messages.length - 1]!;
  const content: ContentBlock[] = typeof last.content === "string" ? [{ type: "text", text: last.content }] : [...last.content];
  const i = content.length - 1;
  const b = content[i];
  if (b && (b.type === "text" || b.type === "tool_result")) content[i] = { ...b, cache_control: { type: "ephemeral" } };
  return { system: sys, messages: [...messages.slice(0, -1), { ...last, content } as Message] };
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(t), resolve()), { once: true });
  });

/** The Anthropic Messages API over @anthropic-ai/sdk, streaming, with our own retry loop so each retry is reported. */
export function createAnthropicProvider(cfg: AnthropicConfig): Provider {
  let client: any = null;
  // Startup marks (YOKE_TIMING) for the first request only, so a long session adds none.
  let firstRequest = true;
  const mark = (name: string) => firstRequest && performance.mark(`yoke:${name}`);
  const getClient = async () => {
    if (client) return client;
    // Loaded on first use so `--version`, `--help` and config errors never pay for the SDK.
    const { default: Anthropic } = await import("@anthropic-ai/sdk");
    performance.mark("yoke:sdk-loaded");
    client = new Anthropic({
      apiKey: cfg.apiKey ?? (cfg.authToken ? null : "no-key"),
      authToken: cfg.authToken ?? null,
      baseURL: cfg.baseURL,
      maxRetries: 0,
      timeout: cfg.timeoutMs,
      defaultHeaders: { "user-agent": cfg.userAgent },
    });
    return client;
  };

  return {
    async *stream(req: ModelRequest, signal: AbortSignal): AsyncIterable<ProviderEvent> {
      const started = Date.now();
      const { system, messages } = withCacheControl(req.system, req.messages);
      const body: Record<string, unknown> = {
        model: req.model,
        max_tokens: req.maxTokens,
        system,
        messages,
        stream: true,
      };
      if (req.tools.length) body.tools = req.tools;
      if (req.temperature !== undefined) body.temperature = req.temperature;
      if (req.thinking) body.thinking = req.thinking;
      if (req.effort) body.output_config = { effort: req.effort };
      for (let attempt = 0; ; attempt++) {
        if (signal.aborted) {
          yield { type: "error", error: { status: null, kind: "aborted", message: "Request was aborted." }, durationMs: Date.now() - started };
          return;
        }
        const acc = createAccumulator();
        let sawStop = false;
        // One controller per attempt: the caller's abort, or a stream gone silent, ends only this attempt's request.
        const attemptCtrl = new AbortController();
        const onAbort = () => attemptCtrl.abort();
        signal.addEventListener("abort", onAbort, { once: true });
        let idle: ReturnType<typeof setTimeout> | undefined;
        let stalled = false;
        const arm = () => {
          clearTimeout(idle);
          idle = setTimeout(() => {
            stalled = true;
            attemptCtrl.abort();
          }, cfg.idleTimeoutMs);
        };
        let failure: unknown = null;
        let message: AssistantMessage | null = null;
        let requestId: string | undefined;
        try {
          const c = await getClient();
          mark("request");
          arm();
          // withResponse() exposes the request-id header: usage tools de-duplicate transcript lines on it.
          const { data: stream, request_id } = await c.messages.create(body, { signal: attemptCtrl.signal }).withResponse();
          requestId = request_id ?? undefined;
          mark("response");
          for await (const ev of stream) {
            arm();
            acc.push(ev);
            if (ev.type === "message_stop") sawStop = true;
            yield { type: "stream_event", event: ev };
          }
          message = acc.finish();
          if (!sawStop || !message) throw Object.assign(new Error("The response stream ended before the message was complete."), { status: null });
        } catch (err) {
          failure = stalled && !signal.aborted ? Object.assign(new Error(`No data from the API for ${cfg.idleTimeoutMs} ms; the stream was dropped.`), { status: null }) : err;
        } finally {
          clearTimeout(idle);
          signal.removeEventListener("abort", onAbort);
        }
        if (failure === null && message) {
          mark("message-done");
          firstRequest = false;
          yield { type: "done", message, durationMs: Date.now() - started, ...(requestId ? { requestId } : {}) };
          return;
        }
        {
          const err = failure;
          if (signal.aborted) {
            yield { type: "error", error: { status: null, kind: "aborted", message: "Request was aborted." }, durationMs: Date.now() - started };
            return;
          }
          const c = classifyError(err);
          if (!c.retryable || attempt >= cfg.maxRetries) {
            const rid = requestId ?? ((err as { requestID?: string | null })?.requestID || undefined);
            yield { type: "error", error: { status: c.status, kind: c.kind, message: c.message }, durationMs: Date.now() - started, ...(rid ? { requestId: rid } : {}) };
            return;
          }
          const delay = retryDelay(attempt + 1, cfg.retryBaseMs, c.retryAfterMs);
          yield {
            type: "retry",
            info: { attempt: attempt + 1, max_retries: cfg.maxRetries, retry_delay_ms: delay, error_status: c.status, error: c.kind },
          };
          await sleep(delay, signal);
        }
      }
    },
  };
}
