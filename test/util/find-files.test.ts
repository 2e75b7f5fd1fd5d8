// Issue 11 point 7: small file sets (agents, memory files, plugin parts) are found with one
// helper. Variants: nesting, dot folders, a missing or unreadable folder, ignore, the cap, symlinked folders and
// a link that leads back up the tree (each file once, under its direct name).
import { expect, test } from "bun:test";
import { chmodSync, mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { loadAgents } from "../../src/agent/load.ts";
import { scanMemoryFiles } from "../../src/context/relevant-memory.ts";
import { findFiles } from "../../src/util/find-files.ts";
import { fingerprint } from "../../plugins/memory-extraction/prompt.ts";
import { tempDir, writeTree } from "../helpers/tmp.ts";

const agent = (name: string) => `---\nname: ${name}\ndescription: does ${name}\n---\nYou are ${name}.\n`;

test("nested and dot folders, sorted, absolute; other extensions left out", () => {
  const d = tempDir();
  writeTree(d, { "b.md": "", "a/z.md": "", "a/deep/er/y.md": "", ".hidden/x.md": "", "notes.txt": "", "a/c.MD.bak": "" });
  expect(findFiles(d, "**/*.md")).toEqual([join(d, ".hidden/x.md"), join(d, "a/deep/er/y.md"), join(d, "a/z.md"), join(d, "b.md")]);
});

test("a missing folder, a file given as folder and an unreadable folder give nothing, without throwing", () => {
  const d = tempDir();
  writeTree(d, { "f.md": "", "locked/in.md": "" });
  expect(findFiles(join(d, "nope"), "**/*.md")).toEqual([]);
  expect(findFiles(join(d, "f.md"), "**/*.md")).toEqual([]);
  chmodSync(join(d, "locked"), 0o000);
  try {
    // root reads anything; either way nothing throws and the readable file is found
    expect(findFiles(d, "**/*.md")).toContain(join(d, "f.md"));
  } finally {
    chmodSync(join(d, "locked"), 0o755);
  }
});

test("ignore and max", () => {
  const d = tempDir();
  writeTree(d, { "MEMORY.md": "", "sub/MEMORY.md": "", "a.md": "", "b.md": "", "c.md": "" });
  expect(findFiles(d, "**/*.md", { ignore: ["**/MEMORY.md"] })).toEqual(["a.md", "b.md", "c.md"].map((f) => join(d, f)));
  expect(findFiles(d, "**/*.md", { ignore: ["**/MEMORY.md"], max: 2 })).toEqual(["a.md", "b.md"].map((f) => join(d, f)));
});

test("a symlinked folder is followed; a link back up the tree ends, and each file comes once under its direct name", () => {
  const d = tempDir();
  const shared = tempDir();
  writeTree(shared, { "s.md": "" });
  writeTree(d, { "top.md": "", "a/b/r.md": "" });
  symlinkSync(shared, join(d, "shared"));
  symlinkSync("../..", join(d, "a/b/loop"));
  expect(findFiles(d, "**/*.md")).toEqual([join(d, "a/b/r.md"), join(d, "shared/s.md"), join(d, "top.md")]);
});

test("agents: nested and symlinked folders under .claude/agents load; a loop does not duplicate an agent", () => {
  const cwd = tempDir();
  const home = tempDir();
  const team = tempDir();
  writeTree(team, { "reviewer.md": agent("reviewer") });
  writeTree(cwd, { ".claude/agents/ops/deployer.md": agent("deployer") });
  symlinkSync(team, join(cwd, ".claude/agents/team"));
  symlinkSync("..", join(cwd, ".claude/agents/ops/up"));
  const r = loadAgents({ cwd, env: { HOME: home, CLAUDE_CONFIG_DIR: join(home, ".claude") } });
  const custom = r.agents.filter((a) => a.source === "project").map((a) => a.name);
  expect(custom.sort()).toEqual(["deployer", "reviewer"]);
  expect(r.warnings).toEqual([]);
});

test("memory files: nested topic files found, every MEMORY.md index left out; the extraction fingerprint sees the same files", () => {
  const d = tempDir();
  writeTree(d, {
    "MEMORY.md": "- [a](a.md)",
    "a.md": "---\ndescription: alpha\ntype: user\n---\nA",
    "topics/b.md": "---\ndescription: beta\ntype: project\n---\nB",
    "topics/MEMORY.md": "nested index",
  });
  mkdirSync(join(d, "empty"));
  expect(scanMemoryFiles(d).map((m) => m.rel).sort()).toEqual(["a.md", "topics/b.md"]);
  expect([...fingerprint(d).keys()].sort()).toEqual(["MEMORY.md", "a.md", "topics/MEMORY.md", "topics/b.md"]);
});
