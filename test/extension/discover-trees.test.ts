import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { discoverExtensions } from "../../src/extension/discover.ts";
import { tempDir, writeTree } from "../helpers/tmp.ts";

// Discovery reads each candidate SKILL.md without checking first that it is there (a failed open is the check) and
// only the head of each file: it must still find exactly what is there, on trees the issue does not name.
describe("discoverExtensions on odd trees", () => {
  test("a skill folder without SKILL.md, a stray file, a link, broken YAML, long frontmatter, clashes, nested commands", () => {
    const repo = tempDir("yoke-ext-async-");
    const home = tempDir("yoke-ext-async-home-");
    const long = "word ".repeat(1200).trim();
    writeTree(repo, {
      ".git/HEAD": "ref: refs/heads/main\n",
      ".claude/skills/ok/SKILL.md": "---\ndescription: fine\n---\nBODY\n",
      ".claude/skills/empty-folder/README.md": "no SKILL.md here\n",
      ".claude/skills/stray.md": "a file beside the skill folders\n",
      ".claude/skills/.hidden/SKILL.md": "---\ndescription: hidden\n---\n",
      ".claude/skills/broken/SKILL.md": "---\n- just\n- a list\n---\n",
      ".claude/skills/long/SKILL.md": `---\ndescription: ${long}\n---\n${"b\n".repeat(5000)}`,
      ".claude/skills/ok-cmd/SKILL.md": "---\ndescription: skill beats command\n---\n",
      ".claude/commands/ok-cmd.md": "the command loses\n",
      ".claude/commands/a/b/deep.md": "---\ndescription: deep\n---\n",
      ".claude/commands/.drafts/hidden-folder.md": "not loaded\n",
      ".claude/commands/a/.hidden-file.md": "not loaded\n",
      ".claude/commands/twin.md": "one\n",
      "sub/.claude/commands/twin.md": "closer\n",
      "elsewhere/SKILL.md": "---\ndescription: linked in\n---\n",
    });
    mkdirSync(join(repo, ".claude/skills/linked"), { recursive: true });
    symlinkSync(join(repo, "elsewhere/SKILL.md"), join(repo, ".claude/skills/linked/SKILL.md"));
    writeTree(home, { ".claude/skills/ok/SKILL.md": "---\ndescription: personal wins\n---\n", ".claude/commands/mine.md": "MINE\n" });
    const o = { cwd: join(repo, "sub"), userDir: join(home, ".claude") };
    const found = discoverExtensions(o);
    const names = found.commands.map((c) => c.name).sort();
    expect(names).toEqual(["deep", "linked", "long", "mine", "ok", "ok-cmd", "twin"]);
    expect(found.commands.find((c) => c.name === "ok")!.description).toBe("personal wins");
    expect(found.commands.find((c) => c.name === "twin")!.description).toBe("closer");
    expect(found.commands.find((c) => c.name === "long")!.description).toBe(long);
    expect(found.problems.map((p) => p.file)).toEqual([expect.stringContaining(join(repo, ".claude/skills/broken/SKILL.md"))]);
  });

  test("an unreadable SKILL.md is a problem naming it (not silently dropped as missing)", () => {
    if (process.getuid?.() === 0) return; // root reads anything; the permission cannot make it fail
    const dir = tempDir("yoke-ext-unreadable-");
    writeTree(dir, { ".claude/skills/locked/SKILL.md": "---\ndescription: x\n---\n" });
    chmodSync(join(dir, ".claude/skills/locked/SKILL.md"), 0);
    const o = { cwd: dir, userDir: "/nonexistent" };
    const a = discoverExtensions(o);
    expect(a.problems[0]!.message).toContain("cannot read");
  });
});
