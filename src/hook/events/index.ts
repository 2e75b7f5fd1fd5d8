import type { z } from "zod";
import type { EmitPayload, EventFields } from "../typed.ts";
import type { HookEventName } from "../types.ts";
import type { CommonFields, EventSpec } from "./common.ts";
import { orderPayload } from "./common.ts";
import EVENT_KEYS from "./event-keys.json" with { type: "json" };
import { notification, notificationInput, notificationOutput } from "./notification.ts";
import { postToolUse, postToolUseInput, postToolUseOutput } from "./post-tool-use.ts";
import { postToolUseFailure, postToolUseFailureInput, postToolUseFailureOutput } from "./post-tool-use-failure.ts";
import { preCompact, preCompactInput, preCompactOutput } from "./pre-compact.ts";
import { postCompact, postCompactInput, postCompactOutput } from "./post-compact.ts";
import { stopFailure, stopFailureInput, stopFailureOutput } from "./stop-failure.ts";
import { instructionsLoaded, instructionsLoadedInput, instructionsLoadedOutput } from "./instructions-loaded.ts";
import { preToolUse, preToolUseInput, preToolUseOutput } from "./pre-tool-use.ts";
import { permissionRequest, permissionRequestInput, permissionRequestOutput } from "./permission-request.ts";
import { permissionDenied, permissionDeniedInput, permissionDeniedOutput } from "./permission-denied.ts";
import { sessionEnd, sessionEndInput, sessionEndOutput } from "./session-end.ts";
import { sessionStart, sessionStartInput, sessionStartOutput } from "./session-start.ts";
import { stop, stopInput, stopOutput } from "./stop.ts";
import { subagentStart, subagentStartInput, subagentStartOutput } from "./subagent-start.ts";
import { subagentStop, subagentStopInput, subagentStopOutput } from "./subagent-stop.ts";
import { userPromptSubmit, userPromptSubmitInput, userPromptSubmitOutput } from "./user-prompt-submit.ts";
import { userPromptExpansion, userPromptExpansionInput, userPromptExpansionOutput } from "./user-prompt-expansion.ts";
import { postToolBatch, postToolBatchInput, postToolBatchOutput } from "./post-tool-batch.ts";
import { messageDisplay, messageDisplayInput, messageDisplayOutput } from "./message-display.ts";

export type { CommonFields, EventSpec, HandlerResult, HookJsonOutput } from "./common.ts";

/** Every event yoke fires, by name. */
export const EVENT_SPECS: { [E in HookEventName]: EventSpec<E> } = {
  PreToolUse: preToolUse,
  PermissionRequest: permissionRequest,
  PermissionDenied: permissionDenied,
  PostToolUse: postToolUse,
  PostToolUseFailure: postToolUseFailure,
  UserPromptSubmit: userPromptSubmit,
  UserPromptExpansion: userPromptExpansion,
  Stop: stop,
  SubagentStart: subagentStart,
  SubagentStop: subagentStop,
  SessionStart: sessionStart,
  SessionEnd: sessionEnd,
  PreCompact: preCompact,
  PostCompact: postCompact,
  StopFailure: stopFailure,
  InstructionsLoaded: instructionsLoaded,
  Notification: notification,
  PostToolBatch: postToolBatch,
  MessageDisplay: messageDisplay,
};

const INPUTS = {
  PreToolUse: preToolUseInput,
  PermissionRequest: permissionRequestInput,
  PermissionDenied: permissionDeniedInput,
  PostToolUse: postToolUseInput,
  PostToolUseFailure: postToolUseFailureInput,
  UserPromptSubmit: userPromptSubmitInput,
  UserPromptExpansion: userPromptExpansionInput,
  Stop: stopInput,
  SubagentStart: subagentStartInput,
  SubagentStop: subagentStopInput,
  SessionStart: sessionStartInput,
  SessionEnd: sessionEndInput,
  PreCompact: preCompactInput,
  PostCompact: postCompactInput,
  StopFailure: stopFailureInput,
  InstructionsLoaded: instructionsLoadedInput,
  Notification: notificationInput,
  PostToolBatch: postToolBatchInput,
  MessageDisplay: messageDisplayInput,
};
const OUTPUTS = {
  PreToolUse: preToolUseOutput,
  PermissionRequest: permissionRequestOutput,
  PermissionDenied: permissionDeniedOutput,
  PostToolUse: postToolUseOutput,
  PostToolUseFailure: postToolUseFailureOutput,
  UserPromptSubmit: userPromptSubmitOutput,
  UserPromptExpansion: userPromptExpansionOutput,
  Stop: stopOutput,
  SubagentStart: subagentStartOutput,
  SubagentStop: subagentStopOutput,
  SessionStart: sessionStartOutput,
  SessionEnd: sessionEndOutput,
  PreCompact: preCompactOutput,
  PostCompact: postCompactOutput,
  StopFailure: stopFailureOutput,
  InstructionsLoaded: instructionsLoadedOutput,
  Notification: notificationOutput,
  PostToolBatch: postToolBatchOutput,
  MessageDisplay: messageDisplayOutput,
};
/** The stdin payload of event E, typed from its zod schema (DESIGN "HookPayload<N>"). */
export type HookPayload<E extends HookEventName> = z.infer<ReturnType<(typeof INPUTS)[E]>>;
/** The JSON output event E accepts (DESIGN "HookResult<N>"). */
export type HookResult<E extends HookEventName> = z.input<ReturnType<(typeof OUTPUTS)[E]>>;

export const isHookEventName = (s: string): s is HookEventName => Object.hasOwn(EVENT_SPECS, s);

/** The event's own field names in its input schema's order (everything after `hook_event_name`), read from the schema. */
export function schemaEventKeys(event: HookEventName): string[] {
  const all = Object.keys((EVENT_SPECS[event].input() as unknown as { shape: Record<string, unknown> }).shape);
  return all.slice(all.indexOf("hook_event_name") + 1);
}

const KEYS: Partial<Record<string, string[]>> = EVENT_KEYS;
/**
 * The event's own field names, in schema order (everything after `hook_event_name`): from event-keys.json, generated
 * from the schemas by `bun run schemas` (test/hook/lazy-schemas.test.ts fails on drift), so ordering a payload makes
 * no schema (issue 21).
 */
export function eventKeys(event: HookEventName): string[] {
  return KEYS[event] ?? schemaEventKeys(event);
}

/**
 * `buildPayload` typed per event: E's fields in, E's payload out (what `HookBus.emit` takes). Pure.
 * The one place a built payload is declared to be E's: orderPayload copies every field under its own name.
 */
export function eventPayload<E extends HookEventName>(event: E, common: Partial<CommonFields>, fields: EventFields<E>): EmitPayload<E> {
  return buildPayload(event, common, fields as Record<string, unknown>) as EmitPayload<E>;
}

/**
 * The stdin payload in Claude Code's key order (contracts §1.4): common fields, `hook_event_name`,
 * then the event's fields in schema order, then anything else. Undefined values are dropped. Pure.
 */
export function buildPayload(
  event: HookEventName,
  common: Partial<CommonFields> & Record<string, unknown>,
  fields: Record<string, unknown> = {},
): Record<string, unknown> {
  return orderPayload(event, eventKeys(event), common, fields);
}
