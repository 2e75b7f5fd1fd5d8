import type { HookBus, HookOutcome } from "../hook/types.ts";
import type { HookPayloadBuilder } from "../hook/typed.ts";

/**
 * SessionStart hooks of a run, started while composing still waits for the MCP servers, the sandbox probe and git
 * (issue 21 point 2): their processes run beside that wait instead of after it. Only the hooks' execution moves:
 * their output is recorded, shown and put before the prompt where it always was (print-mode), so SessionStart
 * still precedes UserPromptSubmit (contracts §1.9) and its stream-json lines still precede system/init (§4.3).
 */
export type SessionStartRun = {
  /** The merged outcome; never rejects (HookBus.emit never throws). */
  outcome: Promise<HookOutcome>;
  /** Cancels the hooks still running (the run was interrupted). */
  abort(): void;
};

export type SessionStartInput = {
  hooks: HookBus;
  hookPayload: HookPayloadBuilder;
  source: "startup" | "resume" | "fork";
  model: string;
};

/** Starts the SessionStart hooks now; null when none is configured. Never throws. */
export function startSessionStart(o: SessionStartInput): SessionStartRun | null {
  if (!o.hooks.has("SessionStart")) return null;
  const ctrl = new AbortController();
  const outcome = o.hooks.emit("SessionStart", o.hookPayload("SessionStart", { source: o.source, model: o.model }), { matchValue: o.source, signal: ctrl.signal });
  return { outcome, abort: () => ctrl.abort() };
}

/**
 * The SessionStart outcome of a run: the one started while composing, or (none started: a terminal session, an
 * Agent SDK host whose own hooks join after composing) fired now. `signal` (the run's interrupt) cancels either.
 * Null when no SessionStart hook is configured.
 */
export async function sessionStartOutcome(early: SessionStartRun | null | undefined, o: SessionStartInput, signal: AbortSignal): Promise<HookOutcome | null> {
  const run = early === undefined ? startSessionStart(o) : early;
  if (!run) return null;
  const onAbort = () => run.abort();
  if (signal.aborted) onAbort();
  else signal.addEventListener("abort", onAbort, { once: true });
  try {
    return await run.outcome;
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}
