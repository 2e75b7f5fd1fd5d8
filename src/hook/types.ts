/**
 * Hook bus contract shared by the loop, command hooks and in-process plugins.
 * Payload field names are Claude Code's (contracts §1.4); see events/<event>.ts for each event.
 */
import type { EmitPayload } from "./typed.ts";

export const HOOK_EVENTS = [
  "PreToolUse",
  "PermissionRequest",
  "PermissionDenied",
  "PostToolUse",
  "PostToolUseFailure",
  "UserPromptSubmit",
  "Stop",
  "SubagentStart",
  "SubagentStop",
  "SessionStart",
  "SessionEnd",
  "PreCompact",
  "PostCompact",
  "StopFailure",
  "InstructionsLoaded",
  "Notification",
  "PostToolBatch",
  "MessageDisplay",
] as const;
export type HookEventName = (typeof HOOK_EVENTS)[number];

export type PermissionDecisionValue = "allow" | "deny" | "ask" | "defer";

/** One handler's say, for `yoke hooks run`, stream-json hook events and error reports. */
export type HookRecord = {
  /** Pairs the record with the onStart call of the same handler. */
  id?: string;
  /** e.g. `command: ./check.sh (.claude/settings.json)` or `plugin: attribution`. */
  source: string;
  hookName: string;
  exitCode: number | null;
  stdout: string;
  stderr: string;
  durationMs: number;
  outcome: "success" | "blocking" | "non_blocking_error" | "timeout" | "cancelled";
  error?: string;
  /** The command as shown in messages (exec form joined; a plugin's ${CLAUDE_PLUGIN_ROOT} expanded). */
  command?: string;
  /** The model-facing text of this handler's block, when it blocked. */
  blockingError?: string;
  /** The block came from a JSON `decision: "block"` (not exit 2): Claude Code also records a hook_blocking_error line for it. */
  blockFromJson?: boolean;
};

/** The merged result of every handler that matched one firing. */
export type HookOutcome = {
  /** Exit 2, `decision: "block"`, or a PreToolUse deny. */
  blocked: boolean;
  /** The model-facing block reason(s), joined. */
  blockReason?: string;
  permissionDecision?: PermissionDecisionValue;
  permissionDecisionReason?: string;
  updatedInput?: Record<string, unknown>;
  additionalContext: string[];
  systemMessages: string[];
  /** PostToolUse `updatedToolOutput` / `updatedMCPToolOutput` (last handler wins). */
  updatedToolOutput?: unknown;
  /** PermissionDenied `retry: true`: the model may try the denied call again. */
  retry?: boolean;
  /** UserPromptSubmit / SessionStart `sessionTitle`. */
  sessionTitle?: string;
  /** UserPromptSubmit `suppressOriginalPrompt`. */
  suppressOriginalPrompt?: boolean;
  /** SessionStart `initialUserMessage`. */
  initialUserMessage?: string;
  /** MessageDisplay `displayContent`: the text shown instead (last handler wins). */
  displayContent?: string;
  /** SessionStart `watchPaths`. */
  watchPaths?: string[];
  /** `continue: false` from any handler: stop the loop after this step. */
  stop: boolean;
  stopReason?: string;
  records: HookRecord[];
};

export const emptyOutcome = (): HookOutcome => ({
  blocked: false,
  additionalContext: [],
  systemMessages: [],
  stop: false,
  records: [],
});

/**
 * Fires hooks. `emit` never throws: handler failures are recorded in `records` and, where the
 * event fails closed (an in-process PreToolUse handler that throws), turned into a block.
 */
export interface HookBus {
  /** The payload follows the event: E's fields and the common ones (`EmitPayload<E>`, hook/typed.ts). */
  emit<E extends HookEventName>(event: E, payload: EmitPayload<E>, opts?: { matchValue?: string; signal?: AbortSignal }): Promise<HookOutcome>;
  /** Whether any handler is registered for the event (lets the loop skip payload building). */
  has(event: HookEventName): boolean;
}
