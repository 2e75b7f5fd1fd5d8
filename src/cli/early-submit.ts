import type { YokeHookBus } from "../hook/bus.ts";
import type { HookPayloadBuilder } from "../hook/typed.ts";
import type { HookOutcome } from "../hook/types.ts";
import { sessionStartLines, shownTexts, writeAttachments } from "../loop/hook-feedback.ts";
import { mayExpandMcpInput } from "../mcp/mentions.ts";
import type { Transcript } from "../session/transcript.ts";
import { writePromptQueued } from "../session/prompt-lines.ts";
import { writeErr } from "../util/output.ts";
import type { SessionStartRun } from "./session-start.ts";

/**
 * The UserPromptSubmit hooks of a `yoke -p PROMPT` run, started while composing still waits for the MCP servers
 * (issue 21): the hooks need neither the servers nor the tools, so their processes run beside that wait instead of
 * after it. What they see and what they do is unchanged:
 * - they start once SessionStart has finished and its lines are in the transcript (with the git branch: after git),
 *   its context is queued and its messages said, once the prompt's queue-operation lines are written and the
 *   InstructionsLoaded hooks ran: a hook reading transcript_path sees every line it saw before, and SessionStart and
 *   InstructionsLoaded precede it (contracts §1.9);
 * - the turn applies their outcome (block, `continue: false`, context) exactly where it always did (runTurn), and
 *   their prompt_id is the turn's (beginPrompt runs here, once).
 * Only a prompt no MCP server can rewrite (`/…`, `@server:uri`) and hooks that run outside yoke (command, http,
 * mcp_tool: no plugin's in-process handler, which may look at the session) qualify; a stream-json run (whose hook
 * lines must follow system/init) and a run whose prompt comes later never do.
 */
export type EarlySubmit = {
  /** SessionStart's outcome is recorded (transcript lines, context, messages) and the prompt queued. Never rejects. */
  sessionStarted: Promise<void>;
  /** Whether this prompt's queue-operation lines were written already (true once). */
  takeQueued(prompt: unknown): boolean;
  /**
   * The hooks' outcome for this prompt text, once; undefined for any other prompt (the turn runs the hooks, as
   * always). Resolves to null when they did not run (the run was refused first): the turn runs them then.
   */
  take(promptText: string): Promise<HookOutcome | null> | undefined;
  /** Cancels SessionStart and UserPromptSubmit hooks still running (the run was interrupted, or refused). */
  abort(): void;
};

export type EarlySubmitInput = {
  prompt: string;
  hooks: YokeHookBus;
  hookPayload: HookPayloadBuilder;
  transcript: Transcript;
  /** SessionStart hooks started while composing (null: none configured). */
  sessionStart: SessionStartRun | null;
  /** Where SessionStart's texts wait for the first prompt (MainState.sessionStartContext). */
  sessionStartContext: string[];
  /** What precedes the hooks (InstructionsLoaded, MainConversation.beforeSubmit). */
  beforeSubmit?: (signal: AbortSignal) => Promise<void>;
  /** A new prompt_id for the turn's hooks (HookContext.beginPrompt). */
  beginPrompt: () => void;
  /** Rejects when the run is refused after all (a sandbox the settings require cannot start): nothing runs then. */
  refusal: Promise<unknown> | undefined;
  /** What SessionStart's lines need first (git: the lines' branch). */
  lineFields: Promise<unknown>;
};

/** Whether the run's first prompt may start its UserPromptSubmit hooks while composing. */
export function earlySubmitApplies(prompt: string, hooks: YokeHookBus, o: { includeHookEvents: boolean }): boolean {
  if (!hooks.has("UserPromptSubmit") || o.includeHookEvents) return false;
  // Slash commands and skills expand after the hooks (slash-turn.ts); MCP may rewrite the prompt the hooks get.
  if (prompt.trimStart().startsWith("/") || mayExpandMcpInput(prompt)) return false;
  return !hooks.list().some((h) => h.event === "UserPromptSubmit" && h.type === "in-process");
}

/** Starts the chain; never throws, and its promises never reject. */
export function startEarlySubmit(o: EarlySubmitInput): EarlySubmit {
  const ctrl = new AbortController();
  const ready = (async () => {
    const out = o.sessionStart ? await o.sessionStart.outcome : null;
    const lines = out ? sessionStartLines(out) : [];
    // A refusal (a sandbox the settings require cannot start) ends the run before a line is written or a hook runs;
    // SessionStart's lines carry the git branch. The prompt's queue-operation lines carry none: without SessionStart
    // lines the hooks need not wait for git.
    await Promise.all([o.refusal, lines.length ? o.lineFields : undefined]);
    writeAttachments(o.transcript, lines);
    o.sessionStartContext.push(...shownTexts(lines));
    for (const m of out?.systemMessages ?? []) writeErr(`${m}\n`);
  })();
  let queued = false;
  // The prompt's queue-operation lines and its prompt_id, then the hooks; not when the run was refused first.
  const started = ready.then(
    async () => {
      writePromptQueued(o.transcript, o.prompt, () => new Date());
      queued = true;
      await o.beforeSubmit?.(ctrl.signal);
      o.beginPrompt();
      return true;
    },
    () => false,
  );
  let outcome: Promise<HookOutcome | null> | undefined = started.then((ok) =>
    ok ? o.hooks.emit("UserPromptSubmit", o.hookPayload("UserPromptSubmit", { prompt: o.prompt }), { signal: ctrl.signal }) : null,
  );
  return {
    sessionStarted: started.then(() => {}),
    takeQueued(prompt) {
      if (!queued || prompt !== o.prompt) return false;
      queued = false;
      return true;
    },
    take(promptText) {
      if (promptText !== o.prompt || !outcome) return undefined;
      const p = outcome;
      outcome = undefined;
      return p;
    },
    abort() {
      o.sessionStart?.abort();
      ctrl.abort();
    },
  };
}
