/**
 * Hooks the Agent SDK host registered in `initialize` (contracts §4.6 `hook_callback`): each matcher becomes an
 * in-process handler on the one hook bus, so it is matched, run in parallel and merged with command and plugin hooks
 * by the same rules. The handler sends `hook_callback` with Claude Code's payload and waits for the host's answer,
 * at most the matcher's timeout (default: the event's). A host that fails or never answers is reported on stderr and
 * counts as "no opinion", unless the matcher says `onFailure: "block"`: then the action is blocked.
 */
import type { YokeHookBus } from "../../hook/bus.ts";
import type { HookJsonOutput } from "../../hook/events/common.ts";
import { EVENT_SPECS } from "../../hook/events/index.ts";
import { validateOutput } from "../../hook/interpret.ts";
import type { HookEventName } from "../../hook/types.ts";
import type { HostInit } from "./initialize.ts";
import type { StdinSession } from "../stdin.ts";

/** Events whose hook can block the step it belongs to with `decision: "block"`. */
const BLOCKABLE = new Set(["UserPromptSubmit", "UserPromptExpansion", "PostToolUse", "Stop", "SubagentStop", "PreCompact"]);

export function registerHostHooks(o: {
  bus: YokeHookBus;
  init: HostInit;
  control: Pick<StdinSession, "request" | "closed">;
  warn: (msg: string) => void;
}): void {
  for (const event of o.init.unknownEvents) o.warn(`the Agent SDK host registered hooks for "${event}", an event yoke does not fire; they never run`);
  for (const [event, matchers] of Object.entries(o.init.hooks) as Array<[HookEventName, HostInit["hooks"][string]]>) {
    const spec = EVENT_SPECS[event];
    for (const m of matchers) {
      const timeoutMs = (m.timeout ?? spec.defaultTimeoutSec) * 1000;
      for (const callbackId of m.hookCallbackIds) {
        o.bus.registerInProcess(
          event,
          async (payload, { signal }): Promise<HookJsonOutput | void> => {
            // The host hung up (a one-shot prompt closes stdin after its result): SessionEnd and the like go
            // unanswered, as with Claude Code, and that is no failure to report.
            if (o.control.closed && m.onFailure !== "block") return;
            try {
              const out = await o.control.request(
                { subtype: "hook_callback", callback_id: callbackId, input: payload, ...(typeof payload.tool_use_id === "string" ? { tool_use_id: payload.tool_use_id } : {}) },
                { timeoutMs, signal },
              );
              // `{async: true}`: the host goes on in the background; nothing to merge.
              if (out.async === true) return;
              // An answer that is not hook output is a failure of the host like a throw, named here, rather than
              // the bus's fail-closed verdict for a broken plugin.
              const v = validateOutput(spec, out);
              if (!v.output) throw new Error(v.error);
              return v.output;
            } catch (err) {
              if (signal.aborted) return;
              const why = (err as Error).message;
              o.warn(`the Agent SDK host's ${event} hook (${callbackId}) failed: ${why}`);
              if (m.onFailure !== "block") return;
              const reason = `The Agent SDK host's ${event} hook failed (${why}) and is set to block on failure.`;
              if (event === "PreToolUse") return { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: reason } };
              if (BLOCKABLE.has(event)) return { decision: "block", reason };
              return;
            }
          },
          // The bus's own timeout is a backstop a little past ours, so the host's timeout is the one reported.
          { ...(m.matcher ? { matcher: m.matcher } : {}), timeoutMs: timeoutMs + 1000, source: "Agent SDK host" },
        );
      }
    }
  }
}
