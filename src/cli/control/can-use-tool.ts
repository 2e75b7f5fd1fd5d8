/**
 * `--permission-prompt-tool stdio` (contracts §4.6 `can_use_tool`): an `ask` becomes a request to the host. The
 * answer may rewrite the input, add permission rules or change the mode for the rest of the session
 * (`updatedPermissions`), and a deny with `interrupt: true` ends the turn as Claude Code does. A host that errs,
 * never answers (YOKE_HOST_TIMEOUT_MS, default 10 min) or closes stdin is a denial naming why.
 */
import { persistAllowRule, suggestRule } from "../../permission/index.ts";
import type { PermissionMode } from "../../permission/types.ts";
import { PERMISSION_MODES } from "../../permission/types.ts";
import type { AskPermission } from "../../loop/tool-runner.ts";
import type { StdinSession } from "../stdin.ts";

export const DEFAULT_HOST_TIMEOUT_MS = 600_000;

export type PermissionUpdateTarget = {
  addRules(behavior: "allow" | "deny", rules: string[]): void;
  setMode(mode: PermissionMode): void;
};

const EDIT_TOOLS = new Set(["Edit", "Write", "MultiEdit", "NotebookEdit"]);

/** `Bash(npm test:*)` → the SDK's PermissionRuleValue `{toolName: "Bash", ruleContent: "npm test:*"}`. */
export function ruleValue(rule: string): { toolName: string; ruleContent?: string } {
  const m = /^([^(]+)\((.*)\)$/.exec(rule);
  return m ? { toolName: m[1]!, ruleContent: m[2]! } : { toolName: rule };
}

/** Claude Code's `permission_suggestions`: acceptEdits for edits, else the allow rule "always allow" would add. */
export function permissionSuggestions(toolName: string, input: Record<string, unknown>, cwd: string): Array<Record<string, unknown>> {
  if (EDIT_TOOLS.has(toolName)) return [{ type: "setMode", mode: "acceptEdits", destination: "session" }];
  const rule = suggestRule(toolName, input, cwd);
  if (!rule) return [];
  return [{ type: "addRules", rules: [ruleValue(rule)], behavior: "allow", destination: "localSettings" }];
}

const ruleText = (r: unknown): string | null => {
  if (!r || typeof r !== "object") return null;
  const { toolName, ruleContent } = r as { toolName?: unknown; ruleContent?: unknown };
  if (typeof toolName !== "string" || !toolName) return null;
  return typeof ruleContent === "string" && ruleContent ? `${toolName}(${ruleContent})` : toolName;
};

/** Applies the SDK's PermissionUpdate list; what yoke cannot apply is named on stderr. Never throws. */
export function applyPermissionUpdates(updates: unknown, o: { target: PermissionUpdateTarget; projectDir: string; warn: (m: string) => void }): void {
  if (!Array.isArray(updates)) return;
  for (const u of updates as Array<Record<string, unknown>>) {
    try {
      if (u?.type === "setMode" && PERMISSION_MODES.includes(u.mode as PermissionMode)) {
        o.target.setMode(u.mode as PermissionMode);
      } else if (u?.type === "addRules" && (u.behavior === "allow" || u.behavior === "deny") && Array.isArray(u.rules)) {
        const rules = u.rules.map(ruleText).filter((r): r is string => r !== null);
        o.target.addRules(u.behavior, rules);
        if (u.destination === "localSettings" && u.behavior === "allow") for (const r of rules) persistAllowRule(o.projectDir, r);
        else if (u.destination !== "session" && u.destination !== "cliArg" && u.destination !== "localSettings")
          o.warn(`permission update to ${String(u.destination)} applies to this session only (yoke writes only localSettings)`);
      } else {
        o.warn(`the host's permission update ${JSON.stringify(u).slice(0, 120)} is not supported by yoke; ignored`);
      }
    } catch (e) {
      o.warn(`applying the host's permission update failed: ${(e as Error).message}`);
    }
  }
}

export function askHostPermission(o: {
  control: Pick<StdinSession, "request">;
  cwd: string;
  timeoutMs: number;
  /** `interrupt: true` on a deny: end the running turn. */
  interrupt: () => void;
  /** The running turn's signal: an interrupt cancels the open question (control_cancel_request). */
  turnSignal: () => AbortSignal | undefined;
  target: PermissionUpdateTarget;
  warn: (m: string) => void;
}): AskPermission {
  return async (req) => {
    let r: Record<string, unknown>;
    try {
      r = await o.control.request(
        {
          subtype: "can_use_tool",
          tool_name: req.toolName,
          display_name: req.toolName,
          input: req.input,
          permission_suggestions: permissionSuggestions(req.toolName, req.input, o.cwd),
          ...(req.toolUseId ? { tool_use_id: req.toolUseId } : {}),
          decision_reason: req.reason,
        },
        { timeoutMs: o.timeoutMs, signal: o.turnSignal() },
      );
    } catch (err) {
      const why = (err as Error).message;
      o.warn(`permission for ${req.toolName} denied: ${why}`);
      return { allow: false, feedback: `the host could not be asked (${why})` };
    }
    if (r.behavior === "allow") {
      applyPermissionUpdates(r.updatedPermissions, { target: o.target, projectDir: o.cwd, warn: o.warn });
      const input = r.updatedInput && typeof r.updatedInput === "object" && !Array.isArray(r.updatedInput) ? (r.updatedInput as Record<string, unknown>) : undefined;
      return { allow: true, ...(input ? { input } : {}) };
    }
    if (r.behavior === "deny") {
      if (r.interrupt === true) o.interrupt();
      return { allow: false, feedback: typeof r.message === "string" && r.message ? r.message : undefined };
    }
    o.warn(`the host's can_use_tool answer for ${req.toolName} has no behavior "allow" or "deny"; denied`);
    return { allow: false, feedback: 'the host answered without "behavior": "allow" or "deny"' };
  };
}
