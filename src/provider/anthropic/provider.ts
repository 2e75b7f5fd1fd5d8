import type { AssistantMessage, ModelRequest, Provider, ProviderEvent, TextBlock, Message, ContentBlock } from "../types.ts";
import { createAccumulator } from "./accumulate.ts";
import type { AnthropicConfig } from "./config.ts";
import { classifyError, decideRetry, type Classified } from "./retry.ts";
import { releaseJitAfter } from "../../util/jit-policy.ts";

export { anthropicConfigFromEnv, type AnthropicConfig } from "./config.ts";

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

/** The Anthropic Messages API (messages-client.ts), streaming, with our own retry loop so each retry is reported. */
export function createAnthropicProvider(cfg: AnthropicConfig): Provider {
  let client: any = null;
  let connectionErrorClass: (new (...a: any[]) => Error) | null = null;
  // Startup marks (YOKE_TIMING) for the first request only, so a long session adds none.
  let firstRequest = true;
  const mark = (name: string) => firstRequest && performance.mark(`yoke:${name}`);
  let clientReady: Promise<any> | null = null;
  // One client, however many callers ask at once (warm() and the first request may).
  const getClient = (): Promise<any> => (clientReady ??= (async () => {
    // Loaded on first use so `--version`, `--help` and config errors never pay for it.
    const { createMessagesClient, APIConnectionError } = await import("./messages-client.ts");
    connectionErrorClass = APIConnectionError;
    releaseJitAfter(3000);
    performance.mark("yoke:sdk-loaded");
    client = createMessagesClient({
      // One credential only (the SDK refuses two): an auth token wins, as in Claude Code.
      apiKey: cfg.authToken ? null : (cfg.apiKey ?? "no-key"),
      authToken: cfg.authToken ?? null,
      baseURL: cfg.baseURL,
      defaultHeaders: { "user-agent": cfg.userAgent },
    });
    return client;
  })());

  /**
   * An error thrown before the request left the machine (a header or URL fetch refuses, the SDK's own checks)
   * cannot heal: never retried. Not reaching the server is retried a few times (connectRetries), each said.
   */
  const classify = (err: unknown, phase: "local" | "request" | "stream", timeout: boolean): Classified & { connection: boolean } => {
    const c = classifyError(err);
    if (timeout || phase === "stream") return { ...c, connection: false };
    const isConnection = phase === "request" && connectionErrorClass !== null && err instanceof connectionErrorClass;
    if (isConnection) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      const why = cause?.code ?? cause?.message ?? c.message;
      return { ...c, connection: true, message: `cannot reach the API at ${cfg.baseURL ?? "https://api.anthropic.com"}: ${why}` };
    }
    if (c.status !== null) return { ...c, connection: false };
    return { ...c, connection: false, retryable: false, message: `the request could not be sent: ${c.message}` };
  };

  return {
    warm() {
      // The SDK's module loads while settings, plugins, git and MCP servers are read, not after them.
      getClient().catch(() => {});
      // TCP (and TLS) to the API host while composing: Bun's fetch pool hands the open socket to the SDK's first fetch.
      try {
        (fetch as typeof fetch & { preconnect?: (url: string) => void }).preconnect?.(cfg.baseURL ?? "https://api.anthropic.com");
      } catch {
        // A malformed base URL: the request itself will say so, where it is reported.
      }
    },
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
      let connectFailures = 0;
      for (let attempt = 0; ; attempt++) {
        if (signal.aborted) {
          yield { type: "error", error: { status: null, kind: "aborted", message: "Request was aborted." }, durationMs: Date.now() - started };
          return;
        }
        const acc = createAccumulator();
        let sawStop = false;
        // One controller per attempt: the caller's abort, a stream gone silent or API_TIMEOUT_MS end only this attempt's request.
        const attemptCtrl = new AbortController();
        const onAbort = () => attemptCtrl.abort();
        signal.addEventListener("abort", onAbort, { once: true });
        let idle: ReturnType<typeof setTimeout> | undefined;
        let stalled = false;
        let timedOut = false;
        const arm = () => {
          clearTimeout(idle);
          idle = setTimeout(() => {
            stalled = true;
            attemptCtrl.abort();
          }, cfg.idleTimeoutMs);
        };
        // API_TIMEOUT_MS bounds the whole request, the stream included (the SDK's own timeout stops at the headers).
        const whole = setTimeout(() => {
          timedOut = true;
          attemptCtrl.abort();
        }, cfg.timeoutMs);
        let failure: unknown = null;
        // Where it failed: before the request left (our settings), reaching the server, or in the answer.
        let phase: "local" | "request" | "stream" = "local";
        let message: AssistantMessage | null = null;
        let requestId: string | undefined;
        try {
          const c = await getClient();
          mark("request");
          arm();
          phase = "request";
          // withResponse() exposes the request-id header: usage tools de-duplicate transcript lines on it.
          const { data: stream, request_id } = await c.messages.create(body, { signal: attemptCtrl.signal }).withResponse();
          phase = "stream";
          requestId = request_id ?? undefined;
          mark("response");
          for await (const ev of stream) {
            // Pings prove the connection, not progress: a stream of only pings is as stuck as a silent one.
            if (ev.type !== "ping") arm();
            acc.push(ev);
            if (ev.type === "message_stop") sawStop = true;
            yield { type: "stream_event", event: ev };
          }
          message = acc.finish();
          if (!sawStop || !message) throw Object.assign(new Error("The response stream ended before the message was complete."), { status: null });
        } catch (err) {
          failure =
            timedOut && !signal.aborted
              ? Object.assign(new Error(`The request took longer than API_TIMEOUT_MS (${cfg.timeoutMs} ms) and was dropped.`), { status: null })
              : stalled && !signal.aborted
                ? Object.assign(new Error(`No data but pings from the API for ${cfg.idleTimeoutMs} ms; the stream was dropped.`), { status: null })
                : err;
        } finally {
          clearTimeout(idle);
          clearTimeout(whole);
          signal.removeEventListener("abort", onAbort);
        }
        if (failure === null && message) {
          mark("message-done");
          firstRequest = false;
          yield { type: "done", message, durationMs: Date.now() - started, ...(requestId ? { requestId } : {}) };
          return;
        }
        if (signal.aborted) {
          yield { type: "error", error: { status: null, kind: "aborted", message: "Request was aborted." }, durationMs: Date.now() - started };
          return;
        }
        const c = classify(failure, phase, timedOut || stalled);
        if (c.connection) connectFailures++;
        const d = decideRetry(c, attempt + 1, { maxRetries: cfg.maxRetries, baseMs: cfg.retryBaseMs, maxWaitMs: cfg.maxRetryWaitMs ?? 60_000 });
        const connectGaveUp = c.connection && connectFailures > (cfg.connectRetries ?? 3);
        if (!d.retry || connectGaveUp) {
          const rid = requestId ?? ((failure as { requestID?: string | null })?.requestID || undefined);
          const msg = connectGaveUp ? `${c.message} (gave up after ${connectFailures} attempts; YOKE_CONNECT_RETRIES sets how many)` : ((!d.retry && d.message) || c.message);
          yield { type: "error", error: { status: c.status, kind: c.kind, message: msg }, durationMs: Date.now() - started, ...(rid ? { requestId: rid } : {}) };
          return;
        }
        yield {
          type: "retry",
          info: { attempt: attempt + 1, max_retries: cfg.maxRetries, retry_delay_ms: d.delayMs, error_status: c.status, error: c.kind },
          cause: c.message,
        };
        await sleep(d.delayMs, signal);
      }
    },
  };
}
