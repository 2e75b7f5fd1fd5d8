import { z } from "zod";
import type { HookEventName, HookOutcome, HookRecord, PermissionDecisionValue } from "../types.ts";
import { emptyOutcome } from "../types.ts";

/**
 * A value made on first use and kept: the events' zod schemas are made when a hook's output is first checked or an
 * input schema asked for (payload key order comes from event-keys.json), so a start builds only those it uses (issue 21).
 */
export function once<T>(make: () => T): () => T {
  let made = false;
  let value: T;
  return () => {
    if (!made) {
      value = make();
      made = true;
    }
    return value;
  };
}

/** contracts §1.4: `permission_mode` values as hooks see them (`manual` arrives as `default`). */
const permissionModeSchema = () => z.enum(["default", "plan", "acceptEdits", "auto", "dontAsk", "bypassPermissions"]);

/**
 * Common input fields in Claude Code's order (contracts §1.4). `hook_event_name` follows them and
 * then the event's own fields; `buildPayload` keeps that order.
 */
const commonInputShape = once(() => ({
  session_id: z.string(),
  transcript_path: z.string(),
  cwd: z.string(),
  prompt_id: z.string().optional(),
  permission_mode: permissionModeSchema().optional(),
  agent_id: z.string().optional(),
  agent_type: z.string().optional(),
  effort: z.looseObject({ level: z.string() }).optional(),
}));
type CommonInputShape = ReturnType<typeof commonInputShape>;
/** commonInputShape's keys, in its order, without making it (a test keeps them equal). */
export const COMMON_KEYS: readonly string[] = ["session_id", "transcript_path", "cwd", "prompt_id", "permission_mode", "agent_id", "agent_type", "effort"];

export type CommonFields = {
  session_id: string;
  transcript_path: string;
  cwd: string;
  prompt_id?: string;
  permission_mode?: z.infer<ReturnType<typeof permissionModeSchema>>;
  agent_id?: string;
  agent_type?: string;
  effort?: { level: string };
};

/** Builds an event's input schema: common fields, `hook_event_name`, then the event's fields. */
export function inputSchema<E extends HookEventName, S extends z.ZodRawShape>(event: E, fields: S) {
  // An event that owns agent_id/agent_type (SubagentStart/Stop, SessionStart) lists them after hook_event_name.
  // Typed without the owned keys: an intersection would make agent_id `optional & required`, i.e. undefined.
  const common = Object.fromEntries(Object.entries(commonInputShape()).filter(([k]) => !(k in fields))) as Omit<CommonInputShape, keyof S>;
  return z.looseObject({ ...common, hook_event_name: z.literal(event), ...fields } as Omit<CommonInputShape, keyof S> & { hook_event_name: z.ZodLiteral<E> } & S);
}

/** Top-level output fields every event accepts (contracts §1.6). */
const baseOutputShape = once(() => ({
  continue: z.boolean().optional(),
  stopReason: z.string().optional(),
  suppressOutput: z.boolean().optional(),
  systemMessage: z.string().optional(),
  terminalSequence: z.string().optional(),
  decision: z.enum(["approve", "block"]).optional(),
  reason: z.string().optional(),
}));

/** Builds an event's output schema; `hookSpecificOutput.hookEventName` must name the event. */
export function outputSchema<E extends HookEventName, S extends z.ZodRawShape>(event: E, specific: S) {
  return z.looseObject({
    ...baseOutputShape(),
    hookSpecificOutput: z.looseObject({ hookEventName: z.literal(event), ...specific }).optional(),
  });
}

/** The JSON a command hook prints or an in-process handler returns (contracts §1.6). */
export type HookJsonOutput = {
  continue?: boolean;
  stopReason?: string;
  suppressOutput?: boolean;
  systemMessage?: string;
  terminalSequence?: string;
  decision?: "approve" | "block";
  reason?: string;
  hookSpecificOutput?: { hookEventName: string } & Record<string, unknown>;
  [k: string]: unknown;
};

/** One handler's normalized result, the input of every event's pure `merge`. */
export type HandlerResult = {
  record: HookRecord;
  /** Schema-valid JSON output (from stdout or an in-process handler). */
  output?: HookJsonOutput;
  /** Set on exit 2, `onFailure: "block"` failures and failing-closed in-process handlers. */
  blockingError?: string;
  /** Exit-0 stdout that was not JSON. */
  plainStdout?: string;
};

/** contracts §1.5: hook strings that reach the model are capped at 10,000 characters. */
export const MODEL_TEXT_CAP = 10_000;
export function capText(s: string, cap = MODEL_TEXT_CAP): string {
  if (s.length <= cap) return s;
  return `${s.slice(0, cap)}\n… [hook output truncated: ${s.length - cap} more characters]`;
}

export type EventSpec<E extends HookEventName = HookEventName> = {
  name: E;
  /** The stdin payload's schema, made on first use. */
  input: () => z.ZodType;
  /** The schema of the JSON a hook may print, made on first use. */
  output: () => z.ZodType;
  /** contracts §1.1: whether exit 2 / `decision: "block"` has an effect. */
  canBlock: boolean;
  /** The payload field the matcher is tested against (internals §8.1); undefined: no matcher. */
  matchField?: string;
  /** Default command-hook timeout in seconds (contracts §1.2). */
  defaultTimeoutSec: number;
  /** Whether `if` rules apply (tool events); elsewhere a hook with `if` never runs (contracts §1.2). */
  ifApplies: boolean;
  /** Whether `onFailure: "block"` is honoured (ignored on Stop/SubagentStop, contracts §1.2). */
  onFailureApplies: boolean;
  merge(results: HandlerResult[]): HookOutcome;
};

type MergeOptions = {
  canBlock: boolean;
  /** Exit-0 plain stdout becomes model context (UserPromptSubmit, SessionStart, PreCompact). */
  plainStdoutIsContext?: boolean;
  /** contracts §1.6: events that discard `systemMessage`. */
  discardSystemMessage?: boolean;
  /** Non-blocking events whose exit-2 stderr is shown to the user (SessionStart, SubagentStart). */
  exit2ToUser?: boolean;
  /** Called per result for event-specific fields. */
  specific?: (out: HookOutcome, r: HandlerResult, hso: Record<string, unknown>) => void;
};

const str = (v: unknown): string | undefined => (typeof v === "string" && v.length > 0 ? v : undefined);

/**
 * The merge shared by every event: `continue:false`, systemMessage, blocking errors, top-level
 * `decision: "block"`, additionalContext and records. Pure; never throws.
 */
export function mergeBase(results: HandlerResult[], o: MergeOptions): HookOutcome {
  const out = emptyOutcome();
  const reasons: string[] = [];
  for (const r of results) {
    out.records.push(r.record);
    // contracts §1.5: the user sees "<hook name> hook error" for failures that do not block.
    if (r.record.error && r.record.outcome !== "cancelled" && r.blockingError === undefined)
      out.systemMessages.push(capText(`${r.record.hookName} hook error: ${r.record.error}`));
    const j = r.output;
    if (r.blockingError !== undefined) {
      if (o.canBlock) reasons.push(capText(r.blockingError));
      else if (o.exit2ToUser && r.blockingError) out.systemMessages.push(capText(`${r.record.hookName} hook error: ${r.blockingError}`));
    }
    if (r.plainStdout && o.plainStdoutIsContext) {
      const t = r.plainStdout.trim();
      if (t) out.additionalContext.push(capText(t));
    }
    if (!j) continue;
    if (j.continue === false) {
      out.stop = true;
      if (str(j.stopReason)) out.stopReason = out.stopReason ? `${out.stopReason}\n${j.stopReason}` : j.stopReason;
    }
    if (str(j.systemMessage) && !o.discardSystemMessage) out.systemMessages.push(capText(j.systemMessage!));
    if (j.decision === "block" && o.canBlock && r.blockingError === undefined) reasons.push(capText(str(j.reason) ?? "Blocked by hook"));
    const hso = (j.hookSpecificOutput ?? {}) as Record<string, unknown>;
    const ctx = str(hso.additionalContext);
    if (ctx) out.additionalContext.push(capText(ctx));
    o.specific?.(out, r, hso);
  }
  if (reasons.length > 0) {
    out.blocked = true;
    out.blockReason = reasons.join("\n");
  }
  return out;
}

const RANK: Record<PermissionDecisionValue, number> = { deny: 4, defer: 3, ask: 2, allow: 1 };

/** contracts §1.6: several PreToolUse hooks merge as deny > defer > ask > allow. */
export function strongerDecision(a: PermissionDecisionValue | undefined, b: PermissionDecisionValue): boolean {
  return a === undefined || RANK[b] > RANK[a];
}

/** Orders payload keys as Claude Code does: common fields, hook_event_name, event fields, rest. */
export function orderPayload(
  event: HookEventName,
  eventKeys: readonly string[],
  common: Partial<CommonFields> & Record<string, unknown>,
  fields: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const all: Record<string, unknown> = { ...common, ...fields };
  // SubagentStart/Stop and SessionStart carry agent_id/agent_type as their own fields, after hook_event_name.
  for (const k of COMMON_KEYS) if (all[k] !== undefined && !eventKeys.includes(k)) out[k] = all[k];
  out.hook_event_name = event;
  for (const k of eventKeys) if (all[k] !== undefined && !(k in out)) out[k] = all[k];
  for (const [k, v] of Object.entries(all)) if (v !== undefined && !(k in out)) out[k] = v;
  return out;
}
