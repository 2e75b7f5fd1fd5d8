import { afterAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createPermissionEvaluator } from "../../src/permission/index.ts";
import type { PermissionMode } from "../../src/permission/types.ts";
import { type Perms, settingsOf, tempProject } from "./settings-fixture.ts";

// Issue 16 (red-team finding): with the kernel sandbox on, a Bash call that sets dangerouslyDisableSandbox
// leaves the last line of defence; the static analysis alone must never let it through.
const t = tempProject("yoke-sbx-escape-");
afterAll(t.cleanup);
writeFileSync(join(t.cwd, "README.md"), "hi");
const escapes = (input: Record<string, unknown>) => input.dangerouslyDisableSandbox === true;
const ev = (permissions: Perms, mode: PermissionMode = "default") =>
  createPermissionEvaluator({ settings: settingsOf({ ruleRoot: t.cwd, permissions }), cwd: t.cwd, env: t.env, mode, sandboxEscape: escapes });
const bash = (command: string, out: boolean) => ({ toolName: "Bash", input: { command, ...(out ? { dangerouslyDisableSandbox: true } : {}) }, readOnly: false, cwd: t.cwd });

describe("leaving the sandbox needs a rule or a user", () => {
  const readOnly = ["cat README.md", "git status", "ls -la", "grep -r hi .", "git grep hi README.md", "sort README.md"];
  for (const cmd of readOnly) {
    test(`read-only '${cmd}': allowed inside, asked outside`, () => {
      expect(ev({}).decide(bash(cmd, false)).behavior).toBe("allow");
      const d = ev({}).decide(bash(cmd, true));
      expect(d.behavior).toBe("ask");
      expect(d.reason).toContain("dangerouslyDisableSandbox");
    });
  }
  test("an allow rule still allows it; a deny rule still denies it", () => {
    expect(ev({ allow: ["Bash(cat:*)"] }).decide(bash("cat README.md", true)).behavior).toBe("allow");
    expect(ev({ deny: ["Bash(cat:*)"] }).decide(bash("cat README.md", true)).behavior).toBe("deny");
  });
  test("headless modes: dontAsk denies it, bypassPermissions allows it", () => {
    expect(ev({}, "dontAsk").decide(bash("cat README.md", true)).behavior).toBe("deny");
    expect(ev({}, "bypassPermissions").decide(bash("cat README.md", true)).behavior).toBe("allow");
  });
});
