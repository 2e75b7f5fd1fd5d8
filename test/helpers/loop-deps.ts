/**
 * Parent LoopDeps for unit tests of the loop, subagents and the Agent tool: a scripted provider,
 * an in-memory transcript, a recording HookBus. Nothing here throws.
 */
import type { HookBus, HookEventName, HookOutcome } from "../../src/hook/types.ts";
import { eventPayload } from "../../src/hook/events/index.ts";
import { emptyOutcome } from "../../src/hook/types.ts";
import type { LoopEvent, TurnResult } from "../../src/loop/events.ts";
import type { LoopDeps } from "../../src/loop/run-turn.ts";
import { createUsageTracker } from "../../src/loop/usage.ts";
import { modeOnlyEvaluator } from "./mode-only-permissions.ts";
import { createTranscript } from "../../src/session/transcript.ts";
import type { MetaEntry, SessionEntry } from "../../src/session/types.ts";
import { createFileState } from "../../src/tool/file-state.ts";
import { createToolRegistry } from "../../src/tool/registry.ts";
import type { Tool } from "../../src/tool/types.ts";
import { scriptedProvider, type ScriptedEntry } from "./scripted-provider.ts";

export type Fired = { event: HookEventName; payload: any; matchValue?: string };

/** A HookBus answering from a table (events absent from the table have no handlers); records every firing. */
export function tableBus(answers: Partial<Record<HookEventName, (p: any) => Partial<HookOutcome>>>) {
  const fired: Fired[] = [];
  const bus: HookBus = {
    has: (e) => e in answers,
    async emit(event, payload, opts) {
      fired.push({ event, payload, matchValue: opts?.matchValue });
      return { ...emptyOutcome(), ...(answers[event]?.(payload) ?? {}) };
    },
  };
  return { bus, fired };
}

export function parentDeps(opts: { script?: ScriptedEntry[]; tools?: Tool[]; cwd?: string; over?: Partial<LoopDeps> } = {}) {
  const provider = scriptedProvider(opts.script ?? []);
  const cwd = opts.cwd ?? "/tmp";
  const lines: Array<SessionEntry | MetaEntry> = [];
  let n = 0;
  const transcript = createTranscript(
    { sessionId: "s1", path: "/parent.jsonl", append: (e) => void lines.push(e) },
    { cwd: () => cwd, version: "t", entrypoint: "test", uuid: () => `u${++n}`, now: () => new Date(0) },
  );
  const session = { cwd, todos: [], envFiles: [] };
  const deps: LoopDeps = {
    provider,
    tools: createToolRegistry(opts.tools ?? []),
    hooks: tableBus({}).bus,
    permissions: modeOnlyEvaluator("bypassPermissions"),
    hookPayload: (event, fields) => eventPayload(event, { session_id: "s1", transcript_path: "/parent.jsonl", cwd, permission_mode: "bypassPermissions" }, fields),
    context: (toolUseId, signal) => ({
      cwd,
      projectDir: cwd,
      workingDirectories: [cwd],
      sessionId: "s1",
      signal,
      env: {},
      fileState: createFileState(),
      session,
      toolUseId,
    }),
    clock: () => Date.now(),
    model: () => "claude-sonnet-5-5",
    maxTokens: 1000,
    system: () => [{ type: "text", text: "PARENT SYSTEM" }],
    transcript,
    usage: createUsageTracker(),
    ...opts.over,
  };
  return { deps, provider, lines };
}

export async function drain(gen: AsyncGenerator<LoopEvent, TurnResult>) {
  const events: LoopEvent[] = [];
  for (;;) {
    const s = await gen.next();
    if (s.done) return { events, result: s.value };
    events.push(s.value);
  }
}

/** The system prompt text of a model request, joined. */
export const systemText = (req: { system: Array<{ text: string }> }) => req.system.map((b) => b.text).join("\n");
