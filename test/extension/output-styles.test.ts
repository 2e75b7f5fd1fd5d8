// Issue 14 point 5: output styles (contracts §6.5).
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { buildSystemPrompt } from "../../src/context/system-prompt.ts";
import { discoverOutputStyles, selectOutputStyle } from "../../src/extension/output-styles.ts";
import { tempDir, writeTree } from "../helpers/tmp.ts";

describe("discovery and selection", () => {
  test("built-ins, personal, project (closest wins), plugin namespaced; names compared without case", () => {
    const repo = tempDir("yoke-os-");
    const home = tempDir("yoke-os-home-");
    const plug = tempDir("yoke-os-plug-");
    writeTree(repo, {
      ".git/HEAD": "x",
      ".claude/output-styles/terse.md": "---\ndescription: root terse\n---\nROOT\n",
      "pkg/.claude/output-styles/terse.md": "---\ndescription: pkg terse\nkeep-coding-instructions: true\n---\nPKG\n",
    });
    writeTree(home, { ".claude/output-styles/pirate.md": "---\nname: Pirate\ndescription: Arr\n---\nTalk like a pirate.\n" });
    writeTree(plug, { "output-styles/teach.md": "---\ndescription: t\nforce-for-plugin: true\n---\nTEACH\n" });
    const { styles, problems } = discoverOutputStyles({ cwd: join(repo, "pkg"), userDir: join(home, ".claude"), plugins: [] });
    expect(problems).toEqual([]);
    const terse = styles.find((s) => s.name === "terse")!;
    expect(terse).toMatchObject({ prompt: "PKG", keepCodingInstructions: true });
    expect(styles.map((s) => s.name)).toEqual(expect.arrayContaining(["Explanatory", "Learning", "Concise", "Proactive", "Pirate", "terse"]));
    expect(selectOutputStyle(styles, "pirate").style?.prompt).toBe("Talk like a pirate.");
    expect(selectOutputStyle(styles, "default").style).toBeNull();
    expect(selectOutputStyle(styles, undefined).style).toBeNull();
    const unknown = selectOutputStyle(styles, "Nope");
    expect(unknown.style).toBeNull();
    expect(unknown.problem).toContain('outputStyle "Nope"');
    const withPlugin = discoverOutputStyles({ cwd: repo, userDir: "/nonexistent", plugins: [{ plugin: { name: "pl", root: plug, dataDir: "/d" }, dirs: [join(plug, "output-styles")] }] });
    // force-for-plugin wins over the setting.
    expect(selectOutputStyle(withPlugin.styles, "Concise").style?.name).toBe("pl:teach");
  });

  test("broken frontmatter is reported naming the file; the rest loads", () => {
    const repo = tempDir("yoke-os-");
    writeTree(repo, { ".claude/output-styles/bad.md": "---\n- nope\nx: [\n---\nB\n", ".claude/output-styles/good.md": "G\n" });
    const { styles, problems } = discoverOutputStyles({ cwd: repo, userDir: "/nonexistent", plugins: [] });
    expect(problems).toHaveLength(1);
    expect(problems[0]!.file).toContain(join(repo, ".claude/output-styles/bad.md"));
    expect(styles.find((s) => s.name === "good")?.prompt).toBe("G");
  });
});

describe("the system prompt", () => {
  const base = { cwd: "/p", model: "m", toolNames: ["Read"], date: new Date(0) };
  test("a style ends the prompt; without keep-coding-instructions the coding guidance is left out", () => {
    const plain = buildSystemPrompt(base).map((s) => s.name);
    expect(plain).toContain("how-to-work");
    const styled = buildSystemPrompt({ ...base, outputStyle: { name: "Pirate", prompt: "Arr.", keepCodingInstructions: false }, appendSystemPrompt: "APPEND" });
    expect(styled.map((s) => s.name)).not.toContain("how-to-work");
    expect(styled.at(-2)).toEqual({ name: "output-style", text: "# Output style: Pirate\nArr." });
    expect(styled.at(-1)!.name).toBe("append");
    const kept = buildSystemPrompt({ ...base, outputStyle: { name: "Explanatory", prompt: "x", keepCodingInstructions: true } });
    expect(kept.map((s) => s.name)).toContain("how-to-work");
  });
});
