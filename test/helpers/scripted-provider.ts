/**
 * An in-process Provider for unit tests of the loop and modes: no HTTP, the same script vocabulary
 * as the fake server (fake-messages.ts), and the same assistant messages it would produce.
 *
 * Like every Provider it never throws: faults, aborts and a throwing script function come back as
 * one `error` event; every stream ends with exactly one `done` or `error`.
 */
import type {
  ModelRequest,
  Provider,
  ProviderError,
  ProviderEvent,
  RetryInfo,
} from "../../src/provider/types.ts";
import {
  buildAssistantMessage,
  estimateInputTokens,
  EXHAUSTED_TEXT,
  isFault,
  messageStreamEvents,
  type FakeFault,
  type FakeReply,
  type FakeStatus,
} from "./fake-messages.ts";

/** Retry events to emit before the outcome; unset fields get plausible defaults. */
type WithRetries = { retries?: Array<Partial<RetryInfo>> };

export type ScriptedOutcome =
  | (FakeReply & WithRetries)
  | (FakeFault & WithRetries)
  /** Full control over the error the provider reports. */
  | ({ error: ProviderError; delayMs?: number } & WithRetries);

export type ScriptedEntry = ScriptedOutcome | ((req: ModelRequest) => ScriptedOutcome | Promise<ScriptedOutcome>);

export type ScriptedProviderOptions = {
  /** Emit the raw Messages-API events as `stream_event`s (pings excluded, as the SDK drops them). Default true. */
  streamEvents?: boolean;
};

export type ScriptedProvider = Provider & {
  /** Snapshots (structuredClone) of every request, in call order. */
  requests: ModelRequest[];
  push(...entries: ScriptedEntry[]): void;
  /** Calls answered by the exhausted-script default or by a throwing script function. */
  readonly unexpected: number;
  /** Entries still queued. */
  readonly pending: number;
};

const STATUS_KIND: Record<FakeStatus, ProviderError["kind"]> = {
  400: "invalid_request",
  401: "authentication_failed",
  403: "authentication_failed",
  404: "model_not_found",
  413: "invalid_request",
  429: "rate_limit",
  500: "server_error",
  529: "overloaded",
};

/** The ProviderError a fault stands for; exported so tests can assert against the same mapping. */
export function faultToProviderError(f: FakeFault): ProviderError {
  if (typeof f.fault === "number") {
    return { status: f.fault, kind: STATUS_KIND[f.fault], message: f.message ?? `fake: HTTP ${f.fault}` };
  }
  if (f.fault === "error_event") return { status: null, kind: "overloaded", message: f.message ?? "Overloaded" };
  if (f.fault === "cut") {
    return { status: null, kind: "unknown", message: f.message ?? "fake: connection closed before message_stop" };
  }
  return abortedError();
}

const abortedError = (): ProviderError => ({ status: null, kind: "aborted", message: "Request was aborted." });

/** Resolves after ms, or early (with false) when the signal aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

const waitForAbort = (signal: AbortSignal): Promise<void> =>
  signal.aborted ? Promise.resolve() : new Promise((r) => signal.addEventListener("abort", () => r(), { once: true }));

export function scriptedProvider(entries: ScriptedEntry[] = [], opts: ScriptedProviderOptions = {}): ScriptedProvider {
  const queue: ScriptedEntry[] = [...entries];
  const requests: ModelRequest[] = [];
  const emitStreamEvents = opts.streamEvents ?? true;
  let unexpected = 0;

  const next = async (req: ModelRequest): Promise<ScriptedOutcome> => {
    const entry = queue.shift();
    if (entry === undefined) {
      unexpected++;
      return { content: [{ type: "text", text: EXHAUSTED_TEXT }], stop_reason: "end_turn" };
    }
    if (typeof entry !== "function") return entry;
    try {
      return await entry(req);
    } catch (err) {
      unexpected++;
      const message = `fake: script function threw: ${err instanceof Error ? err.message : String(err)}`;
      return { error: { status: null, kind: "unknown", message } };
    }
  };

  async function* stream(request: ModelRequest, signal: AbortSignal): AsyncGenerator<ProviderEvent> {
    const started = Date.now();
    const elapsed = () => Date.now() - started;
    requests.push(structuredClone(request));
    const outcome = await next(request);

    for (const [i, r] of (outcome.retries ?? []).entries()) {
      if (signal.aborted) break;
      yield {
        type: "retry",
        info: {
          attempt: r.attempt ?? i + 1,
          max_retries: r.max_retries ?? 10,
          retry_delay_ms: r.retry_delay_ms ?? 0,
          error_status: r.error_status === undefined ? 529 : r.error_status,
          error: r.error ?? "overloaded",
        },
      };
    }

    const delayMs = "delayMs" in outcome ? (outcome.delayMs ?? 0) : 0;
    if (signal.aborted || (delayMs > 0 && !(await sleep(delayMs, signal)))) {
      yield { type: "error", error: abortedError(), durationMs: elapsed() };
      return;
    }

    if ("error" in outcome) {
      yield { type: "error", error: outcome.error, durationMs: elapsed() };
      return;
    }

    const model = request.model;
    const inputTokens = estimateInputTokens(request);
    if (isFault(outcome)) {
      if (emitStreamEvents && (outcome.fault === "cut" || outcome.fault === "error_event" || outcome.fault === "hang")) {
        const partial = buildAssistantMessage({ content: [{ type: "text", text: "This answer will not finish." }] }, { model, inputTokens });
        const shown = messageStreamEvents(partial).filter((e) => e.event !== "ping");
        for (const e of shown.slice(0, outcome.fault === "hang" ? 1 : 3)) yield { type: "stream_event", event: e.data };
      }
      if (outcome.fault === "hang") await waitForAbort(signal);
      yield { type: "error", error: faultToProviderError(outcome), durationMs: elapsed() };
      return;
    }

    const message = buildAssistantMessage(outcome, { model, inputTokens });
    if (emitStreamEvents) {
      for (const e of messageStreamEvents(message)) {
        if (e.event === "ping") continue;
        if (signal.aborted) {
          yield { type: "error", error: abortedError(), durationMs: elapsed() };
          return;
        }
        yield { type: "stream_event", event: e.data };
      }
    }
    yield { type: "done", message, durationMs: elapsed() };
  }

  return {
    stream,
    requests,
    push: (...more) => void queue.push(...more),
    get unexpected() {
      return unexpected;
    },
    get pending() {
      return queue.length;
    },
  };
}
