import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { discoverExtensions } from "../../src/extension/discover.ts";
import { openDiscoveryCache } from "../../src/extension/discovery-cache.ts";
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

  // Issue 14 point 7: most files are read by the one-match frontmatter path now, the rest by the YAML library; each
  // field a skill or command has (contracts §6.2, §6.3) must come out the same either way, in the shapes files arrive
  // in, on a first start (an empty cache) as without a cache.
  test("every frontmatter field, in CRLF, with a BOM, without frontmatter, with `---` or non-UTF-8 bytes in a value", () => {
    const repo = tempDir("yoke-ext-fields-");
    const long = "word ".repeat(600).trim();
    writeTree(repo, {
      ".git/HEAD": "ref: refs/heads/main\n",
      ".claude/skills/crlf/SKILL.md":
        "---\r\nname: crlf\r\ndescription: Reads CRLF files\r\nallowed-tools: Read, Grep\r\nmodel: opus\r\nwhen_to_use: when the lines end in CRLF\r\nargument-hint: <path>\r\n---\r\nBODY\r\n",
      ".claude/skills/bom/SKILL.md": "\uFEFF---\ndescription: starts with a BOM\ndisable-model-invocation: true\nuser-invocable: False\n---\nBODY\n",
      ".claude/skills/dashes/SKILL.md": "---\ndescription: a --- b -- c\nmodel: inherit\n---\nBODY\n",
      ".claude/skills/ends-dashes/SKILL.md": "---\ndescription: ends ---\nmodel: opus\n---\nBODY\n",
      ".claude/skills/colon/SKILL.md": "---\ndescription: Use this when: the diff is big\ndisable-model-invocation: true\ncontext: fork\nagent: Explore\n---\n",
      ".claude/skills/typed/SKILL.md": "---\ndescription: \"quoted: yes\"\nallowed-tools:\n  - Bash(git:*)\n  - Read\nhooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n          command: echo hi\npaths: src/**\n---\n",
      ".claude/skills/long/SKILL.md": `---\ndescription: ${long}\nallowed-tools: Read\n---\nBODY\n`,
      ".claude/skills/plain/SKILL.md": "# A title line\nno frontmatter at all\n",
      ".claude/skills/broken/SKILL.md": "---\nname: ok\ndescription: [unclosed\n= oops\n---\n",
      ".claude/commands/tools/go.md": "---\r\ndescription: Runs it\r\nargument-hint: <file> [mode]\r\nallowed-tools: Bash(${CLAUDE_PLUGIN_ROOT}/x:*)\r\n---\r\nGo $ARGUMENTS\r\n",
      ".claude/commands/heading.md": "\n\n## Heading first\nthen text\n",
    });
    // Bytes that are not UTF-8 in a description: the replacement character, as any reader of the file as text gives.
    mkdirSync(join(repo, ".claude/skills/latin1"));
    writeFileSync(join(repo, ".claude/skills/latin1/SKILL.md"), Buffer.concat([Buffer.from("---\ndescription: caf"), Buffer.from([0xe9, 0x20, 0xff]), Buffer.from("\n---\n")]));
    const o = { cwd: repo, userDir: join(tempDir("yoke-ext-fields-home-"), ".claude") };
    const found = discoverExtensions(o);
    const by = (n: string) => found.commands.find((c) => c.name === n)!;
    expect(by("crlf")).toMatchObject({
      description: "Reads CRLF files",
      allowedTools: ["Read", "Grep"],
      model: "opus",
      whenToUse: "when the lines end in CRLF",
      argumentHint: "<path>",
      baseDir: join(repo, ".claude/skills/crlf"),
      disableModelInvocation: false,
      userInvocable: true,
    });
    expect(by("bom")).toMatchObject({ description: "starts with a BOM", disableModelInvocation: true, userInvocable: false });
    expect(by("dashes").description).toBe("a --- b -- c");
    expect(by("dashes").model).toBeUndefined();
    // A line ending in `---` closes the block, as the YAML reader always took it: the rest is body.
    expect(by("ends-dashes").description).toBe("ends");
    expect(by("ends-dashes").model).toBeUndefined();
    expect(by("colon")).toMatchObject({ description: "Use this when: the diff is big", disableModelInvocation: true, fork: { agent: "Explore" } });
    expect(by("typed")).toMatchObject({ description: "quoted: yes", allowedTools: ["Bash(git:*)", "Read"], hooks: { PreToolUse: [{ matcher: "Bash" }] } });
    expect(by("long").description).toBe(long);
    expect(by("plain").description).toBe("A title line");
    expect(by("latin1").description).toBe("caf\ufffd \ufffd");
    expect(by("go")).toMatchObject({ description: "Runs it (project:tools)", aliases: ["tools:go"], argumentHint: "<file> [mode]", allowedTools: ["Bash(${CLAUDE_PLUGIN_ROOT}/x:*)"], baseDir: null });
    expect(by("heading").description).toBe("Heading first");
    expect(found.problems).toEqual([{ file: `${join(repo, ".claude/skills/broken/SKILL.md")}:4`, message: expect.stringMatching(/^invalid YAML frontmatter: .* \(not loaded\)$/) }]);
    // A first start (an empty cache) reads the same, and so does the next start from the cache.
    const state = tempDir("yoke-ext-fields-state-");
    const first = openDiscoveryCache(join(state, "c.json"), "v");
    expect(discoverExtensions({ ...o, cache: first })).toEqual(found);
    first.save();
    expect(discoverExtensions({ ...o, cache: openDiscoveryCache(join(state, "c.json"), "v") })).toEqual(found);
  });
});
