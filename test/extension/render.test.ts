// Issue 14 points 1–2: argument substitution, `!` and `@` detection, the listing budget, re-injection, discovery.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { discoverExtensions, projectDirs } from "../../src/extension/discover.ts";
import { listingBudgetChars, listingLimits, reinjectedSkills, skillListing } from "../../src/extension/listing.ts";
import { fileMentions, shellSpans, splitArgs, substitute } from "../../src/extension/render.ts";
import type { SlashCommand } from "../../src/extension/types.ts";
import { tempDir, writeTree } from "../helpers/tmp.ts";

const cmd = (over: Partial<SlashCommand> = {}): SlashCommand => ({
  name: "x",
  aliases: [],
  kind: "command",
  source: "project",
  file: "/p/.claude/commands/x.md",
  baseDir: null,
  description: "does x",
  argNames: [],
  allowedTools: [],
  disableModelInvocation: false,
  userInvocable: true,
  ...over,
});
const vars = { sessionId: "S1", projectDir: "/proj" };

describe("arguments (contracts §6.2, observed in 2.1.332: $0 is the first argument)", () => {
  test("shell-style splitting", () => {
    expect(splitArgs(`a "b c" 'd e' f\\ g ""`)).toEqual(["a", "b c", "d e", "f g", ""]);
    expect(splitArgs("   ")).toEqual([]);
  });
  test("$ARGUMENTS, $ARGUMENTS[N], $N, named arguments and placeholders", () => {
    const c = cmd({ argNames: ["file", "mode"], baseDir: "/s/dir", plugin: { name: "pl", root: "/r", dataDir: "/d" } });
    const out = substitute("all=$ARGUMENTS first=$0 second=$1 idx=$ARGUMENTS[1] f=$file m=$mode none=$7 ${CLAUDE_SKILL_DIR} ${CLAUDE_PLUGIN_ROOT} ${CLAUDE_PLUGIN_DATA} ${CLAUDE_SESSION_ID} ${CLAUDE_PROJECT_DIR} ${CLAUDE_UNKNOWN}", c, `a.ts "fast mode"`, vars);
    expect(out).toBe(`all=a.ts "fast mode" first=a.ts second=fast mode idx=fast mode f=a.ts m=fast mode none= /s/dir /r /d S1 /proj \${CLAUDE_UNKNOWN}`);
  });
  test("no placeholder: non-empty arguments are appended; empty ones add nothing", () => {
    expect(substitute("Body.\n", cmd(), "x y", vars)).toBe("Body.\n\nARGUMENTS: x y");
    expect(substitute("Body.\n", cmd(), "  ", vars)).toBe("Body.\n");
    expect(substitute("Use $0.", cmd(), "x y", vars)).toBe("Use x.");
  });
  test("a dollar amount that is no placeholder stays", () => {
    expect(substitute("costs $ 5 and $HOME", cmd(), "", vars)).toBe("costs $ 5 and $HOME");
  });
});

describe("! commands and @ mentions", () => {
  test("inline and fenced shell spans, in order; a ! inside words is not one", () => {
    const body = "A !`git status` B\n```!\nls -1\necho hi\n```\nnot!`this` (!`pwd`)";
    expect(shellSpans(body).map((s) => s.command)).toEqual(["git status", "ls -1\necho hi", "pwd"]);
  });
  test("file mentions: paths, quoted paths; not e-mail addresses or @server:uri", () => {
    expect(fileMentions('See @src/a.ts, @"my file.md" and mail me@host.com or @db:table/1 (@./rel.txt).')).toEqual(["src/a.ts", "my file.md", "./rel.txt"]);
  });
});

describe("the listing stays within its budget (seed 000: descriptions in context)", () => {
  const many = Array.from({ length: 150 }, (_, i) => cmd({ name: `cmd-${i}`, description: `Does thing number ${i} `.repeat(20) }));
  test("everything fits: full descriptions; disable-model-invocation entries are not listed", () => {
    const t = skillListing([cmd({ name: "a", description: "alpha" }), cmd({ name: "b", description: "beta", disableModelInvocation: true })], 8000)!;
    expect(t).toContain("- a: alpha");
    expect(t).not.toContain("- b");
  });
  test("too much: each description is cut to a share, every name still listed, under the budget", () => {
    const budget = 40_000;
    const t = skillListing(many, budget)!;
    expect(t.length).toBeLessThanOrEqual(budget);
    for (let i = 0; i < 150; i++) expect(t).toContain(`- cmd-${i}: Does thing`);
  });
  test("the budget's edge: the listing whole when it fits to the character (with its newline), cut one character less", () => {
    const some = [cmd({ name: "a", description: "alpha" }), cmd({ name: "b", description: "" }), cmd({ name: "c", description: "gamma", whenToUse: "often" })];
    const whole = skillListing(some, 100_000)!;
    expect(whole).toEndWith("- a: alpha\n- b\n- c: gamma - often");
    expect(skillListing(some, whole.length + 1)).toBe(whole);
    expect(skillListing(some, whole.length)).not.toBe(whole);
    expect(skillListing([cmd({ name: "x", description: "x", disableModelInvocation: true })], 100_000)).toBeNull();
  });
  test("far too much: names only, then a count of the rest", () => {
    const t = skillListing(many, 1000)!;
    expect(t.length).toBeLessThanOrEqual(1000);
    expect(t).toMatch(/and \d+ more/);
  });
  test("the budget is about 1% of the context window", () => {
    expect(listingBudgetChars(200_000)).toBe(8000);
  });
  // Observed in 2.1.332: SLASH_COMMAND_TOOL_CHAR_BUDGET, then skillListingBudgetFraction × window × 4; skillListingMaxDescChars per description.
  describe("the limits as Claude Code 2.1.332 reads them", () => {
    const limits = (env: Record<string, string>, settings: Record<string, unknown>, contextWindow = 200_000) => {
      const said: string[] = [];
      return { ...listingLimits({ contextWindow, env, settings, warn: (m) => said.push(m) }), said };
    };
    test("defaults: 1% of the window in characters (×4), 1536 characters a description", () => {
      expect(limits({}, {})).toEqual({ budget: 8000, maxDescription: 1536, said: [] });
      expect(limits({}, {}, 1_000_000).budget).toBe(40_000);
    });
    test("SLASH_COMMAND_TOOL_CHAR_BUDGET wins over the fraction; skillListingBudgetFraction scales the window", () => {
      expect(limits({ SLASH_COMMAND_TOOL_CHAR_BUDGET: "3000" }, { skillListingBudgetFraction: 0.5 }).budget).toBe(3000);
      expect(limits({}, { skillListingBudgetFraction: 0.02 }).budget).toBe(16_000);
      expect(limits({}, { skillListingMaxDescChars: 40 }).maxDescription).toBe(40);
    });
    test("a value out of range is said, naming the variable or the key, and the default is used", () => {
      const bad = limits({ SLASH_COMMAND_TOOL_CHAR_BUDGET: "lots" }, { skillListingBudgetFraction: 2, skillListingMaxDescChars: -1 });
      expect(bad.budget).toBe(8000);
      expect(bad.maxDescription).toBe(1536);
      expect(bad.said).toHaveLength(3);
      expect(bad.said.join("\n")).toContain("SLASH_COMMAND_TOOL_CHAR_BUDGET");
      expect(bad.said.join("\n")).toContain('field "skillListingBudgetFraction"');
      expect(bad.said.join("\n")).toContain('field "skillListingMaxDescChars"');
    });
    test("the per-description cap cuts a long description with an ellipsis", () => {
      const t = skillListing([cmd({ description: "a".repeat(100) })], 8000, 40)!;
      expect(t).toContain(`- x: ${"a".repeat(39)}…`);
    });
  });
  test("nothing model-invocable: no listing", () => {
    expect(skillListing([cmd({ disableModelInvocation: true })], 8000)).toBeNull();
  });
});

describe("re-injection after compaction (seed 000 step 5, internals §6.4)", () => {
  test("most recent first, each once, a large one cut", () => {
    const t = reinjectedSkills([
      { name: "a", path: "/a/SKILL.md", content: "OLD-A" },
      { name: "b", path: "/b/SKILL.md", content: "B".repeat(30_000) },
      { name: "a", path: "/a/SKILL.md", content: "NEW-A" },
    ])!;
    expect(t.indexOf("### Skill: a")).toBeLessThan(t.indexOf("### Skill: b"));
    expect(t).toContain("NEW-A");
    expect(t).not.toContain("OLD-A");
    expect(t).toContain("Path: /b/SKILL.md");
    expect(t.length).toBeLessThan(25_000);
    expect(reinjectedSkills([])).toBeNull();
  });
});

describe("discovery", () => {
  test("project folders from cwd up to the repository root, closest winning; the user level beats them", () => {
    const repo = tempDir("yoke-ext-");
    const home = tempDir("yoke-ext-home-");
    writeTree(repo, {
      ".git/HEAD": "ref: refs/heads/main\n",
      ".claude/commands/top.md": "TOP\n",
      ".claude/commands/same.md": "---\ndescription: from the root\n---\n",
      "pkg/.claude/commands/same.md": "---\ndescription: from pkg\n---\n",
      "pkg/.claude/skills/mine/SKILL.md": "---\ndescription: project mine\n---\n",
    });
    writeTree(home, { ".claude/skills/mine/SKILL.md": "---\ndescription: personal mine\n---\n" });
    const cwd = join(repo, "pkg");
    expect(projectDirs(cwd)).toEqual([cwd, repo]);
    const d = discoverExtensions({ cwd, userDir: join(home, ".claude") });
    const by = (n: string) => d.commands.find((c) => c.name === n);
    expect(by("same")?.description).toBe("from pkg");
    expect(by("top")?.description).toBe("TOP");
    expect(by("mine")?.description).toBe("personal mine");
    expect(d.problems).toEqual([]);
  });
  test("a frontmatter block longer than the head read at discovery is read whole; a huge body is not read", () => {
    const dir = tempDir("yoke-ext-long-");
    const long = "word ".repeat(1500).trim();
    writeTree(dir, { ".claude/skills/long/SKILL.md": `---\ndescription: ${long}\nargument-hint: <x>\n---\n${"body\n".repeat(100_000)}` });
    const d = discoverExtensions({ cwd: dir, userDir: "/nonexistent" });
    expect(d.commands[0]!.description).toBe(long);
    expect(d.commands[0]!.argumentHint).toBe("<x>");
  });

  test("outside a repository only cwd's own folder counts", () => {
    const dir = tempDir("yoke-ext-norepo-");
    expect(projectDirs(dir)).toEqual([dir]);
  });
  test("plugin entries are namespaced; a plugin naming a missing command file is reported", () => {
    const root = tempDir("yoke-ext-plugin-");
    writeTree(root, { "skills/fmt/SKILL.md": "---\ndescription: formats\n---\n", "commands/go.md": "go\n" });
    const plugin = { name: "pl", root, dataDir: "/d" };
    const d = discoverExtensions({
      cwd: tempDir(),
      userDir: "/nonexistent",
      plugins: [{ source: "plugin", plugin, skillsDirs: [join(root, "skills")], commandsDirs: [join(root, "commands"), join(root, "extra/missing.md")] }],
    });
    expect(d.commands.map((c) => c.name).sort()).toEqual(["pl:fmt", "pl:go"]);
    expect(d.problems).toEqual([{ file: join(root, "extra/missing.md"), message: "no such file (named in plugin.json)" }]);
  });
});
