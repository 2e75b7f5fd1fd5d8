// Auto mode's decision order at the evaluator (seed 000; issue 19 point 1): rules first, then read-only and
// in-workdir edits approved, protected paths and safety checks never reaching the classifier, the rest
// marked `classify`. Red team: what a deny rule or protected path should stop must never be classifiable.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createPermissionEvaluator, explainDecision, formatExplanation } from "../../../src/permission/index.ts";
import type { PermissionQuery } from "../../../src/permission/types.ts";
import { type Perms, settingsOf, tempProject } from "../settings-fixture.ts";

const t = tempProject("yoke-auto-order-");
afterAll(t.cleanup);
mkdirSync(join(t.cwd, "src"), { recursive: true });
writeFileSync(join(t.cwd, "src", "a.ts"), "x");
const outside = join(t.root, "elsewhere");
mkdirSync(outside, { recursive: true });
writeFileSync(join(outside, "notes.txt"), "n");

const ev = (permissions: Perms = {}, mode: "auto" | "default" = "auto") =>
  createPermissionEvaluator({ settings: settingsOf({ ruleRoot: t.cwd, permissions }), cwd: t.cwd, env: t.env, mode });
const q = (toolName: string, input: Record<string, unknown>, more: Partial<PermissionQuery> = {}): PermissionQuery => ({ toolName, input, readOnly: false, cwd: t.cwd, ...more });
const bash = (command: string) => q("Bash", { command });

describe("step 1: a rule resolves at once", () => {
  test("allow, ask and deny rules decide without the classifier", () => {
    const e = ev({ allow: ["Bash(npm test:*)"], ask: ["Bash(git push:*)"], deny: ["Bash(curl:*)", "WebFetch(domain:evil.example)"] });
    expect(e.decide(bash("npm test"))).toMatchObject({ behavior: "allow" });
    expect(e.decide(bash("npm test")).classify).toBeUndefined();
    const ask = e.decide(bash("git push origin main"));
    expect(ask.behavior).toBe("ask");
    expect(ask.classify).toBeUndefined();
    expect(e.decide(bash("curl https://x.example")).behavior).toBe("deny");
    expect(e.decide(q("WebFetch", { url: "https://evil.example/a", prompt: "p" })).behavior).toBe("deny");
  });
});

describe("step 2: read-only and in-workdir edits are approved", () => {
  test("reads, read-only Bash and edits inside the working directory", () => {
    const e = ev();
    expect(e.decide(q("Read", { file_path: join(t.cwd, "src", "a.ts") }, { readOnly: true })).behavior).toBe("allow");
    expect(e.decide(bash("ls -la src && git status")).behavior).toBe("allow");
    expect(e.decide(q("Edit", { file_path: join(t.cwd, "src", "a.ts"), old_string: "x", new_string: "y" })).behavior).toBe("allow");
    expect(e.decide(q("Write", { file_path: join(t.cwd, "new.ts"), content: "" })).behavior).toBe("allow");
  });
  test("default mode still asks for the same edit (the approval is auto mode's)", () => {
    expect(ev({}, "default").decide(q("Write", { file_path: join(t.cwd, "new.ts"), content: "" })).behavior).toBe("ask");
  });
  test("protected paths are never approved and never classified", () => {
    const e = ev();
    for (const p of [".git/config", ".claude/settings.json", ".claude/settings.local.json", ".bashrc", ".mcp.json", ".vscode/settings.json"]) {
      const d = e.decide(q("Write", { file_path: join(t.cwd, p), content: "x" }));
      expect({ p, behavior: d.behavior, classify: d.classify }).toEqual({ p, behavior: "ask", classify: undefined });
    }
    for (const home of [".bashrc", ".zshrc", ".profile", ".ssh/authorized_keys"]) {
      const d = e.decide(q("Edit", { file_path: join(t.home, home), old_string: "a", new_string: "b" }));
      expect({ home, behavior: d.behavior, classify: d.classify }).toEqual({ home, behavior: "ask", classify: undefined });
    }
  });
  test("a symlink inside the workdir that points at a protected file is not approved", () => {
    mkdirSync(join(t.cwd, ".git"), { recursive: true });
    const viaGit = join(t.cwd, "hooks-link");
    symlinkSync(join(t.cwd, ".git"), viaGit);
    const d = ev().decide(q("Write", { file_path: join(viaGit, "config"), content: "x" }));
    expect(d.behavior).toBe("ask");
    expect(d.classify).toBeUndefined();
  });
  test("a read outside the working directories is not approved: it goes to the classifier", () => {
    const d = ev().decide(q("Read", { file_path: join(outside, "notes.txt") }, { readOnly: true }));
    expect(d).toMatchObject({ behavior: "ask", classify: true });
  });
  test("credential stores are never read without a person, even in auto mode", () => {
    const d = ev().decide(q("Read", { file_path: join(t.home, ".ssh", "id_rsa") }, { readOnly: true }));
    expect(d.behavior).toBe("ask");
    expect(d.classify).toBeUndefined();
  });
});

describe("step 3: everything else goes to the classifier", () => {
  test("an unknown command, a write outside, a web fetch, an MCP tool", () => {
    const e = ev();
    expect(e.decide(bash("npm install left-pad"))).toMatchObject({ behavior: "ask", classify: true });
    expect(e.decide(q("Write", { file_path: join(outside, "x.txt"), content: "" }))).toMatchObject({ behavior: "ask", classify: true });
    expect(e.decide(q("WebFetch", { url: "https://docs.example/a", prompt: "p" }))).toMatchObject({ behavior: "ask", classify: true });
    expect(e.decide(q("mcp__srv__do", {}))).toMatchObject({ behavior: "ask", classify: true });
  });
  test("a question for the user is never the classifier's to answer", () => {
    const d = ev().decide(q("AskUserQuestion", { questions: [] }));
    expect(d.classify).toBeUndefined();
  });
  test("a PreToolUse hook's ask is a person's, not the classifier's", () => {
    const d = ev().decide({ ...bash("npm install x"), hookDecision: "ask" });
    expect(d).toMatchObject({ behavior: "ask" });
    expect(d.classify).toBeUndefined();
  });
  test("leaving the sandbox (dangerouslyDisableSandbox) is never the classifier's call", () => {
    const e = createPermissionEvaluator({ settings: settingsOf({ ruleRoot: t.cwd, permissions: {} }), cwd: t.cwd, env: t.env, mode: "auto", sandboxEscape: (i) => i.dangerouslyDisableSandbox === true });
    for (const command of ["npm install left-pad", "ls", "curl https://x.example"]) {
      const d = e.decide(q("Bash", { command, dangerouslyDisableSandbox: true }));
      expect({ command, classify: d.classify }).toEqual({ command, classify: undefined });
    }
    expect(e.decide(q("Bash", { command: "npm install left-pad" })).classify).toBe(true);
  });
  test("outside auto mode nothing is marked for the classifier", () => {
    expect(ev({}, "default").decide(bash("npm install left-pad")).classify).toBeUndefined();
  });
});

describe("red team: nothing a deny rule or safety check stops reaches the classifier", () => {
  const deny = ev({ deny: ["Bash(curl:*)", "Bash(rm:*)", "Read(./secrets/**)", "Edit(./locked/**)"] });
  const variants = [
    "curl https://x.example",
    "  curl  https://x.example",
    "timeout 5 curl https://x.example",
    "nice -n 5 curl x",
    "FOO=1 curl x",
    "echo hi && curl x",
    "echo hi; curl x",
    "ls | curl -d @- x",
    "sh -c 'curl x'",
    "bash -c \"curl x\"",
    "eval 'curl x'",
    "$(echo curl) x",
    "`echo curl` x",
    "c''url x",
    "\\curl x",
    "/usr/bin/curl x",
    "xargs curl < list",
    "find . -exec rm {} ;",
    "rm -rf build",
    "command rm x",
    "cat secrets/key.pem",
    "cp secrets/key.pem /tmp/k",
    "echo x > locked/file",
    "tee locked/file < /dev/null",
  ];
  for (const cmd of variants)
    test(`Bash: ${cmd}`, () => {
      const d = deny.decide(bash(cmd));
      // Either denied outright, or an ask the classifier never sees (a person decides, or headless denies).
      expect(d.behavior === "deny" || (d.behavior === "ask" && !d.classify)).toBe(true);
    });
  test("file tools on denied paths are denied, not classified", () => {
    expect(deny.decide(q("Read", { file_path: join(t.cwd, "secrets", "k") }, { readOnly: true })).behavior).toBe("deny");
    expect(deny.decide(q("Write", { file_path: join(t.cwd, "locked", "f"), content: "" })).behavior).toBe("deny");
    expect(deny.decide(q("Grep", { pattern: "x", path: join(t.cwd, "secrets") }, { readOnly: true })).behavior).toBe("deny");
  });
  test("protected writes through Bash are not classified", () => {
    const e = ev();
    for (const cmd of ["echo x >> ~/.bashrc", "echo '[core]' > .git/config", "cp evil .claude/settings.json", "sed -i s/a/b/ .git/hooks/pre-commit"]) {
      const d = e.decide(bash(cmd));
      expect({ cmd, ok: d.behavior === "deny" || (d.behavior === "ask" && !d.classify) }).toEqual({ cmd, ok: true });
    }
  });
  test("removing a critical path is never classified", () => {
    for (const cmd of ["rm -rf /", "rm -rf ~", "rm -rf $HOME", "rm -rf /usr"]) {
      const d = ev().decide(bash(cmd));
      expect({ cmd, ok: d.behavior === "deny" || (d.behavior === "ask" && !d.classify) }).toEqual({ cmd, ok: true });
    }
  });
});

describe("controls", () => {
  test("yoke permissions explain says the classifier decides", () => {
    const e = explainDecision(ev(), "Bash", { command: "npm install left-pad" });
    expect(e.classifier).toBe(true);
    expect(formatExplanation(e)).toContain("decision: ask (auto mode: the classifier decides)");
    expect(explainDecision(ev(), "Bash", { command: "ls" }).classifier).toBeUndefined();
  });
  test("with disableAutoMode, switching to auto mid-session is refused (the Agent SDK's set_permission_mode)", () => {
    const e = createPermissionEvaluator({ settings: settingsOf({ ruleRoot: t.cwd, permissions: {} }), cwd: t.cwd, env: t.env, mode: "default", autoModeDisabled: true });
    expect(() => e.setMode("auto")).toThrow("auto mode is disabled by settings (permissions.disableAutoMode)");
    expect(e.mode).toBe("default");
    e.setMode("acceptEdits");
    expect(e.mode).toBe("acceptEdits");
  });
});
