import { describe, expect, test } from "bun:test";
import { bypassDisabledBy, checkModeAllowed, denyInsteadOfPromptingFrom, resolveHeadless } from "../../src/permission/modes.ts";
import { settingsOf } from "./settings-fixture.ts";
import type { PermissionDecision } from "../../src/permission/types.ts";

describe("checkModeAllowed (contracts §3.3)", () => {
  test("bypassPermissions as root needs IS_SANDBOX=1", () => {
    expect(checkModeAllowed("bypassPermissions", { uid: 0, env: {} })).toContain("root");
    expect(checkModeAllowed("bypassPermissions", { uid: 0, env: { IS_SANDBOX: "1" } })).toBeNull();
    expect(checkModeAllowed("bypassPermissions", { uid: 1000, env: {} })).toBeNull();
    expect(checkModeAllowed("default", { uid: 0, env: {} })).toBeNull();
    expect(checkModeAllowed("bypassPermissions", { uid: 1000, env: {}, disableBypass: true })).toContain("disableBypassPermissionsMode");
  });
});

describe("resolveHeadless (contracts §3.4, user-demand need 3)", () => {
  const rule = { toolName: "Bash", specifier: "git push:*", text: "Bash(git push:*)", source: { file: "/p/.claude/settings.json", index: 2, list: "ask" as const } };
  test("ask becomes deny naming the rule and the absent user", () => {
    const d = resolveHeadless({ behavior: "ask", reason: "Rule asks.", rule });
    expect(d.behavior).toBe("deny");
    expect(d.reason).toContain("no user is present");
    expect(d.reason).toContain("Bash(git push:*)");
    expect(d.reason).toContain("/p/.claude/settings.json[2]");
    expect(d.rule).toBe(rule);
  });
  test("denyInsteadOfPrompting wording; allow and deny pass through unchanged", () => {
    expect(resolveHeadless({ behavior: "ask", reason: "x" }, { denyInsteadOfPrompting: true }).reason).toContain("denyInsteadOfPrompting");
    const allow: PermissionDecision = { behavior: "allow", reason: "ok" };
    expect(resolveHeadless(allow)).toBe(allow);
    const deny: PermissionDecision = { behavior: "deny", reason: "no" };
    expect(resolveHeadless(deny)).toBe(deny);
  });
});

describe("settings helpers (contracts §2.2)", () => {
  test("denyInsteadOfPrompting only from user/flag/managed", () => {
    expect(denyInsteadOfPromptingFrom(settingsOf({ level: "project", ruleRoot: "/p", permissions: { denyInsteadOfPrompting: true } }))).toBe(false);
    expect(denyInsteadOfPromptingFrom(settingsOf({ level: "user", ruleRoot: "/h", permissions: { denyInsteadOfPrompting: true } }))).toBe(true);
  });
  test("disableBypassPermissionsMode from any level", () => {
    expect(bypassDisabledBy(settingsOf({ level: "project", ruleRoot: "/p", permissions: { disableBypassPermissionsMode: "disable" } }))).toBe(true);
    expect(bypassDisabledBy(settingsOf({ ruleRoot: "/p", permissions: {} }))).toBe(false);
  });
});
