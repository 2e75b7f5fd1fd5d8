import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { HookListing, YokeHookBus } from "./bus.ts";
import type { EmitPayload } from "./typed.ts";
import { buildPayload, EVENT_SPECS } from "./events/index.ts";
import type { HookEventName, HookOutcome, HookRecord } from "./types.ts";

/** Rows for `yoke hooks list`: every configured hook and plugin handler, with why it will not run. */
export const listHooks = (bus: YokeHookBus): HookListing[] => bus.list();

/** A plain-text table of `listHooks` rows, one hook per line plus an indented note. Pure. */
export function formatHookList(rows: HookListing[]): string {
  if (rows.length === 0) return "No hooks configured.\n";
  const head = ["EVENT", "MATCHER", "TYPE", "COMMAND", "SOURCE"];
  const cells = rows.map((r) => [r.event, r.matcher || "*", r.type + (r.async ? " (async)" : ""), r.command, r.source]);
  const width = head.map((h, i) => Math.min(60, Math.max(h.length, ...cells.map((c) => c[i]!.length))));
  const line = (c: string[]) => c.map((x, i) => (i === c.length - 1 ? x : x.padEnd(width[i]!))).join("  ").trimEnd();
  const out = [line(head)];
  rows.forEach((r, i) => {
    out.push(line(cells[i]!));
    const extra = [r.if ? `if: ${r.if}` : "", r.timeoutSec !== undefined ? `timeout: ${r.timeoutSec}s` : "", r.note ? `note: ${r.note}` : ""].filter(Boolean);
    if (extra.length) out.push(`    ${extra.join("  ")}`);
  });
  return `${out.join("\n")}\n`;
}

export type DryRunOptions = {
  /** Tool name for tool events (default `Bash`). */
  tool?: string;
  /** tool_input for tool events (default `{}`, Bash `{"command":"true"}`). */
  input?: Record<string, unknown>;
  /** The payload's transcript_path: a file that exists (dryRunTranscript), never a path into the project. */
  transcriptPath?: string;
  /** A complete payload (e.g. from `--payload FILE`); missing common fields are filled in. */
  payload?: Record<string, unknown>;
  signal?: AbortSignal;
};

/** Event fields a synthetic payload gets when the user gives none. */
function syntheticFields(event: HookEventName, tool: string, input: Record<string, unknown>): Record<string, unknown> {
  switch (event) {
    case "PreToolUse":
      return { tool_name: tool, tool_input: input, tool_use_id: "toolu_yoke_dry_run" };
    case "PermissionRequest":
      return { tool_name: tool, tool_input: input };
    case "PermissionDenied":
      return { tool_name: tool, tool_input: input, tool_use_id: "toolu_yoke_dry_run", reason: "Auto mode blocked this action: yoke hooks run sample" };
    case "PostToolUse":
      return { tool_name: tool, tool_input: input, tool_response: {}, tool_use_id: "toolu_yoke_dry_run" };
    case "PostToolUseFailure":
      return { tool_name: tool, tool_input: input, tool_use_id: "toolu_yoke_dry_run", error: "Exit code 1\n" };
    case "UserPromptSubmit":
      return { prompt: "yoke hooks run: sample prompt" };
    case "UserPromptExpansion":
      return { expansion_type: "slash_command", command_name: "sample", command_args: "yoke hooks run", command_source: "projectSettings", prompt: "/sample yoke hooks run" };
    case "Stop":
      return { stop_hook_active: false, last_assistant_message: "yoke hooks run: sample answer", background_tasks: [], session_crons: [] };
    case "SubagentStart":
      return { agent_id: "agent-dry-run", agent_type: "general-purpose" };
    case "SubagentStop":
      return { stop_hook_active: false, agent_id: "agent-dry-run", agent_type: "general-purpose", agent_transcript_path: "/dev/null" };
    case "SessionStart":
      return { source: "startup" };
    case "SessionEnd":
      return { reason: "other" };
    case "PreCompact":
      return { trigger: "manual", custom_instructions: "" };
    case "PostCompact":
      return { trigger: "manual", compact_summary: "yoke hooks run: sample summary" };
    case "StopFailure":
      return { error: "rate_limit", error_details: "yoke hooks run: sample API error" };
    case "InstructionsLoaded":
      return { file_path: "CLAUDE.md", memory_type: "Project", load_reason: "session_start" };
    case "Notification":
      return { message: "yoke hooks run: sample notification", notification_type: "idle_prompt" };
    case "PostToolBatch":
      return { tool_calls: [{ tool_name: tool, tool_input: input, tool_use_id: "toolu_yoke_dry_run", tool_response: "" }] };
    case "MessageDisplay":
      return { turn_id: "turn-dry-run", message_id: "message-dry-run", index: 0, final: true, delta: "yoke hooks run: sample answer" };
  }
}

const NO_MODE = new Set<HookEventName>(["SessionStart", "SubagentStart", "Notification", "SessionEnd", "MessageDisplay"]);

/** The payload `runHooksDry` sends: the user's payload or a synthetic one, common fields filled. */
export function dryRunPayload(bus: YokeHookBus, event: HookEventName, o: DryRunOptions = {}): Record<string, unknown> {
  const tool = o.tool ?? (typeof o.payload?.tool_name === "string" ? o.payload.tool_name : "Bash");
  const input = o.input ?? (tool === "Bash" ? { command: "true" } : {});
  const cwd = bus.cwd();
  const common = {
    session_id: bus.sessionId,
    transcript_path: o.transcriptPath ?? "/dev/null",
    cwd,
    // contracts §1.4: these events arrive without permission_mode
    permission_mode: NO_MODE.has(event) ? undefined : ("default" as const),
  };
  if (!o.payload) return buildPayload(event, common, syntheticFields(event, tool, input));
  const fields = { ...o.payload };
  if (o.tool !== undefined) fields.tool_name = o.tool;
  if (o.input !== undefined) fields.tool_input = o.input;
  // The payload's own common fields (session_id …) override the filled-in ones: buildPayload lets fields win.
  return buildPayload(event, common, fields);
}

/**
 * Fires one event through the bus as `yoke hooks run` does, without a model. Never throws (the
 * bus never throws); failures are in the records.
 */
export async function runHooksDry(
  bus: YokeHookBus,
  event: HookEventName,
  o: DryRunOptions = {},
): Promise<{ payload: Record<string, unknown>; records: HookRecord[]; outcome: HookOutcome }> {
  const payload = dryRunPayload(bus, event, o);
  // The user's own test payload goes out as written (it may be off-shape on purpose): the one untyped emit.
  const outcome = await bus.emit(event, payload as EmitPayload<HookEventName>, { signal: o.signal });
  await bus.drainAsync(EVENT_SPECS[event].defaultTimeoutSec * 1000);
  return { payload, records: outcome.records, outcome };
}

const indent = (s: string) =>
  s
    .replace(/\n$/, "")
    .split("\n")
    .map((l) => `    ${l}`)
    .join("\n");

/** Human-readable report of a dry run: each hook's output, exit, duration, then the merged decision. Pure. */
export function formatHookRun(event: HookEventName, r: { records: HookRecord[]; outcome: HookOutcome }): string {
  const out: string[] = [];
  if (r.records.length === 0) out.push(`No ${event} hooks matched.`);
  for (const rec of r.records) {
    out.push(`● ${rec.source}`);
    out.push(`  hook: ${rec.hookName}  exit: ${rec.exitCode ?? "-"}  outcome: ${rec.outcome}  duration: ${rec.durationMs.toFixed(1)} ms`);
    if (rec.stdout) out.push("  stdout:", indent(rec.stdout));
    if (rec.stderr) out.push("  stderr:", indent(rec.stderr));
    if (rec.error) out.push(`  error: ${rec.error}`);
  }
  const o = r.outcome;
  out.push("", "Merged result:");
  const decision =
    event === "PreToolUse"
      ? (o.permissionDecision ?? "none (normal permission flow)")
      : EVENT_SPECS[event].canBlock || event.startsWith("PostToolUse")
        ? o.blocked
          ? "block"
          : "none"
        : "none (this event cannot block)";
  out.push(`  decision: ${decision}`);
  if (o.blocked && o.blockReason) out.push(`  reason: ${o.blockReason}`);
  else if (o.permissionDecisionReason) out.push(`  reason: ${o.permissionDecisionReason}`);
  if (o.updatedInput) out.push(`  updatedInput: ${JSON.stringify(o.updatedInput)}`);
  for (const c of o.additionalContext) out.push(`  additionalContext: ${c}`);
  for (const m of o.systemMessages) out.push(`  systemMessage: ${m}`);
  if (o.stop) out.push(`  continue: false${o.stopReason ? ` (${o.stopReason})` : ""}`);
  return `${out.join("\n")}\n`;
}

/**
 * The transcript a dry run hands its hooks (issue 17.4): a temporary copy of this folder's latest session, or an
 * empty file, so a Stop hook that reads the transcript sees a valid one and nothing in the project is touched.
 * `cleanup` removes it. Never throws: without a temp dir the path is /dev/null.
 */
export function dryRunTranscript(latest: { id: string; path: string } | null): { path: string; note: string; cleanup: () => void } {
  try {
    const dir = mkdtempSync(join(tmpdir(), "yoke-hooks-run-"));
    const path = join(dir, `${latest?.id ?? "dry-run"}.jsonl`);
    if (latest) copyFileSync(latest.path, path);
    else writeFileSync(path, "");
    const note = latest ? `a temporary copy of session ${latest.id}` : "an empty file (no earlier session in this folder)";
    return { path, note, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
  } catch {
    return { path: "/dev/null", note: "/dev/null (no temporary folder)", cleanup: () => {} };
  }
}
