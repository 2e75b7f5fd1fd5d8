import { afterAll, describe, expect, test } from "bun:test";
import { eventPayload } from "../../src/hook/events/index.ts";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadSettings } from "../../src/config/load.ts";
import { createPermissionEvaluator } from "../../src/permission/evaluator.ts";
import { createHookBus } from "../../src/hook/bus.ts";
import { runToolCall, type ToolRunnerDeps } from "../../src/loop/tool-runner.ts";
import { askPermissionVia, type PermissionRequest, type Prompter, type PromptAnswer, persistAllowRule, promptForDecision, suggestRule } from "../../src/permission/prompter.ts";
import { fileTools } from "../../src/tool/builtin/file-tools.ts";
import { createFileState } from "../../src/tool/file-state.ts";
import { createToolRegistry } from "../../src/tool/registry.ts";
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

describe("more Prompter answers (issue 5 §7)", () => {
  const ask = { behavior: "ask" as const, reason: "Editing needs approval." };
  test("allow_always with no settings.local.json yet creates it with just the rule; the next evaluator allows that folder only", async () => {
    const dir = join(t.root, "fresh");
    mkdirSync(join(dir, "src"), { recursive: true });
    const p = scripted([{ kind: "allow_always" }]);
    const d = await promptForDecision(p, { toolName: "Edit", input: { file_path: join(dir, "src", "a.ts") }, decision: ask, cwd: dir, projectDir: dir });
    expect(d.behavior).toBe("allow");
    expect(d.reason).toContain(join(dir, ".claude", "settings.local.json"));
    expect(p.asked[0]).toMatchObject({ toolName: "Edit", suggestedRule: "Edit(/src/**)", decision: ask });
    expect(JSON.parse(readFileSync(join(dir, ".claude", "settings.local.json"), "utf8"))).toEqual({ permissions: { allow: ["Edit(/src/**)"] } });
    const ev = createPermissionEvaluator({ settings: loadSettings({ cwd: dir, env }), cwd: dir, env });
    const edit = (f: string) => ev.decide({ toolName: "Edit", input: { file_path: join(dir, f), old_string: "a", new_string: "b" }, readOnly: false, cwd: dir }).behavior;
    expect(edit("src/b.ts")).toBe("allow");
    expect(edit("other/c.ts")).toBe("ask");
  });
  test("allow_always for a compound command allows this call once and saves nothing", async () => {
    const dir = join(t.root, "compound");
    mkdirSync(dir, { recursive: true });
    const p = scripted([{ kind: "allow_always" }]);
    const d = await promptForDecision(p, { toolName: "Bash", input: { command: "make && make install" }, decision: ask, cwd: dir, projectDir: dir });
    expect(d.behavior).toBe("allow");
    expect(p.asked[0]!.suggestedRule).toBeUndefined();
    expect(existsSync(join(dir, ".claude"))).toBe(false);
  });
  test("deny without feedback tells the model not to retry", async () => {
    const d = await promptForDecision(scripted([{ kind: "deny" }]), { toolName: "Bash", input: { command: "npm i" }, decision: ask, cwd: t.cwd, projectDir: t.cwd });
    expect(d.behavior).toBe("deny");
    expect(d.reason).toContain("Do not retry");
  });
});

describe("askPermissionVia: a Prompter driving the real tool runner (Write, default mode)", () => {
  const dir = join(t.root, "runner");
  mkdirSync(dir, { recursive: true });
  const settings = { merged: {}, sources: [] };
  const permissions = createPermissionEvaluator({ settings, cwd: dir, env });
  const hooks = createHookBus({ settings, projectDir: dir, cwd: () => dir, env, sessionId: "s", yokeDir: join(t.home, ".yoke") });
  const deps = (prompter: Prompter): ToolRunnerDeps => ({
    tools: createToolRegistry(fileTools),
    hooks,
    permissions,
    hookPayload: (event, fields) => eventPayload(event, { session_id: "s" }, fields),
    context: (toolUseId, signal) => ({
      cwd: dir,
      projectDir: dir,
      workingDirectories: [dir],
      sessionId: "s",
      signal,
      env,
      fileState: createFileState(),
      session: { cwd: dir, todos: [], envFiles: [] },
      toolUseId,
    }),
    askPermission: askPermissionVia(prompter, { cwd: () => dir, projectDir: dir }),
    clock: () => Date.now(),
  });
  const write = (name: string, id: string) => ({ type: "tool_use" as const, id, name: "Write", input: { file_path: join(dir, name), content: name } });
  const signal = new AbortController().signal;

  test("allow_once: the prompter sees the engine's reason, the file is written, nothing saved", async () => {
    const p = scripted([{ kind: "allow_once" }]);
    const out = await runToolCall(deps(p), write("once.txt", "t1"), signal);
    expect(out.block.is_error).toBe(false);
    expect(readFileSync(join(dir, "once.txt"), "utf8")).toBe("once.txt");
    expect(p.asked[0]!.decision.reason).toContain("needs approval");
    expect(existsSync(join(dir, ".claude", "settings.local.json"))).toBe(false);
  });
  test("deny with feedback: nothing written, the model reads the feedback, the call is a permission denial", async () => {
    const out = await runToolCall(deps(scripted([{ kind: "deny", feedback: "write to out/ instead" }])), write("no.txt", "t2"), signal);
    expect(out.block.is_error).toBe(true);
    expect(String(out.block.content)).toContain("write to out/ instead");
    expect(out.denial?.denial).toMatchObject({ tool_name: "Write", tool_use_id: "t2" });
    expect(existsSync(join(dir, "no.txt"))).toBe(false);
  });
  test("a prompter that fails denies, naming the failure", async () => {
    const out = await runToolCall(deps(scripted([new Error("terminal went away")])), write("fail.txt", "t3"), signal);
    expect(out.block.is_error).toBe(true);
    expect(String(out.block.content)).toContain("terminal went away");
    expect(existsSync(join(dir, "fail.txt"))).toBe(false);
  });
  test("allow_always saves Edit(/**) for the project; the next call in that folder is not asked", async () => {
    const p = scripted([{ kind: "allow_always" }]);
    const out = await runToolCall(deps(p), write("always.txt", "t4"), signal);
    expect(out.block.is_error).toBe(false);
    expect(JSON.parse(readFileSync(join(dir, ".claude", "settings.local.json"), "utf8")).permissions.allow).toEqual(["Edit(/**)"]);
    const fresh = createPermissionEvaluator({ settings: loadSettings({ cwd: dir, env }), cwd: dir, env });
    expect(fresh.decide({ toolName: "Write", input: { file_path: join(dir, "later.txt"), content: "x" }, readOnly: false, cwd: dir }).behavior).toBe("allow");
  });
});
