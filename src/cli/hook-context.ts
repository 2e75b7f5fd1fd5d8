import { randomUUID } from "../util/random.ts";
import type { CommonFields } from "../hook/events/common.ts";
import { eventPayload } from "../hook/events/index.ts";
import type { HookPayloadBuilder } from "../hook/typed.ts";
import type { HookEventName } from "../hook/types.ts";

/**
 * Events fired inside a tool context: they carry `effort: {level}` (contracts §1.4; observed in 2.1.332 on
 * PreToolUse, PostToolUse, PostToolBatch and Stop, hooks-hook-stdin-shape.txt).
 */
const EFFORT_EVENTS = new Set<HookEventName>(["PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "PermissionRequest", "Stop", "SubagentStop"]);

/** Events that carry no `prompt_id` in 2.1.332: they fire before the first prompt or outside a turn. */
const NO_PROMPT_ID = new Set<HookEventName>(["SessionStart", "InstructionsLoaded"]);

/** Events without `permission_mode` in 2.1.332 (contracts §1.4: SessionStart, SubagentStart, Notification, SessionEnd; MessageDisplay per hooks-hook-stdin-shape.txt). */
const NO_PERMISSION_MODE = new Set<HookEventName>(["SessionStart", "SubagentStart", "Notification", "SessionEnd", "InstructionsLoaded", "MessageDisplay"]);

export type HookContextOptions = {
  sessionId: string;
  transcriptPath: () => string;
  cwd: () => string;
  permissionMode: () => CommonFields["permission_mode"];
  /** The effort level in force, or undefined when the model takes none. */
  effort: () => string | undefined;
  newId?: () => string;
};

export type HookContext = {
  /** Common hook fields in Claude Code's order (contracts §1.4), then the event's own fields. */
  hookPayload: HookPayloadBuilder;
  /** Starts a new user prompt: a fresh `prompt_id` for every hook of this turn. */
  beginPrompt: () => void;
  promptId: () => string | undefined;
};

/** The per-session state behind every hook payload: session, transcript, cwd, prompt id, mode, effort. */
export function createHookContext(o: HookContextOptions): HookContext {
  const newId = o.newId ?? randomUUID;
  let promptId: string | undefined;
  return {
    beginPrompt: () => void (promptId = newId()),
    promptId: () => promptId,
    hookPayload(event, fields) {
      const level = EFFORT_EVENTS.has(event) ? o.effort() : undefined;
      return eventPayload(
        event,
        {
          session_id: o.sessionId,
          transcript_path: o.transcriptPath(),
          cwd: o.cwd(),
          ...(NO_PROMPT_ID.has(event) ? {} : { prompt_id: promptId }),
          ...(NO_PERMISSION_MODE.has(event) ? {} : { permission_mode: o.permissionMode() }),
          ...(level ? { effort: { level } } : {}),
        },
        fields,
      );
    },
  };
}
