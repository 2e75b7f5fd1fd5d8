import { afterAll, describe, expect, test } from "bun:test";
import { createPermissionEvaluator, explainDecision, formatExplanation } from "../../src/permission/index.ts";
import { settingsOf, tempProject } from "./settings-fixture.ts";

const t = tempProject("yoke-perm-explain-");
afterAll(t.cleanup);

describe("explainDecision / formatExplanation", () => {
  const ev = createPermissionEvaluator({ settings: settingsOf({ ruleRoot: t.cwd, permissions: { deny: ["Bash(rm:*)"], allow: ["Bash(npm test:*)"] } }), cwd: t.cwd, env: t.env });
  test("names the deciding rule, its file, index and list", () => {
    const e = explainDecision(ev, "Bash", { command: "ls && rm -rf x" });
    expect(e.decision).toBe("deny");
    expect(e.mode).toBe("default");
    expect(e.rule).toEqual({ text: "Bash(rm:*)", file: `${t.cwd}/.claude/settings.json`, index: 0, list: "deny" });
    const text = formatExplanation(e);
    expect(text).toContain("decision: deny");
    expect(text).toContain("mode: default");
    expect(text).toContain(`from: ${t.cwd}/.claude/settings.json (permissions.deny[0])`);
  });
  test("says why when nothing matched", () => {
    const e = explainDecision(ev, "Bash", { command: "make" });
    expect(e.decision).toBe("ask");
    expect(e.rule).toBeUndefined();
    expect(formatExplanation(e)).toContain("rule: none matched");
    expect(e.steps.join("\n")).toContain("no rule matched");
  });
  test("says what a headless run would do: an ask is a denial there (contracts §3.4)", () => {
    const asked = explainDecision(ev, "Bash", { command: "make" });
    expect(asked.headless).toBe("deny");
    expect(asked.headlessReason).toContain("no user is present");
    expect(formatExplanation(asked)).toContain("decision: ask (headless -p: deny");
    const allowed = explainDecision(ev, "Bash", { command: "npm test" });
    expect(allowed.headless).toBe("allow");
    expect(formatExplanation({ ...allowed, modeProblem: "refused as root" })).toContain("warning: a run in this mode would not start: refused as root");
  });
});
