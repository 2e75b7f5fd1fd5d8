import type { LoopEvent, TurnResult } from "../loop/events.ts";

/** Claude Code's `result` message (contracts §4.4), keys in its order. */
export function resultMessage(r: TurnResult, sessionId: string, uuid: string): Record<string, unknown> {
  const m: Record<string, unknown> = { type: "result", subtype: r.subtype, is_error: r.isError };
  if (r.apiErrorStatus !== undefined) m.api_error_status = r.apiErrorStatus;
  m.duration_ms = r.durationMs;
  m.duration_api_ms = r.durationApiMs;
  m.num_turns = r.numTurns;
  if (r.subtype === "success") m.result = r.result;
  else m.errors = r.errors;
  if (r.localCommand) m.local_command = r.localCommand;
  m.stop_reason = r.stopReason;
  m.session_id = sessionId;
  m.total_cost_usd = Number(r.totalCostUsd.toFixed(8));
  m.usage = r.usage;
  m.modelUsage = r.modelUsage;
  m.permission_denials = r.permissionDenials;
  m.terminal_reason = r.terminalReason;
  if (r.structuredOutput !== undefined) m.structured_output = r.structuredOutput;
  m.uuid = uuid;
  return m;
}

export type StreamJsonOptions = { sessionId: string; uuid: () => string; partial: boolean; now: () => Date; /** --replay-user-messages */ replay?: boolean };

/** One LoopEvent → zero or more stream-json lines (contracts §4.3–4.4). */
export function streamJsonLines(ev: LoopEvent, o: StreamJsonOptions): Array<Record<string, unknown>> {
  const sid = o.sessionId;
  switch (ev.type) {
    case "assistant":
      // One line per content block sharing message.id, stop_reason null, as Claude Code 2.1 prints them.
      return ev.message.content.map((block, i) => {
        const line: Record<string, unknown> = {
          type: "assistant",
          message: { ...ev.message, content: [block], ...(ev.apiError ? {} : { stop_reason: null, stop_sequence: null }) },
          parent_tool_use_id: null,
          session_id: sid,
          uuid: ev.uuids[i] ?? o.uuid(),
          timestamp: o.now().toISOString(),
        };
        // contracts §4.4: an API failure is an assistant message with `error` (and the status, as 2.1.332 adds).
        if (ev.apiError) Object.assign(line, { error: ev.apiError.kind, is_api_error_message: true, api_error_status: ev.apiError.status });
        if (ev.requestId) line.request_id = ev.requestId;
        return line;
      });
    case "user": {
      // The prompt is not printed (observed in 2.1.332), except with --replay-user-messages: then as submitted,
      // without the injected context, marked isReplay and carrying its transcript uuid (what rewindFiles takes).
      if (ev.prompt !== undefined) {
        if (!o.replay) return [];
        return [{ type: "user", message: { role: "user", content: ev.prompt }, parent_tool_use_id: null, session_id: sid, uuid: ev.uuid, timestamp: o.now().toISOString(), isReplay: true }];
      }
      const line: Record<string, unknown> = {
        type: "user",
        message: ev.message,
        parent_tool_use_id: null,
        session_id: sid,
        uuid: ev.uuid,
        timestamp: o.now().toISOString(),
      };
      if (ev.toolUseResult !== undefined) line.tool_use_result = ev.toolUseResult;
      if (ev.isReplay) line.isReplay = true;
      return [line];
    }
    case "api_retry":
      return [{ type: "system", subtype: "api_retry", ...ev.info, session_id: sid, uuid: o.uuid() }];
    case "stream_event":
      return o.partial ? [{ type: "stream_event", event: ev.event, session_id: sid, parent_tool_use_id: null, uuid: o.uuid() }] : [];
    case "permission_denied":
      return [
        {
          type: "system",
          subtype: "permission_denied",
          tool_name: ev.denial.tool_name,
          tool_use_id: ev.denial.tool_use_id,
          tool_input: ev.denial.tool_input,
          reason: ev.reason,
          session_id: sid,
          uuid: o.uuid(),
        },
      ];
    case "system":
      return [{ type: "system", subtype: ev.subtype, ...ev.data, session_id: sid, uuid: o.uuid() }];
    case "tool_start":
      return [];
    case "result":
      return [resultMessage(ev.result, sid, o.uuid())];
    case "subagent":
      if (ev.event.type !== "assistant" && ev.event.type !== "user") return [];
      return streamJsonLines(ev.event, { ...o, partial: false }).map((l) => ({
        ...l,
        parent_tool_use_id: ev.toolUseId,
        agent_id: ev.agentId,
        subagent_type: ev.agentType,
      }));
  }
}

/** The stderr line of one API retry: `yoke: API error (529 overloaded): <cause>; retry 2 of 10 in 1.2 s`. */
export function retryNotice(info: { attempt: number; max_retries: number; retry_delay_ms: number; error_status: number | null; error: string }, cause?: string): string {
  const what = info.error_status !== null ? `${info.error_status} ${info.error}` : info.error;
  return `yoke: API error (${what})${cause ? `: ${cause}` : ""}; retry ${info.attempt} of ${info.max_retries} in ${(info.retry_delay_ms / 1000).toFixed(1)} s`;
}
