import { randomUUID } from "../util/random.ts";
import type { LoopEvent, TurnResult } from "../loop/events.ts";
import { EFFORT_LEVELS, type EffortLevel } from "../provider/models.ts";
import { emptyUsage } from "../provider/types.ts";

/** What Claude Code 2.1.332 answers to `/effort LEVEL` (observed in 2.1.332, `-p` and stream-json input). */
const DESCRIPTIONS: Record<EffortLevel, string> = {
  low: "Quick, straightforward implementation with minimal overhead",
  medium: "Balanced approach with standard implementation and testing",
  high: "Comprehensive implementation with extensive testing and documentation",
  xhigh: "Deeper reasoning than high, just below maximum (on supported models)",
  max: "Maximum capability with deepest reasoning. May use excessive tokens resulting in long response times or overthinking. Use sparingly for the hardest tasks.",
};
// Claude Code also offers `ultracode [on|off]` (its dynamic workflows); yoke has none, so it is not offered.
const OPTIONS = [...EFFORT_LEVELS, "auto"];

/** `/effort` with or without arguments (not `/effortless`). */
export const isEffortCommand = (input: string): boolean => /^\/effort(\s|$)/.test(input.trimStart());

export type EffortAnswer = { text: string } & ({ set: false } | { set: true; level: EffortLevel | undefined });

/**
 * The answer to `/effort ARGS` and the session effort it sets (`level: undefined` is `auto`: back to the flag,
 * settings or the model's default). CLAUDE_CODE_EFFORT_LEVEL still wins over it, and the answer says so. Pure.
 */
export function effortCommand(args: string, env: Record<string, string | undefined>): EffortAnswer {
  const raw = args.trim();
  const a = raw.toLowerCase();
  if (!a) return { text: `Usage: /effort <${OPTIONS.join("|")}>`, set: false };
  if (a === "auto") return { text: "Effort level set to auto (this session only)", set: true, level: undefined };
  if (!EFFORT_LEVELS.includes(a as EffortLevel)) return { text: `Unknown option: ${raw}. Options: ${OPTIONS.join(", ")}`, set: false };
  const level = a as EffortLevel;
  const fromEnv = env.CLAUDE_CODE_EFFORT_LEVEL;
  if (fromEnv) return { text: `CLAUDE_CODE_EFFORT_LEVEL=${fromEnv} overrides this session — clear it and ${level} takes over`, set: true, level };
  return { text: `Set effort level to ${level} (this session only): ${DESCRIPTIONS[level]}`, set: true, level };
}

/**
 * `/effort` as a headless local command: no model request; the answer is a synthetic assistant message and the
 * result (num_turns 0, `local_command: "effort"`), as Claude Code 2.1.332 prints it. Nothing goes to the model.
 */
export async function* effortTurn(
  input: string,
  o: { env: Record<string, string | undefined>; setEffort: (level: EffortLevel | undefined) => void },
): AsyncGenerator<LoopEvent, TurnResult> {
  const started = performance.now();
  const answer = effortCommand(input.trimStart().slice("/effort".length), o.env);
  if (answer.set) o.setEffort(answer.level);
  const message = {
    id: randomUUID(),
    type: "message" as const,
    role: "assistant" as const,
    model: "<synthetic>",
    content: [{ type: "text" as const, text: answer.text }],
    stop_reason: "end_turn" as const,
    stop_sequence: null,
    usage: emptyUsage(),
  };
  yield { type: "assistant", message, uuids: [randomUUID()] };
  return {
    subtype: "success",
    isError: false,
    result: answer.text,
    errors: [],
    numTurns: 0,
    durationMs: Math.round(performance.now() - started),
    durationApiMs: 0,
    stopReason: null,
    terminalReason: "completed",
    usage: emptyUsage(),
    modelUsage: {},
    totalCostUsd: 0,
    permissionDenials: [],
    localCommand: "effort",
  };
}
