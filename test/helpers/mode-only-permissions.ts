import type { PermissionEvaluator, PermissionMode } from "../../src/permission/types.ts";

/**
* A permission evaluator by mode alone, for loop unit tests: bypassPermissions and acceptEdits run
 * every tool; the other modes run read-only tools and ask for the rest (headless turns that into a denial).
 */
export function modeOnlyEvaluator(mode: PermissionMode, deniedTools: string[] = []): PermissionEvaluator {
  const denied = new Set(deniedTools);
  return {
    mode,
    isToolHidden: (name) => denied.has(name),
    decide(q) {
      if (denied.has(q.toolName)) return { behavior: "deny", reason: `${q.toolName} is disabled by --disallowedTools.` };
      if (q.hookDecision === "deny") return { behavior: "deny", reason: "Denied by a PreToolUse hook." };
      if (mode === "bypassPermissions" || mode === "acceptEdits") return { behavior: "allow", reason: `mode ${mode}` };
      if (q.readOnly || q.hookDecision === "allow") return { behavior: "allow", reason: "read-only tool" };
      if (mode === "dontAsk" || mode === "plan")
        return { behavior: "deny", reason: `${q.toolName} is not allowed in ${mode} mode.` };
      return { behavior: "ask", reason: `${q.toolName} needs approval in ${mode} mode.` };
    },
  };
}
