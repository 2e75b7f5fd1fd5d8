import { readFileSync, statSync } from "node:fs";
import type { HookBus } from "../hook/types.ts";
import type { HookPayloadBuilder } from "../hook/typed.ts";
import type { SummaryProvider } from "../plugin/types.ts";
import { modelInfo } from "../provider/models.ts";
import { emptyUsage, type Message, type Provider, type TextBlock, type ToolSpec, type ToolUseBlock } from "../provider/types.ts";
import { clearOldToolOutputs, compactBoundaryFields, estimateTokens, localCompactSummary } from "../session/compact.ts";
import { formatModelSummary, joinMessages, keepFromIndex, MODEL_SUMMARY_PREAMBLE, SUMMARIZER_SYSTEM, summaryMessages, summaryRequest } from "../session/compact-prompt.ts";
import type { Transcript } from "../session/transcript.ts";
import type { LoopEvent, TurnResult } from "./events.ts";
import type { Conversation } from "./run-turn.ts";
import type { UsageTracker } from "./usage.ts";

type Env = Record<string, string | undefined>;

/** internals §6.1 constants. */
const AUTOCOMPACT_BUFFER = 13_000;
const MAX_OUTPUT_RESERVE = 20_000;
const MAX_FAILURES = 3;
/** Messages kept verbatim after a compaction (claw-code's 4, internals §6.5). */
const KEEP_RECENT = 4;
/** Tool outputs kept when clearing older ones (internals §6.2 keepRecent 5). */
const KEEP_TOOL_OUTPUTS = 5;
const RESTORE_FILES = 5;
const RESTORE_FILE_TOKENS = 5_000;
const SUMMARY_MAX_TOKENS = 20_000;

export type CompactTrigger = "manual" | "auto";

export type CompactionDeps = {
  provider: Provider;
  model: () => string;
  tools: () => ToolSpec[];
  hooks: HookBus;
  hookPayload: HookPayloadBuilder;
  transcript: Transcript;
  usage: UsageTracker;
  env: Env;
  settings: { autoCompactEnabled?: boolean; autoCompactWindow?: number };
  /** Plugin summary providers, asked in order before the model (session memory). */
  summaryProviders: () => readonly SummaryProvider[];
  /** Text of the "Compact Instructions" sections of the loaded instruction files ('' if none). */
  compactInstructions: () => string;
  /** Reloads the startup context and returns it as complete text blocks (instruction files, memory index). */
  startupContext: () => string[];
  /** Input + output tokens of the last model response (0 before the first one). */
  lastResponseTokens: () => number;
  transcriptPath: string;
};

export type CompactOutcome =
  | { ok: true; kind: "cleared" | "summary" | "local" | "provider"; preTokens: number; postTokens: number; removed: number; summary: string }
  | { ok: false; reason: string; preTokens: number };

export type Compactor = {
  /** The auto-compact threshold for a model, in tokens (internals §6.1); Infinity when auto-compaction is off. */
  threshold(model: string): number;
  /** The current context size estimate (last usage plus a bytes/4 estimate of newer messages). */
  contextTokens(convo: Conversation): number;
  /** For LoopDeps.beforeRequest: compacts when the context nears the window. Never throws. */
  beforeRequest(convo: Conversation, signal: AbortSignal): AsyncIterable<LoopEvent>;
  /** Compacts now. Yields status / boundary / notice events; never throws. */
  compact(convo: Conversation, o: { trigger: CompactTrigger; focus?: string; signal: AbortSignal }): AsyncGenerator<LoopEvent, CompactOutcome>;
  /** `/compact [focus]` as a headless prompt: compaction instead of a turn, with a short result. Never throws. */
  manual(convo: Conversation, prompt: string, signal: AbortSignal): AsyncGenerator<LoopEvent, TurnResult>;
  /** Records the files the model touched, for re-reading after compaction. */
  noteToolCalls(calls: ToolUseBlock[]): void;
};

/** True when a headless prompt asks for compaction (`/compact` or `/compact focus…`). */
export const isCompactCommand = (prompt: string): boolean => /^\/compact(\s|$)/.test(prompt.trim());

const envNumber = (env: Env, k: string): number | undefined => {
  const raw = env[k];
  if (raw === undefined || raw.trim() === "") return undefined;
  const n = Number(raw);
  return Number.isFinite(n) && n > 0 ? n : undefined;
};

/** internals §6.1: window (capped by autoCompactWindow / CLAUDE_CODE_AUTO_COMPACT_WINDOW, 100K–1M) − output reserve − 13K buffer, optionally lowered by a percentage. */
export function autoCompactThreshold(model: string, env: Env, settings: { autoCompactWindow?: number } = {}): number {
  const info = modelInfo(model);
  let window = info.contextWindow;
  const cap = envNumber(env, "CLAUDE_CODE_AUTO_COMPACT_WINDOW") ?? settings.autoCompactWindow;
  if (cap !== undefined) window = Math.min(1_000_000, Math.max(100_000, Math.floor(cap)));
  const effective = window - Math.min(info.maxOutputTokens, MAX_OUTPUT_RESERVE);
  const threshold = effective - AUTOCOMPACT_BUFFER;
  const pct = envNumber(env, "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE");
  // The percentage can only lower the threshold (seed 000).
  if (pct !== undefined && pct <= 100) return Math.min(Math.floor((effective * pct) / 100), threshold);
  return threshold;
}

const filePathOf = (c: ToolUseBlock): string | null => {
  const p = c.input.file_path ?? c.input.notebook_path;
  return typeof p === "string" ? p : null;
};

/** The compaction service behind LoopDeps.beforeRequest and `/compact` (issue 7, seed 000, internals §6). */
export function createCompactor(d: CompactionDeps): Compactor {
  let failures = 0;
  let gaveUp = false;
  // Message count when the last request went out; its response's usage covers those plus the reply.
  let requestedAt = -1;
  // Usage figure that predates the last compaction, so it no longer describes the conversation.
  let staleTokens = -1;
  let toolTokens: number | undefined;
  const touched: string[] = [];

  const autoOff = (): boolean =>
    !!d.env.DISABLE_COMPACT || !!d.env.DISABLE_AUTO_COMPACT || d.settings.autoCompactEnabled === false;

  /** internals §6.1 tokenCountWithEstimation: last response's usage plus bytes/4 for newer messages. */
  const contextTokens = (convo: Conversation): number => {
    const last = d.lastResponseTokens();
    if (last > 0 && requestedAt >= 0 && last !== staleTokens) return last + estimateTokens(convo.messages.slice(requestedAt + 1));
    // Before the first response: the messages plus the tool definitions, which every request carries.
    toolTokens ??= Math.ceil(JSON.stringify(d.tools()).length / 4);
    return estimateTokens(convo.messages) + toolTokens;
  };
  const resetMeasure = () => {
    requestedAt = -1;
    staleTokens = d.lastResponseTokens();
  };

  const notice = (message: string): LoopEvent => ({ type: "system", subtype: "notification", data: { message } });

  async function modelSummary(history: Message[], instruction: string, signal: AbortSignal): Promise<string | { error: string }> {
    const model = d.model();
    const maxTokens = Math.min(SUMMARY_MAX_TOKENS, modelInfo(model).maxOutputTokens);
    for await (const ev of d.provider.stream(
      { model, system: [{ type: "text", text: SUMMARIZER_SYSTEM }], messages: summaryMessages(history, instruction), tools: d.tools(), maxTokens },
      signal,
    )) {
      if (ev.type === "error") return { error: `summarizing call failed: ${ev.error.message}` };
      if (ev.type === "done") {
        d.usage.add(model, ev.message.usage, ev.durationMs);
        const text = ev.message.content.map((b) => (b.type === "text" ? b.text : "")).join("").trim();
        if (!text) return { error: "the model answered the summary request without text" };
        return formatModelSummary(text);
      }
    }
    return { error: "summarizing call ended without an answer" };
  }

  /** Up to 5 recently touched files as context blocks; one over 5,000 tokens is named only (seed 000 step 4). */
  function restoredFiles(kept: readonly Message[]): string[] {
    const inKept = new Set<string>();
    for (const m of kept) if (m.role === "assistant") for (const b of m.content) if (b.type === "tool_use" && b.name === "Read") {
      const p = filePathOf(b);
      if (p) inKept.add(p);
    }
    const out: string[] = [];
    for (const p of touched.slice().reverse()) {
      if (out.length >= RESTORE_FILES) break;
      if (inKept.has(p)) continue;
      let text: string;
      try {
        if (!statSync(p).isFile()) continue;
        text = readFileSync(p, "utf8");
      } catch {
        continue;
      }
      if (Math.ceil(Buffer.byteLength(text) / 4) > RESTORE_FILE_TOKENS)
        out.push(`<system-reminder>\n${p} was read earlier in this session; it is too large to restore here. Read it again if you need it.\n</system-reminder>`);
      else out.push(`<system-reminder>\nContent of ${p} as of this compaction (read earlier in the session):\n${text}\n</system-reminder>`);
    }
    return out;
  }

  async function* compact(convo: Conversation, o: { trigger: CompactTrigger; focus?: string; signal: AbortSignal }): AsyncGenerator<LoopEvent, CompactOutcome> {
    const preTokens = contextTokens(convo);
    const fail = (reason: string): CompactOutcome => ({ ok: false, reason, preTokens });
    if (d.env.DISABLE_COMPACT) return fail("compaction is disabled (DISABLE_COMPACT)");
    const pre = d.hooks.has("PreCompact")
      ? await d.hooks.emit("PreCompact", d.hookPayload("PreCompact", { trigger: o.trigger, custom_instructions: o.trigger === "manual" ? (o.focus ?? "") : "" }), {
          matchValue: o.trigger,
          signal: o.signal,
        })
      : null;
    if (pre?.blocked) return fail(`a PreCompact hook blocked compaction: ${pre.blockReason ?? "no reason given"}`);
    yield { type: "system", subtype: "status", data: { status: "compacting" } };
    try {
      // Step 1 (seed 000): clear older tool outputs; for auto compaction stop here when that is enough.
      const cleared = clearOldToolOutputs(convo.messages, { keepRecent: KEEP_TOOL_OUTPUTS });
      if (o.trigger === "auto" && cleared.cleared > 0) {
        const after = preTokens - (estimateTokens(convo.messages) - estimateTokens(cleared.messages));
        if (after < threshold(d.model()) * 0.8) {
          convo.messages = cleared.messages;
          resetMeasure();
          return { ok: true, kind: "cleared", preTokens, postTokens: estimateTokens(cleared.messages), removed: 0, summary: "" };
        }
      }
      const messages = cleared.messages;

      // Step 2: summarize: plugin providers first, then the model, then the local digest.
      let summaryText: string | null = null;
      let kind: "summary" | "local" | "provider" = "summary";
      let keep = KEEP_RECENT;
      for (const p of d.summaryProviders()) {
        try {
          const r = await p({ trigger: o.trigger, ...(o.focus ? { focus: o.focus } : {}), messages, signal: o.signal });
          if (r?.summary.trim()) {
            summaryText = r.summary.trim();
            kind = "provider";
            if (r.keepRecent !== undefined && r.keepRecent >= 0) keep = r.keepRecent;
            break;
          }
        } catch (err) {
          yield notice(`compaction: a summary provider failed (${err instanceof Error ? err.message : String(err)}); trying the model`);
        }
      }
      const keepFrom = keepFromIndex(messages, keep);
      const removed = messages.slice(0, keepFrom);
      const kept = messages.slice(keepFrom);
      if (removed.length === 0) return fail("there is too little conversation to compact");
      let body: string;
      if (summaryText === null) {
        const instruction = summaryRequest({ focus: o.focus, compactInstructions: d.compactInstructions(), hookInstructions: pre?.additionalContext });
        const r = o.signal.aborted ? { error: "interrupted" } : await modelSummary(removed, instruction, o.signal);
        if (typeof r === "string") body = `${MODEL_SUMMARY_PREAMBLE}\n\n${r}`;
        else {
          if (o.signal.aborted) return fail("compaction was interrupted");
          yield notice(`compaction: ${r.error}; using a local summary instead`);
          body = localCompactSummary(messages, { keepRecent: kept.length }).summary;
          kind = "local";
        }
      } else body = `${MODEL_SUMMARY_PREAMBLE}\n\n${summaryText}`;
      if (kind !== "local") {
        if (kept.length) body += "\n\nThe most recent messages follow unchanged.";
        body += `\n\nThe full earlier conversation stays in the transcript ${d.transcriptPath || "(not saved)"}.`;
        if (o.trigger === "auto") body += "\n\nContinue the task in progress from where it stopped, without recapping or asking the user anything first.";
      }

      // Steps 3 and 4: the startup context again, and the recently touched files.
      const extra = [...d.startupContext(), ...restoredFiles(kept)];
      // SessionStart hooks fire again with source "compact" (contracts §1.1); their context joins the summary.
      if (d.hooks.has("SessionStart")) {
        const ss = await d.hooks.emit("SessionStart", d.hookPayload("SessionStart", { source: "compact", model: d.model() }), { matchValue: "compact", signal: o.signal });
        for (const c of ss.additionalContext) extra.push(`<system-reminder>\nSessionStart hook additional context: ${c}\n</system-reminder>`);
      }
      const summaryMsg: Message = { role: "user", content: [{ type: "text", text: body }, ...extra.map((text): TextBlock => ({ type: "text", text }))] };
      const next = joinMessages(summaryMsg, kept);

      // Transcript: boundary (parentUuid null, so a resume starts here), summary, then the kept messages again.
      const logicalParent = d.transcript.lastUuid();
      d.transcript.setLastUuid(null);
      d.transcript.system("compact_boundary", compactBoundaryFields({ trigger: o.trigger, preTokens, logicalParentUuid: logicalParent }));
      d.transcript.user(summaryMsg as Message & { role: "user" }, { isCompactSummary: true });
      for (const m of kept) {
        if (m.role === "user") d.transcript.user(m);
        else if (m.role === "assistant")
          d.transcript.assistant({
            id: `msg_compact_kept_${Math.random().toString(36).slice(2, 10)}`,
            type: "message",
            role: "assistant",
            model: d.model(),
            content: m.content,
            stop_reason: null,
            stop_sequence: null,
            usage: emptyUsage(),
          });
      }
      convo.messages = next;
      resetMeasure();
      const postTokens = estimateTokens(next);
      if (d.hooks.has("PostCompact"))
        await d.hooks.emit("PostCompact", d.hookPayload("PostCompact", { trigger: o.trigger, compact_summary: body }), { matchValue: o.trigger, signal: o.signal });
      yield { type: "system", subtype: "compact_boundary", data: { compact_metadata: { trigger: o.trigger, pre_tokens: preTokens } } };
      return { ok: true, kind, preTokens, postTokens, removed: removed.length, summary: body };
    } finally {
      yield { type: "system", subtype: "status", data: { status: null } };
    }
  }

  const threshold = (model: string): number => (autoOff() ? Number.POSITIVE_INFINITY : autoCompactThreshold(model, d.env, d.settings));

  return {
    threshold,
    contextTokens,
    noteToolCalls(calls) {
      for (const c of calls) {
        const p = filePathOf(c);
        if (!p) continue;
        const i = touched.indexOf(p);
        if (i !== -1) touched.splice(i, 1);
        touched.push(p);
      }
      if (touched.length > 50) touched.splice(0, touched.length - 50);
    },
    beforeRequest(convo, signal) {
      return (async function* () {
        const limit = gaveUp ? Number.POSITIVE_INFINITY : threshold(d.model());
        if (Number.isFinite(limit) && contextTokens(convo) >= limit) {
          const out = yield* compact(convo, { trigger: "auto", signal });
          const ok = out.ok && contextTokens(convo) < limit;
          failures = ok ? 0 : failures + 1;
          if (!out.ok) yield notice(`auto-compaction failed: ${out.reason}`);
          else if (!ok) yield notice(`auto-compaction left ${contextTokens(convo)} tokens, still over the ${limit}-token threshold`);
          if (failures >= MAX_FAILURES) {
            gaveUp = true;
            yield notice(
              `auto-compaction failed ${MAX_FAILURES} times in a row; it is off for the rest of this session. Run /compact with a focus, or start a new session.`,
            );
          }
        }
        // The request follows now; its usage will cover the conversation up to here.
        requestedAt = convo.messages.length;
      })();
    },
    compact,
    async *manual(convo, prompt, signal) {
      const started = Date.now();
      const apiStart = d.usage.apiMs();
      const focus = prompt.trim().replace(/^\/compact/, "").trim();
      const out = yield* compact(convo, { trigger: "manual", ...(focus ? { focus } : {}), signal });
      const text = out.ok
        ? `Compacted the conversation (${out.kind === "local" ? "local summary" : out.kind === "provider" ? "plugin summary" : "model summary"}): ${out.removed} messages condensed, about ${out.preTokens} → ${out.postTokens} tokens.`
        : `Compaction did not run: ${out.reason}.`;
      return {
        subtype: out.ok ? "success" : "error_during_execution",
        isError: !out.ok,
        result: text,
        errors: out.ok ? [] : [text],
        numTurns: 0,
        durationMs: Date.now() - started,
        durationApiMs: d.usage.apiMs() - apiStart,
        stopReason: null,
        terminalReason: "completed",
        usage: emptyUsage(),
        modelUsage: d.usage.modelUsage(),
        totalCostUsd: d.usage.totalCost(),
        permissionDenials: [],
      };
    },
  };
}
