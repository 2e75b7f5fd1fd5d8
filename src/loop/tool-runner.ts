import type { HookPayloadBuilder } from "../hook/typed.ts";
import type { HookBus } from "../hook/types.ts";
import type { AutoMode } from "../permission/auto/auto-mode.ts";
import { resolveHeadless } from "../permission/modes.ts";
import type { PermissionEvaluator } from "../permission/types.ts";
import type { Message, ToolResultBlock, ToolUseBlock } from "../provider/types.ts";
import { isReadOnly } from "../tool/define-tool.ts";
import type { ToolRegistry } from "../tool/registry.ts";
import type { ToolContext, ToolResult } from "../tool/types.ts";
import { absolutizePaths } from "../tool/resolve-paths.ts";
import { permissionSuggestions } from "../permission/suggestions.ts";
import type { PermissionDenial } from "./events.ts";
import { mcpServerField } from "../tool/mcp-server-field.ts";
import { runWithDeadline } from "./tool-deadline.ts";
import { markEach } from "../util/mark-each.ts";
import { blockingAttachment, contextAttachment, successAttachments, type HookAttachment } from "./hook-feedback.ts";

/** Asks a person. Absent in headless runs, where an `ask` becomes a denial. */
export type AskPermission = (req: { toolName: string; input: Record<string, unknown>; reason: string; toolUseId?: string }) => Promise<
  { allow: true; input?: Record<string, unknown> } | { allow: false; feedback?: string }
>;

export type ToolRunnerDeps = {
  tools: ToolRegistry;
  hooks: HookBus;
  permissions: PermissionEvaluator;
  /** Common hook fields in Claude Code's order, ending with hook_event_name. */
  hookPayload: HookPayloadBuilder;
  context: (toolUseId: string, signal: AbortSignal) => ToolContext;
  askPermission?: AskPermission;
  clock: () => number;
  /** Runs right before a tool executes (after every check): checkpoints, env files. */
  beforeToolRun?: (toolName: string, input: Record<string, unknown>) => Promise<void>;
  /**
   * Runs right before the permission check, which then tells the returned function whether it allowed the call at once
   * (a Bash call's checkpoint starts reading the working tree beside the check: issue 21).
   */
  beforePermission?: (toolName: string) => ((allowedNow: boolean) => void) | undefined;
  /** `permissions.denyInsteadOfPrompting`: an ask is denied even where a prompt surface exists. */
  denyInsteadOfPrompting?: boolean;
  /** Auto mode's classifier behind its circuit breaker (src/permission/auto); absent outside auto mode. */
  autoMode?: AutoMode;
};

export type ToolOutcome = {
  block: ToolResultBlock;
  details?: unknown;
  /** Hook context for the model (PreToolUse / PostToolUse additionalContext, PostToolUse block reasons). */
  context: string[];
  /** The same as transcript attachment lines: `pre` ones go before the tool_result line, `post` ones after. */
  hooks?: Array<HookAttachment & { phase: "pre" | "post" }>;
  systemMessages: string[];
  denial?: { denial: PermissionDenial; reason: string };
  /** A hook said `continue: false`. */
  stop?: { reason: string };
};

const errorResult = (id: string, text: string): ToolResultBlock => ({ type: "tool_result", tool_use_id: id, content: text, is_error: true });

/** validate → PreToolUse → permission → execute → PostToolUse. Never throws (DESIGN rule 3). */
export async function runToolCall(deps: ToolRunnerDeps, call: ToolUseBlock, signal: AbortSignal, history: readonly Message[] = []): Promise<ToolOutcome> {
  const out: ToolOutcome = { block: errorResult(call.id, ""), context: [], systemMessages: [], hooks: [] };
  const note = (phase: "pre" | "post", a: HookAttachment) => {
    out.hooks!.push({ ...a, phase });
    if (a.text !== undefined) out.context.push(a.text);
  };
  const tool = deps.tools.get(call.name);
  if (!tool) {
    const names = deps.tools.list().map((t) => t.name).join(", ");
    out.block = errorResult(call.id, `Error: No such tool available: ${call.name}. Use one of: ${names}.`);
    return out;
  }
  if ("__invalid_json__" in call.input) {
    out.block = errorResult(call.id, `InputValidationError: the input for ${tool.name} was not valid JSON. Send the input again as a JSON object.`);
    return out;
  }
  let parsed = tool.parse(call.input);
  if (!parsed.ok) {
    out.block = errorResult(call.id, parsed.error);
    return out;
  }
  markEach("tool-start");
  const ctx = deps.context(call.id, signal);
  let input = absolutizePaths(parsed.input as Record<string, unknown>, ctx.cwd);

  const pre = deps.hooks.has("PreToolUse")
    ? await deps.hooks.emit(
        "PreToolUse",
        deps.hookPayload("PreToolUse", { tool_name: tool.name, tool_input: input, tool_use_id: call.id, ...mcpServerField(tool) }),
        { matchValue: tool.name, signal },
      )
    : null;
  if (pre) {
    for (const a of successAttachments(pre, "PreToolUse", call.id)) note("pre", a);
    for (const c of pre.additionalContext) note("pre", contextAttachment(`PreToolUse:${tool.name}`, "PreToolUse", call.id, c));
    out.systemMessages.push(...pre.systemMessages);
    if (pre.stop) out.stop = { reason: pre.stopReason ?? "A PreToolUse hook stopped the run." };
    if (pre.blocked || pre.permissionDecision === "deny") {
      const why = pre.blockReason ?? pre.permissionDecisionReason ?? "blocked";
      const text = `PreToolUse:${tool.name} hook error: ${why}`;
      out.block = errorResult(call.id, text);
      out.denial = { denial: { tool_name: tool.name, tool_use_id: call.id, tool_input: input }, reason: text };
      return out;
    }
    if (pre.updatedInput) {
      const re = tool.parse(pre.updatedInput);
      if (!re.ok) {
        out.block = errorResult(call.id, `A PreToolUse hook rewrote the input of ${tool.name} into something invalid:\n${re.error}`);
        return out;
      }
      parsed = re;
      input = absolutizePaths(re.input as Record<string, unknown>, ctx.cwd);
    }
  }

  const hookDecision = pre?.permissionDecision === "allow" || pre?.permissionDecision === "ask" ? pre.permissionDecision : undefined;
  const early = deps.beforePermission?.(tool.name);
  const decision = deps.permissions.decide({ toolName: tool.name, input, readOnly: isReadOnly(tool, input), cwd: ctx.cwd, hookDecision });
  early?.(decision.behavior === "allow" && !signal.aborted);
  markEach("permission");
  let behavior = decision.behavior;
  let reason = decision.reason;
  // contracts §3.4: before anyone is asked (or a headless run denies), PermissionRequest hooks may decide.
  if (behavior === "ask" && deps.hooks.has("PermissionRequest")) {
    const suggestions = permissionSuggestions(tool.name, input, ctx.cwd);
    const pr = await deps.hooks.emit("PermissionRequest", deps.hookPayload("PermissionRequest", { tool_name: tool.name, tool_input: input, permission_suggestions: suggestions, ...mcpServerField(tool) }), {
      matchValue: tool.name,
      signal,
    });
    out.systemMessages.push(...pr.systemMessages);
    if (pr.permissionDecision === "deny") {
      behavior = "deny";
      reason = `A PermissionRequest hook denied it: ${pr.permissionDecisionReason ?? "no reason given"}`;
    } else if (pr.permissionDecision === "allow") {
      const re = pr.updatedInput ? tool.parse(pr.updatedInput) : null;
      if (re && !re.ok) {
        out.block = errorResult(call.id, `A PermissionRequest hook rewrote the input of ${tool.name} into something invalid:\n${re.error}`);
        return out;
      }
      behavior = "allow";
      if (re?.ok) {
        input = re.input as Record<string, unknown>;
        // A rewritten input is decided again: deny rules and safety checks hold for what will really run (issue 16 point 7).
        const again = deps.permissions.decide({ toolName: tool.name, input, readOnly: isReadOnly(tool, input), cwd: ctx.cwd, hookDecision: "allow" });
        if (again.behavior !== "allow") {
          behavior = again.behavior;
          reason = `A PermissionRequest hook rewrote the input, and the rewritten call is not allowed: ${again.reason}`;
        }
      }
    }
  }
  // Seed 000 step 3: after the hooks, auto mode's classifier decides what no rule or safety check settled.
  let paused: string | undefined;
  if (behavior === "ask" && decision.classify && deps.autoMode && deps.permissions.mode === "auto") {
    const r = await deps.autoMode.review({ toolName: tool.name, input, toolUseId: call.id, cwd: ctx.cwd, history, readOnly: isReadOnly(tool, input), signal });
    if (r.behavior === "allow") behavior = "allow";
    else if (r.behavior === "deny") {
      behavior = "deny";
      reason = r.reason;
      // contracts §1.1: PermissionDenied fires for auto-mode denials only; `retry: true` lets the model try again.
      if (deps.hooks.has("PermissionDenied")) {
        const pd = await deps.hooks.emit("PermissionDenied", deps.hookPayload("PermissionDenied", { tool_name: tool.name, tool_input: input, tool_use_id: call.id, reason }), { matchValue: tool.name, signal });
        out.systemMessages.push(...pd.systemMessages);
        if (pd.retry) reason = `${reason.replace(/ Do not retry the same action;[^]*$/, "")} A PermissionDenied hook says you may retry this action.`;
      }
    } else paused = r.reason;
  }
  if (behavior === "ask") {
    if (deps.askPermission && !deps.denyInsteadOfPrompting) {
      const answer = await deps.askPermission({ toolName: tool.name, input, reason: paused ? `${paused} ${reason}` : reason, toolUseId: call.id });
      if (answer.allow) {
        behavior = "allow";
        if (paused) deps.autoMode?.approvedByPerson();
        if (answer.input) {
          input = answer.input;
          // The approver may rewrite the call (an SDK host's updatedInput): deny rules still hold for the new input.
          const again = deps.permissions.decide({ toolName: tool.name, input, readOnly: isReadOnly(tool, input), cwd: ctx.cwd, hookDecision: "allow" });
          if (again.behavior === "deny") {
            behavior = "deny";
            reason = `The approved call was rewritten into one that is denied: ${again.reason}`;
          }
        }
      } else {
        behavior = "deny";
        reason = answer.feedback ? `The user denied this ${tool.name} call and said: ${answer.feedback}` : `The user denied this ${tool.name} call.`;
      }
    } else {
      const headless = resolveHeadless(paused ? { ...decision, reason: `${paused} ${decision.reason}` } : decision, { denyInsteadOfPrompting: deps.denyInsteadOfPrompting });
      behavior = "deny";
      // resolveHeadless already tells the model not to retry and what to do instead.
      reason = headless.reason;
    }
  }
  if (behavior === "deny") {
    out.block = errorResult(call.id, `Permission to use ${tool.name} was denied. ${reason}`);
    out.denial = { denial: { tool_name: tool.name, tool_use_id: call.id, tool_input: input }, reason };
    return out;
  }

  const started = deps.clock();
  let result: ToolResult;
  if (!signal.aborted) await deps.beforeToolRun?.(tool.name, input);
  if (signal.aborted) result = { content: `${tool.name} was interrupted by the user.`, isError: true };
  else {
    markEach("tool-run");
    result = await runWithDeadline(tool, input, ctx);
    markEach("tool-ran");
  }
  const durationMs = deps.clock() - started;
  out.block = { type: "tool_result", tool_use_id: call.id, content: result.content, is_error: result.isError ?? false };
  out.details = result.details ?? (typeof result.content === "string" ? result.content : undefined);

  const event = result.isError ? "PostToolUseFailure" : "PostToolUse";
  if (deps.hooks.has(event)) {
    const fields = { tool_name: tool.name, tool_input: input, tool_use_id: call.id, duration_ms: durationMs, ...mcpServerField(tool) };
    const o = { matchValue: tool.name, signal };
    const post = result.isError
      ? await deps.hooks.emit(
          "PostToolUseFailure",
          deps.hookPayload("PostToolUseFailure", { ...fields, error: typeof result.content === "string" ? result.content : "tool failed", is_interrupt: signal.aborted }),
          o,
        )
      : await deps.hooks.emit("PostToolUse", deps.hookPayload("PostToolUse", { ...fields, tool_response: out.details ?? null }), o);
    // Observed in 2.1.332: one line per blocking hook, naming its command, then the hooks' additional context.
    const hookName = `${event}:${tool.name}`;
    for (const a of successAttachments(post, event, call.id)) note("post", a);
    const blocks = post.records.filter((r) => r.blockingError);
    if (blocks.length) for (const r of blocks) note("post", blockingAttachment(hookName, event, call.id, r.blockingError!, r.command ?? r.source));
    else if (post.blocked && post.blockReason)
      note("post", { ...blockingAttachment(hookName, event, call.id, post.blockReason, ""), text: `${hookName} hook blocking error: ${post.blockReason}` });
    for (const c of post.additionalContext) note("post", contextAttachment(hookName, event, call.id, c));
    out.systemMessages.push(...post.systemMessages);
    if (post.stop) out.stop = { reason: post.stopReason ?? `A ${event} hook stopped the run.` };
  }
  return out;
}
