/**
 * The auto-mode classifier: one side request to a small model per action (issue 19 point 2). Its usage is
 * added to the session's tracker, so the result's `modelUsage` and `total_cost_usd` include it.
 * Never throws: a provider error, a timeout or an unreadable answer comes back as `{ ok: false }`, which
 * the caller turns into a block (fail closed).
 */
import type { Message, Provider, Usage } from "../../provider/types.ts";
import { parseClassifierAnswer } from "./answer.ts";
import { ANSWER_TOOL_SPEC, classifierPrompt, classifierSystem, type PendingAction, shortTranscript } from "./prompt.ts";

export type ClassifierVerdict = { ok: true; decision: "allow" | "block"; reason: string } | { ok: false; problem: string };

export type ClassifyRequest = {
  action: PendingAction;
  history: readonly Message[];
  rules: { allow: string[]; ask: string[]; deny: string[] };
  signal?: AbortSignal;
};

export type Classifier = (req: ClassifyRequest) => Promise<ClassifierVerdict>;

export type ClassifierOptions = {
  provider: Provider;
  /** Resolved model id (autoMode.classifierModel, else the small fast model). */
  model: string;
  /** Read per call: settings may be reloaded mid-session. */
  instructions: () => string[];
  usage?: { add(model: string, u: Usage, durationMs: number): void };
  /** Per call; the answer must arrive within this. */
  timeoutMs: number;
  maxTokens?: number;
};

export function createClassifier(o: ClassifierOptions): Classifier {
  return async (req) => {
    const ctl = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      ctl.abort();
    }, o.timeoutMs);
    const onAbort = () => ctl.abort();
    req.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      const prompt = classifierPrompt({ action: req.action, transcript: shortTranscript(req.history, { pendingId: req.action.toolUseId }), rules: req.rules });
      const stream = o.provider.stream(
        {
          model: o.model,
          system: [{ type: "text", text: classifierSystem(o.instructions()) }],
          messages: [{ role: "user", content: prompt }],
          tools: [ANSWER_TOOL_SPEC],
          maxTokens: o.maxTokens ?? 512,
          temperature: 0,
        },
        ctl.signal,
      );
      for await (const ev of stream) {
        if (ev.type === "error") {
          if (timedOut) return { ok: false, problem: `no answer within ${o.timeoutMs} ms` };
          return { ok: false, problem: ev.error.message };
        }
        if (ev.type === "done") {
          o.usage?.add(ev.message.model, ev.message.usage, ev.durationMs);
          const a = parseClassifierAnswer(ev.message.content);
          return a.ok ? a : { ok: false, problem: a.problem };
        }
      }
      return { ok: false, problem: "the request ended without an answer" };
    } catch (e) {
      return { ok: false, problem: timedOut ? `no answer within ${o.timeoutMs} ms` : (e as Error).message };
    } finally {
      clearTimeout(timer);
      req.signal?.removeEventListener("abort", onAbort);
    }
  };
}
