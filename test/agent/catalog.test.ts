// Custom agent files (contracts §6.4): frontmatter, precedence project > user > built-in, clear errors.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { loadAgents } from "../../src/agent/load.ts";
import { parseAgentFile } from "../../src/agent/parse.ts";
import { tempDir, writeTree } from "../helpers/tmp.ts";

const file = (fm: string, body = "You review code.") => `---\n${fm}\n---\n${body}\n`;

describe("parseAgentFile (contracts §6.4)", () => {
  test("all supported fields; body is the system prompt", () => {
    const r = parseAgentFile(
      file("name: code-reviewer\ndescription: Reviews diffs\ntools: Read, Grep, Bash(git *)\ndisallowedTools: [Write]\nmodel: haiku\nmaxTurns: 7\ncolor: blue", "Be strict.\n\nReally."),
      "/p/a.md",
      "project",
    );
    expect(r).toEqual({
      ok: true,
      agent: {
        name: "code-reviewer",
        description: "Reviews diffs",
        systemPrompt: "Be strict.\n\nReally.",
        tools: ["Read", "Grep", "Bash(git *)"],
        disallowedTools: ["Write"],
        model: "haiku",
        maxTurns: 7,
        source: "project",
        file: "/p/a.md",
      },
    });
  });

  test("tools as a YAML list; omitted tools stay undefined (inherit all)", () => {
    const a = parseAgentFile(file("name: a\ndescription: d\ntools:\n  - Read\n  - Glob"), "/a.md", "user");
    expect(a.ok && a.agent.tools).toEqual(["Read", "Glob"]);
    const b = parseAgentFile(file("name: b\ndescription: d"), "/b.md", "user");
    expect(b.ok && b.agent.tools).toBeUndefined();
  });

  test("an unquoted colon in description (invalid YAML) still loads, as in Claude Code", () => {
    const r = parseAgentFile(file("name: helper\ndescription: Use this when: tests fail\n  or builds break\ntools: Read"), "/h.md", "project");
    expect(r.ok).toBe(true);
    if (r.ok) {
      expect(r.agent.description).toBe("Use this when: tests fail or builds break");
      expect(r.agent.tools).toEqual(["Read"]);
    }
  });

  test.each([
    ["no frontmatter", "just text", "no frontmatter"],
    ["missing name", file("description: d"), 'field "name" is required'],
    ["missing description", file("name: x"), 'field "description" is required'],
    ["bad name", file("name: my:agent\ndescription: d"), 'field "name": "my:agent"'],
    ["bad tools", file("name: x\ndescription: d\ntools: {a: 1}"), 'field "tools" must be'],
    ["bad maxTurns", file("name: x\ndescription: d\nmaxTurns: 0"), 'field "maxTurns" must be a positive whole number'],
    ["bad model", file("name: x\ndescription: d\nmodel: 5"), 'field "model"'],
  ])("%s → error naming the file and field", (_label, text, want) => {
    const r = parseAgentFile(text, "/x/agent.md", "project");
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.startsWith("/x/agent.md")).toBe(true);
      expect(r.error).toContain(want);
    }
  });

  test("YAML that cannot be read even loosely names the line", () => {
    const r = parseAgentFile("---\nname: x\ndescription: [unclosed\n[oops\n---\nbody", "/y.md", "user");
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/^\/y\.md(:\d+)?: invalid YAML frontmatter/);
  });
});

describe("loadAgents", () => {
  test("built-ins, user, project (recursive); project beats user beats built-in; bad files skipped with warnings", () => {
    const home = tempDir();
    const proj = join(tempDir(), "repo", "pkg");
    writeTree(home, {
      ".claude/agents/shared.md": file("name: shared\ndescription: from user"),
      ".claude/agents/only-user.md": file("name: only-user\ndescription: user one"),
    });
    writeTree(join(proj, ".."), { ".claude/agents/outer.md": file("name: shared\ndescription: from outer project") });
    writeTree(proj, {
      ".claude/agents/deep/nested/shared.md": file("name: shared\ndescription: from project"),
      ".claude/agents/explore.md": file("name: Explore\ndescription: my explore", "Custom explore prompt"),
      ".claude/agents/broken.md": file("description: no name"),
      ".claude/agents/notes.txt": "ignored",
    });
    const { agents, warnings } = loadAgents({ cwd: proj, env: { HOME: home } });
    const by = Object.fromEntries(agents.map((a) => [a.name, a]));
    expect(by.shared!.description).toBe("from project");
    expect(by.shared!.source).toBe("project");
    expect(by["only-user"]!.source).toBe("user");
    expect(by.Explore!.systemPrompt).toBe("Custom explore prompt");
    expect(by["general-purpose"]!.source).toBe("built-in");
    expect(by.Verify!.source).toBe("built-in");
    expect(by.Review!.source).toBe("built-in");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(join(proj, ".claude/agents/broken.md"));
    expect(warnings[0]).toContain('field "name" is required');
  });

  test("CLAUDE_CONFIG_DIR moves the user folder; two files with one name in one folder: first wins, warned", () => {
    const cfg = tempDir();
    writeTree(cfg, { "agents/a.md": file("name: dup\ndescription: first"), "agents/b.md": file("name: dup\ndescription: second") });
    const { agents, warnings } = loadAgents({ cwd: tempDir(), env: { CLAUDE_CONFIG_DIR: cfg, HOME: tempDir() } });
    expect(agents.find((a) => a.name === "dup")!.description).toBe("first");
    expect(warnings.join("\n")).toContain("already defined");
  });

  test("plugin agents are named plugin:name (contracts §1.3) and rank below user agents", () => {
    const plug = tempDir();
    const home = tempDir();
    writeTree(plug, { "agents/reviewer.md": file("name: reviewer\ndescription: plugin reviewer"), "agents/only.md": file("name: only\ndescription: plugin only") });
    writeTree(home, { ".claude/agents/r.md": file("name: my-plugin:only\ndescription: x") });
    const { agents, warnings } = loadAgents({ cwd: tempDir(), env: { HOME: home }, pluginDirs: [{ plugin: "my-plugin", dir: join(plug, "agents") }] });
    const by = Object.fromEntries(agents.map((a) => [a.name, a]));
    expect(by["my-plugin:reviewer"]).toMatchObject({ source: "plugin", description: "plugin reviewer" });
    expect(by["my-plugin:only"]).toMatchObject({ source: "plugin" });
    // A colon is not allowed in a file's own name, so a user file cannot pose as a plugin agent.
    expect(warnings.join("\n")).toContain('field "name": "my-plugin:only"');
  });
});
