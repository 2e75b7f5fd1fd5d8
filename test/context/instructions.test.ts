import { describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { discoverInstructions } from "../../src/context/instructions.ts";
import { renderInstructions, renderNestedInstruction } from "../../src/context/render.ts";
import type { InstructionFile } from "../../src/context/types.ts";
import { envFor, noSettings, settingsOf, tempRoot, writeTree } from "./helpers.ts";

const shown = (files: InstructionFile[]) => files.filter((f) => f.status === "included" || f.status === "truncated");
const contents = (files: InstructionFile[]) => shown(files).map((f) => f.content);

describe("Claude Code load order (internals §1.1, contracts §8)", () => {
  test("managed, user, then each directory top-down: CLAUDE.md, .claude/CLAUDE.md, rules, CLAUDE.local.md", () => {
    const R = tempRoot();
    writeTree(R, {
      "managed/CLAUDE.md": "managed",
      "managed/.claude/rules/m.md": "managed rule",
      "home/.claude/CLAUDE.md": "user",
      "home/.claude/rules/sub/u.md": "user rule",
      "repo/CLAUDE.md": "repo",
      "repo/.claude/CLAUDE.md": "repo dot",
      "repo/.claude/rules/b.md": "rule b",
      "repo/.claude/rules/a/x.md": "rule a/x",
      "repo/.claude/rules/not-md.txt": "ignored",
      "repo/CLAUDE.local.md": "repo local",
      "repo/pkg/CLAUDE.md": "pkg",
      "repo/pkg/deeper/CLAUDE.md": "below cwd: lazy",
    });
    const set = discoverInstructions({ cwd: join(R, "repo/pkg"), env: envFor(R), settings: noSettings() });
    expect(contents(set.files)).toEqual(["managed", "managed rule", "user", "user rule", "repo", "repo dot", "rule a/x", "rule b", "repo local", "pkg"]);
    expect(shown(set.files).map((f) => f.layer)).toEqual(["managed", "managed", "user", "user", "project", "project", "project", "project", "local", "project"]);
  });

  test("render: preamble, Contents-of labels per layer, closest file last, inside one system-reminder", () => {
    const R = tempRoot();
    writeTree(R, { "repo/CLAUDE.md": "Use tabs.", "repo/CLAUDE.local.md": "My key is in .env", "home/.claude/CLAUDE.md": "Be terse." });
    const set = discoverInstructions({ cwd: join(R, "repo"), env: envFor(R), settings: noSettings() });
    const text = renderInstructions(set.files, { date: new Date("2026-01-02T10:00:00Z") });
    expect(text.startsWith("<system-reminder>\n")).toBe(true);
    expect(text.endsWith("</system-reminder>")).toBe(true);
    expect(text).toContain("Codebase and user instructions are shown below.");
    expect(text).toContain(`Contents of ${join(R, "home/.claude/CLAUDE.md")} (user's private global instructions for all projects):\n\nBe terse.`);
    expect(text).toContain(`Contents of ${join(R, "repo/CLAUDE.md")} (project instructions, checked into the codebase):\n\nUse tabs.`);
    expect(text).toContain(`Contents of ${join(R, "repo/CLAUDE.local.md")} (user's private project instructions, not checked in):`);
    expect(text.indexOf("Be terse.")).toBeLessThan(text.indexOf("Use tabs."));
    expect(text).toContain("Today's date is 2026-01-02.");
    expect(renderInstructions([])).toBe("");
  });

  test("frontmatter and block comments are stripped; an empty file is skipped", () => {
    const R = tempRoot();
    writeTree(R, { "p/CLAUDE.md": "---\ntitle: x\n---\n<!-- author note -->\nReal rule", "p/CLAUDE.local.md": "<!-- only a comment -->\n" });
    const set = discoverInstructions({ cwd: join(R, "p"), env: envFor(R), settings: noSettings() });
    expect(contents(set.files)).toEqual(["Real rule"]);
    expect(set.files.find((f) => f.path.endsWith("CLAUDE.local.md"))?.status).toBe("skipped");
  });

  test("setting sources gate user, project and local files; CLAUDE_CODE_DISABLE_CLAUDE_MDS and bare turn all off", () => {
    const R = tempRoot();
    writeTree(R, { "home/.claude/CLAUDE.md": "user", "p/CLAUDE.md": "project", "p/CLAUDE.local.md": "local", "managed/CLAUDE.md": "managed" });
    const run = (extra: object) => contents(discoverInstructions({ cwd: join(R, "p"), env: envFor(R), settings: noSettings(), ...extra }).files);
    expect(run({ settingSources: ["project"] })).toEqual(["managed", "project"]);
    expect(run({ settingSources: ["user", "local"] })).toEqual(["managed", "user", "local"]);
    expect(run({ bare: true })).toEqual([]);
    expect(contents(discoverInstructions({ cwd: join(R, "p"), env: { ...envFor(R), CLAUDE_CODE_DISABLE_CLAUDE_MDS: "1" }, settings: noSettings() }).files)).toEqual([]);
  });

  test("--add-dir directories load only with CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD, after the cwd chain, even in bare mode", () => {
    const R = tempRoot();
    writeTree(R, { "p/CLAUDE.md": "project", "extra/CLAUDE.md": "extra", "extra/.claude/rules/r.md": "extra rule", "extra/CLAUDE.local.md": "not loaded" });
    const base = { cwd: join(R, "p"), settings: noSettings(), additionalDirectories: ["../extra"] };
    expect(contents(discoverInstructions({ ...base, env: envFor(R) }).files)).toEqual(["project"]);
    const on = { ...envFor(R), CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD: "1" };
    expect(contents(discoverInstructions({ ...base, env: on }).files)).toEqual(["project", "extra", "extra rule"]);
    expect(contents(discoverInstructions({ ...base, env: on, bare: true }).files)).toEqual(["extra", "extra rule"]);
  });

  test("AGENTS.md is used only in directories without CLAUDE.md (contracts §8)", () => {
    const R = tempRoot();
    writeTree(R, { "a/AGENTS.md": "agents a", "a/b/CLAUDE.md": "claude b", "a/b/AGENTS.md": "agents b" });
    const set = discoverInstructions({ cwd: join(R, "a/b"), env: envFor(R), settings: noSettings() });
    expect(contents(set.files)).toEqual(["agents a", "claude b"]);
    const skippedAgents = set.files.find((f) => f.path === join(R, "a/b/AGENTS.md"));
    expect(skippedAgents?.status).toBe("skipped");
    expect(skippedAgents?.reason).toContain("CLAUDE.md exists");
  });

  test("files over 4 MiB are skipped with a reason", () => {
    const R = tempRoot();
    writeTree(R, { "p/CLAUDE.md": "x".repeat(4 * 1024 * 1024 + 1), "p/CLAUDE.local.md": "small" });
    const set = discoverInstructions({ cwd: join(R, "p"), env: envFor(R), settings: noSettings() });
    expect(contents(set.files)).toEqual(["small"]);
    expect(set.files[0]?.reason).toBe("larger than 4 MiB");
  });

  test("claudeMdExcludes globs skip user/project/local files but never managed ones", () => {
    const R = tempRoot();
    writeTree(R, { "managed/CLAUDE.md": "managed", "p/CLAUDE.md": "project", "p/sub/CLAUDE.md": "sub", "p/sub/.claude/rules/r.md": "rule" });
    const settings = settingsOf({ level: "user", settings: { claudeMdExcludes: [`${R}/p/CLAUDE.md`, "**/.claude/rules/**", `${R}/managed/**`] } });
    const set = discoverInstructions({ cwd: join(R, "p/sub"), env: envFor(R), settings });
    expect(contents(set.files)).toEqual(["managed", "sub"]);
    expect(set.files.find((f) => f.path === join(R, "p/CLAUDE.md"))?.reason).toBe(`claudeMdExcludes: "${R}/p/CLAUDE.md"`);
  });

  test("a file reached twice (symlink) loads once, as its first occurrence", () => {
    const R = tempRoot();
    writeTree(R, { "p/CLAUDE.md": "shared" });
    mkdirSync(join(R, "p/sub"));
    symlinkSync(join(R, "p/CLAUDE.md"), join(R, "p/sub/CLAUDE.md"));
    const set = discoverInstructions({ cwd: join(R, "p/sub"), env: envFor(R), settings: noSettings() });
    expect(contents(set.files)).toEqual(["shared"]);
  });
});

describe("@imports (contracts §8: max 4 hops, relative to importer, not in code)", () => {
  test("chain of imports loads 4 hops, importer first, each as its own file", () => {
    const R = tempRoot();
    writeTree(R, {
      "p/CLAUDE.md": "root @imp1.md",
      "p/imp1.md": "one @d/imp2.md",
      "p/d/imp2.md": "two @../imp3.md",
      "p/imp3.md": "three @imp4.md",
      "p/imp4.md": "four @imp5.md",
      "p/imp5.md": "five",
      "p/CLAUDE.local.md": "local",
    });
    const set = discoverInstructions({ cwd: join(R, "p"), env: envFor(R), settings: noSettings() });
    expect(contents(set.files)).toEqual(["root @imp1.md", "one @d/imp2.md", "two @../imp3.md", "three @imp4.md", "four @imp5.md", "local"]);
    const five = set.files.find((f) => f.path === join(R, "p/imp5.md"));
    expect(five?.status).toBe("skipped");
    expect(five?.reason).toContain("4 hops");
    expect(set.files.find((f) => f.path === join(R, "p/imp1.md"))?.parent).toBe(join(R, "p/CLAUDE.md"));
    expect(set.files.find((f) => f.path === join(R, "p/imp1.md"))?.loadReason).toBe("include");
  });

  test("cycles stop, missing files are skipped, binary files refused, code spans ignored", () => {
    const R = tempRoot();
    writeTree(R, {
      "p/CLAUDE.md": "a @b.md @missing.md @pic.png `@code.md`",
      "p/b.md": "b @CLAUDE.md",
      "p/pic.png": "PNG",
      "p/code.md": "never",
    });
    const set = discoverInstructions({ cwd: join(R, "p"), env: envFor(R), settings: noSettings() });
    expect(contents(set.files)).toEqual(["a @b.md @missing.md @pic.png `@code.md`", "b @CLAUDE.md"]);
    const byPath = (p: string) => set.files.find((f) => f.path === join(R, p));
    expect(byPath("p/missing.md")?.reason).toBe("imported file not found");
    expect(byPath("p/pic.png")?.reason).toBe("not a text file");
    expect(set.files.filter((f) => f.status === "deduplicated").map((f) => f.path)).toEqual([join(R, "p/CLAUDE.md")]);
  });

  test("imports outside the project need allowExternalImports; user files may always import", () => {
    const R = tempRoot();
    writeTree(R, {
      "repo/.git/HEAD": "ref: refs/heads/main\n",
      "repo/CLAUDE.md": "project @../outside.md @~/notes.md",
      "outside.md": "outside",
      "home/notes.md": "home notes",
      "home/.claude/CLAUDE.md": "user @../../outside.md",
    });
    const base = { cwd: join(R, "repo"), env: envFor(R), settings: noSettings() };
    const denied = discoverInstructions(base);
    expect(contents(denied.files)).toEqual(["user @../../outside.md", "outside", "project @../outside.md @~/notes.md"]);
    expect(denied.files.filter((f) => f.status === "skipped").map((f) => f.reason)).toEqual([
      `outside the project (${join(R, "repo")}); external imports are not allowed`,
      `outside the project (${join(R, "repo")}); external imports are not allowed`,
    ]);
    const allowed = discoverInstructions({ ...base, allowExternalImports: true });
    expect(contents(allowed.files)).toEqual(["user @../../outside.md", "outside", "project @../outside.md @~/notes.md", "home notes"]);
  });
});

describe("lazy files: conditional rules and nested CLAUDE.md (internals §1.1 nested traversal)", () => {
  test("a rule with paths: is deferred and attached once when a matching file is read", () => {
    const R = tempRoot();
    writeTree(R, {
      "p/.claude/rules/ts.md": "---\npaths:\n  - \"src/**/*.{ts,tsx}\"\n---\nTS rule",
      "p/.claude/rules/always.md": "always",
      "home/.claude/rules/user-md.md": "---\npaths: docs/**\n---\nuser docs rule",
      "p/src/a.ts": "",
      "p/src/b.py": "",
    });
    const set = discoverInstructions({ cwd: join(R, "p"), env: envFor(R), settings: noSettings() });
    expect(contents(set.files)).toEqual(["always"]);
    const deferred = set.files.filter((f) => f.status === "deferred");
    expect(deferred.map((f) => f.globs)).toEqual([["docs"], ["src/**/*.ts", "src/**/*.tsx"]]);
    expect(set.onFileRead(join(R, "p/src/b.py"))).toEqual([]);
    const got = set.onFileRead(join(R, "p/src/a.ts"));
    expect(got.map((f) => f.content)).toEqual(["TS rule"]);
    expect(got[0]?.status).toBe("included");
    expect(got[0]?.loadReason).toBe("path_glob_match");
    expect(set.onFileRead(join(R, "p/src/deep/c.tsx"))).toEqual([]);
    expect(set.onFileRead(join(R, "p/docs/x.md")).map((f) => f.content)).toEqual(["user docs rule"]);
    expect(renderNestedInstruction(got[0]!)).toBe(`<system-reminder>\nContents of ${join(R, "p/.claude/rules/ts.md")}:\n\nTS rule\n</system-reminder>`);
  });

  test("nested CLAUDE.md files below cwd attach top-down on first read inside, with their own rules", () => {
    const R = tempRoot();
    writeTree(R, {
      "p/CLAUDE.md": "top",
      "p/a/CLAUDE.md": "a",
      "p/a/b/.claude/CLAUDE.md": "b dot",
      "p/a/b/CLAUDE.local.md": "b local",
      "p/a/b/.claude/rules/r.md": "b rule",
      "p/a/b/.claude/rules/cond.md": "---\npaths: \"*.sql\"\n---\nsql rule",
      "p/a/b/f.ts": "",
      "p/a/b/q.sql": "",
      "p/other/CLAUDE.md": "sibling",
    });
    const set = discoverInstructions({ cwd: join(R, "p"), env: envFor(R), settings: noSettings() });
    expect(contents(set.files)).toEqual(["top"]);
    const first = set.onFileRead(join(R, "p/a/b/f.ts"));
    expect(first.map((f) => f.content)).toEqual(["a", "b dot", "b rule", "b local"]);
    expect(first.map((f) => f.loadReason)).toEqual(["nested_traversal", "nested_traversal", "nested_traversal", "nested_traversal"]);
    expect(set.files.find((f) => f.content === "top")?.loadReason).toBe("session_start");
    expect(set.onFileRead(join(R, "p/a/b/f.ts"))).toEqual([]);
    expect(set.onFileRead(join(R, "p/a/b/q.sql")).map((f) => f.content)).toEqual(["sql rule"]);
    expect(set.onFileRead(join(R, "outside.ts"))).toEqual([]);
    expect(contents(set.files)).toContain("sql rule");
  });
});

test("rules directories: symlinked subdirectories are followed once, cycles stop, only *.md loads", () => {
  const R = tempRoot();
  writeTree(R, { "p/.claude/rules/a.md": "a", "p/.claude/rules/b.MD": "upper-case extension is ignored", "shared/s.md": "shared rule" });
  symlinkSync(join(R, "shared"), join(R, "p/.claude/rules/linked"));
  symlinkSync(join(R, "p/.claude/rules"), join(R, "p/.claude/rules/loop"));
  const set = discoverInstructions({ cwd: join(R, "p"), env: envFor(R), settings: noSettings() });
  expect(contents(set.files)).toEqual(["a", "shared rule"]);
});

test("a directory named CLAUDE.md is ignored rather than breaking discovery", () => {
  const R = tempRoot();
  mkdirSync(join(R, "p/CLAUDE.md"), { recursive: true });
  writeFileSync(join(R, "p/CLAUDE.local.md"), "local");
  const set = discoverInstructions({ cwd: join(R, "p"), env: envFor(R), settings: noSettings() });
  expect(contents(set.files)).toEqual(["local"]);
});
