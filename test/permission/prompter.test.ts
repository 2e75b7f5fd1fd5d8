import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadSettings } from "../../src/config/load.ts";
import { createPermissionEvaluator } from "../../src/permission/evaluator.ts";
import { type PermissionRequest, type Prompter, type PromptAnswer, persistAllowRule, promptForDecision, suggestRule } from "../../src/permission/prompter.ts";
import { tempProject } from "./settings-fixture.ts";

const t = tempProject("yoke-perm-prompt-");
afterAll(t.cleanup);

/** A Prompter that answers from a script and records what it was asked. */
function scripted(answers: (PromptAnswer | Error)[]): Prompter & { asked: PermissionRequest[] } {
  const asked: PermissionRequest[] = [];
  return {
    asked,
    async ask(req) {
      asked.push(req);
      const a = answers.shift();
      if (!a) throw new Error("script exhausted");
      if (a instanceof Error) throw a;
      return a;
    },
  };
}
const env = { HOME: t.home, CLAUDE_CONFIG_DIR: join(t.home, ".claude"), YOKE_CONFIG_DIR: join(t.home, ".yoke") };

describe("suggestRule", () => {
  test("Bash prefix of program and subcommand; files by folder; WebFetch by domain", () => {
    expect(suggestRule("Bash", { command: "npm test -- --watch" }, t.cwd)).toBe("Bash(npm test:*)");
    expect(suggestRule("Bash", { command: "make" }, t.cwd)).toBe("Bash(make:*)");
    expect(suggestRule("Bash", { command: "ls | rm x" }, t.cwd)).toBeUndefined();
    expect(suggestRule("Edit", { file_path: join(t.cwd, "src", "a.ts") }, t.cwd)).toBe("Edit(/src/**)");
    expect(suggestRule("WebFetch", { url: "https://docs.x.io/a" }, t.cwd)).toBe("WebFetch(domain:docs.x.io)");
  });
});

describe("promptForDecision with a scripted Prompter", () => {
  const ask = { behavior: "ask" as const, reason: "needs approval" };
  test("allow_once allows without writing", async () => {
    const p = scripted([{ kind: "allow_once" }]);
    const d = await promptForDecision(p, { toolName: "Bash", input: { command: "npm test" }, decision: ask, cwd: t.cwd, projectDir: t.cwd });
    expect(d.behavior).toBe("allow");
    expect(p.asked[0]?.suggestedRule).toBe("Bash(npm test:*)");
    expect(existsSync(join(t.cwd, ".claude", "settings.local.json"))).toBe(false);
  });
  test("allow_always writes the rule to settings.local.json, keeping other keys; the next evaluator allows", async () => {
    mkdirSync(join(t.cwd, ".claude"), { recursive: true });
    writeFileSync(join(t.cwd, ".claude", "settings.local.json"), JSON.stringify({ model: "opus", permissions: { deny: ["Read(.env)"], allow: ["Read"] } }));
    const p = scripted([{ kind: "allow_always" }]);
    const d = await promptForDecision(p, { toolName: "Bash", input: { command: "npm test" }, decision: ask, cwd: t.cwd, projectDir: t.cwd });
    expect(d.behavior).toBe("allow");
    const saved = JSON.parse(readFileSync(join(t.cwd, ".claude", "settings.local.json"), "utf8"));
    expect(saved).toEqual({ model: "opus", permissions: { deny: ["Read(.env)"], allow: ["Read", "Bash(npm test:*)"] } });
    expect(readdirSync(join(t.cwd, ".claude")).filter((f) => f.endsWith(".tmp"))).toEqual([]);
    const ev = createPermissionEvaluator({ settings: loadSettings({ cwd: t.cwd, env }), cwd: t.cwd, env });
    expect(ev.decide({ toolName: "Bash", input: { command: "npm test --ci" }, readOnly: false, cwd: t.cwd }).behavior).toBe("allow");
    // A second allow_always of the same rule does not duplicate it.
    persistAllowRule(t.cwd, "Bash(npm test:*)");
    expect(JSON.parse(readFileSync(join(t.cwd, ".claude", "settings.local.json"), "utf8")).permissions.allow).toEqual(["Read", "Bash(npm test:*)"]);
  });
  test("deny carries the user's feedback; a failing prompter denies", async () => {
    const d = await promptForDecision(scripted([{ kind: "deny", feedback: "use pnpm" }]), { toolName: "Bash", input: { command: "npm i" }, decision: ask, cwd: t.cwd, projectDir: t.cwd });
    expect(d).toMatchObject({ behavior: "deny" });
    expect(d.reason).toContain("use pnpm");
    const f = await promptForDecision(scripted([new Error("tty closed")]), { toolName: "Bash", input: { command: "npm i" }, decision: ask, cwd: t.cwd, projectDir: t.cwd });
    expect(f.behavior).toBe("deny");
    expect(f.reason).toContain("tty closed");
  });
  test("non-ask decisions never reach the prompter", async () => {
    const p = scripted([]);
    const d = await promptForDecision(p, { toolName: "Read", input: {}, decision: { behavior: "deny", reason: "x" }, cwd: t.cwd, projectDir: t.cwd });
    expect(d.behavior).toBe("deny");
    expect(p.asked.length).toBe(0);
  });
  test("a broken settings.local.json is not overwritten; the error names the file", () => {
    const dir = join(t.root, "broken");
    mkdirSync(join(dir, ".claude"), { recursive: true });
    writeFileSync(join(dir, ".claude", "settings.local.json"), "{ nope");
    expect(() => persistAllowRule(dir, "Read")).toThrow(/settings\.local\.json/);
    expect(readFileSync(join(dir, ".claude", "settings.local.json"), "utf8")).toBe("{ nope");
  });
});
