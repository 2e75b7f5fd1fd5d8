import type { HookPayload, HookResult } from "./events/index.ts";
import type { HookEventName } from "./types.ts";

/**
 * The typed seams of the hook bus (issue 11 point 4), from the per-event zod schemas: what a handler of
 * event E is given and may answer. The schemas stay loose
 * on the wire (unknown keys pass, as with Claude Code); these types are strict, so a Stop handler that
 * answers `permissionDecision` does not compile.
 */

/** T without its `[key: string]` index signature (zod's looseObject adds one). */
type Known<T> = { [K in keyof T as string extends K ? never : number extends K ? never : K]: T[K] };

/**
 * The stdin payload of E as `HookBus.emit` takes it: the common fields, `hook_event_name` and E's own fields,
 * nothing else, so a misspelt or another event's field does not compile. Distributes over a union of events.
 */
export type EmitPayload<E extends HookEventName> = E extends HookEventName ? Known<HookPayload<E>> : never;

/** The common fields every payload builder fills in itself. */
type BuilderKey = "session_id" | "transcript_path" | "cwd" | "hook_event_name";

/**
 * What a caller hands the payload builder for E: E's own fields (required ones required) and, optionally, the
 * optional common ones; an event that owns a common field (SubagentStart's agent_id) must give it.
 */
export type EventFields<E extends HookEventName> = E extends HookEventName ? Omit<EmitPayload<E>, BuilderKey> : never;

/** Builds E's payload from E's fields: the common fields in Claude Code's order first (contracts §1.4). */
export type HookPayloadBuilder = <E extends HookEventName>(event: E, fields: EventFields<E>) => EmitPayload<E>;

type Specific<E extends HookEventName> = Known<NonNullable<HookResult<E>["hookSpecificOutput"]>>;

/** Every key any event allows in hookSpecificOutput. */
type AnySpecificKey = { [E in HookEventName]: keyof Specific<E> }[HookEventName];

/** What a handler of E may answer: the common output fields, and E's own hookSpecificOutput and nothing of another event's. */
export type HookAnswer<E extends HookEventName> = Omit<Known<HookResult<E>>, "hookSpecificOutput"> & {
  hookSpecificOutput?: Specific<E> & { [K in Exclude<AnySpecificKey, keyof Specific<E>>]?: never };
};

/**
 * An in-process handler of event E: gets E's payload, answers what E accepts, or nothing ("no opinion").
 * May throw: in PreToolUse a throw blocks the tool (fails closed); elsewhere it is logged and skipped.
 */
export type HookHandler<E extends HookEventName> = (
  payload: HookPayload<E>,
  ctx: { signal: AbortSignal },
) => HookAnswer<E> | undefined | void | Promise<HookAnswer<E> | undefined | void>;

type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;

/**
 * `host.hooks.on`: one overload per event rather than a generic, so a handler written as a plain arrow gets
 * its event's types as context (a generic would widen `"block"` to string before the event is known).
 */
export type HookOn = UnionToIntersection<
  { [E in HookEventName]: (event: E, handler: HookHandler<E>, opts?: { matcher?: string; timeoutMs?: number }) => () => void }[HookEventName]
>;
