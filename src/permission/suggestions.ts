import { suggestRule } from "./prompter.ts";

/** contracts §1.6 `PermissionUpdate`, the shape of PermissionRequest's `permission_suggestions`. */
export type PermissionUpdate = {
  type: "addRules";
  rules: Array<{ toolName: string; ruleContent?: string }>;
  behavior: "allow";
  destination: "localSettings";
};

/**
 * What "allow always" would add for this call, as Claude Code offers it to PermissionRequest hooks and SDK hosts
 * (contracts §1.4 `permission_suggestions`): the rule the terminal prompt suggests, saved to local settings. Pure.
 */
export function permissionSuggestions(toolName: string, input: Record<string, unknown>, cwd: string): PermissionUpdate[] {
  const rule = suggestRule(toolName, input, cwd);
  if (!rule) return [];
  const m = /^([^(]+)\((.*)\)$/s.exec(rule);
  const entry = m ? { toolName: m[1]!, ruleContent: m[2]! } : { toolName: rule };
  return [{ type: "addRules", rules: [entry], behavior: "allow", destination: "localSettings" }];
}
