// Discovery's cache between runs (issue 14 point 7): an entry counts only for an unchanged, settled file, under the
// same role and the same build; anything else reads the file again.
import { describe, expect, test } from "bun:test";
import { readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { discoverExtensions } from "../../src/extension/discover.ts";
import { openDiscoveryCache } from "../../src/extension/discovery-cache.ts";
import type { SlashCommand } from "../../src/extension/types.ts";
import { tempDir, writeTree } from "../helpers/tmp.ts";

const entry = { name: "a", description: "A" } as SlashCommand;
const st = (o: Partial<{ mtimeMs: number; ctimeMs: number; size: number; ino: number }> = {}) =>
  ({ mtimeMs: 1_000, ctimeMs: 1_000, size: 10, ino: 7, ...o }) as never;

describe("openDiscoveryCache", () => {
  test("a settled, unchanged file hits; any change of mtime, ctime, size, inode, key or build misses", () => {
    const path = join(tempDir("yoke-dcache-"), "sub", "cache.json");
    const c = openDiscoveryCache(path, "v1");
    c.store("/f", "k", st(), entry);
    c.save();
    const again = () => openDiscoveryCache(path, "v1");
    expect(again().lookup("/f", "k", st())).toEqual(entry);
    for (const changed of [{ mtimeMs: 1_001 }, { ctimeMs: 1_001 }, { size: 11 }, { ino: 8 }]) expect(again().lookup("/f", "k", st(changed))).toBeUndefined();
    expect(again().lookup("/f", "other-role", st())).toBeUndefined();
    expect(openDiscoveryCache(path, "v2").lookup("/f", "k", st())).toBeUndefined();
  });

  test("a file read within two seconds of its last write is read again next time (a coarse clock could hide a second write)", () => {
    const path = join(tempDir("yoke-dcache-"), "cache.json");
    const c = openDiscoveryCache(path, "v1");
    c.store("/fresh", "k", st({ mtimeMs: Date.now() - 500, ctimeMs: Date.now() - 500 }), entry);
    c.save();
    const s = JSON.parse(readFileSync(path, "utf8")).rows["/fresh"];
    expect(openDiscoveryCache(path, "v1").lookup("/fresh", "k", st({ mtimeMs: s.m, ctimeMs: s.c }))).toBeUndefined();
  });

  test("a broken cache file is no cache; files not seen this run are dropped when it is written", () => {
    const dir = tempDir("yoke-dcache-");
    const path = join(dir, "cache.json");
    writeFileSync(path, "{not json");
    const c = openDiscoveryCache(path, "v1");
    expect(c.lookup("/f", "k", st())).toBeUndefined();
    c.store("/a", "k", st(), entry);
    c.store("/b", "k", st(), entry);
    c.save();
    const d = openDiscoveryCache(path, "v1");
    expect(d.lookup("/a", "k", st())).toEqual(entry);
    d.save();
    expect(Object.keys(JSON.parse(readFileSync(path, "utf8")).rows)).toEqual(["/a"]);
  });
});

describe("discoverExtensions with the cache", () => {
  test("the second run finds the same; an edit of the same size with the old mtime put back is still seen (ctime)", () => {
    const repo = tempDir("yoke-dcache-repo-");
    writeTree(repo, {
      ".git/HEAD": "x",
      ".claude/skills/one/SKILL.md": "---\ndescription: first\n---\n",
      ".claude/commands/go.md": "---\ndescription: go on\n---\n",
      ".claude/skills/broken/SKILL.md": "---\na: [\n---\n",
    });
    const file = join(repo, ".claude/skills/one/SKILL.md");
    // Settled: written "long ago".
    const old = new Date(Date.now() - 60_000);
    for (const f of [file, join(repo, ".claude/commands/go.md"), join(repo, ".claude/skills/broken/SKILL.md")]) utimesSync(f, old, old);
    const path = join(tempDir("yoke-dcache-state-"), "c.json");
    const run = () => {
      const cache = openDiscoveryCache(path, "v1");
      const d = discoverExtensions({ cwd: repo, userDir: "/nonexistent", cache });
      cache.save();
      return d;
    };
    const plain = discoverExtensions({ cwd: repo, userDir: "/nonexistent" });
    expect(run()).toEqual(plain);
    expect(run()).toEqual(plain); // from the cache: same entries, same problem
    const before = statSync(file);
    writeFileSync(file, "---\ndescription: other\n---\n"); // same size
    utimesSync(file, before.atime, before.mtime);
    expect(run().commands.find((c) => c.name === "one")!.description).toBe("other");
  });
});

test("the Skill tool's written-out JSON Schema is exactly what zod makes of its input", async () => {
  const { SKILL_JSON_SCHEMA, skillInput } = await import("../../src/extension/skill-tool.ts");
  const { toolJsonSchema } = await import("../../src/tool/define-tool.ts");
  expect(SKILL_JSON_SCHEMA).toEqual(toolJsonSchema(skillInput()));
});
