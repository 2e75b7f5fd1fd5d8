import { describe, expect, test } from "bun:test";
import { unlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInstructionCache } from "../../src/context/cache.ts";
import { envFor, noSettings, tempRoot, writeTree } from "./helpers.ts";

const texts = (c: ReturnType<typeof createInstructionCache>) => c.get().files.filter((f) => f.status === "included").map((f) => f.content);

describe("createInstructionCache", () => {
  test("discovers once, returns the same set while nothing changed", () => {
    const R = tempRoot();
    writeTree(R, { "p/CLAUDE.md": "one" });
    const cache = createInstructionCache({ cwd: join(R, "p"), env: envFor(R), settings: noSettings() });
    const a = cache.get();
    expect(cache.rebuilt).toBe(true);
    const b = cache.get();
    expect(cache.rebuilt).toBe(false);
    expect(b).toBe(a);
  });

  test("an mtime change, a new file and a deleted file each trigger rediscovery", () => {
    const R = tempRoot();
    writeTree(R, { "p/CLAUDE.md": "one", "p/.claude/rules/r.md": "rule" });
    const cache = createInstructionCache({ cwd: join(R, "p"), env: envFor(R), settings: noSettings() });
    expect(texts(cache)).toEqual(["one", "rule"]);
    writeFileSync(join(R, "p/CLAUDE.md"), "two");
    utimesSync(join(R, "p/CLAUDE.md"), new Date(), new Date(Date.now() + 5000));
    expect(texts(cache)).toEqual(["two", "rule"]);
    writeFileSync(join(R, "p/CLAUDE.local.md"), "local");
    expect(texts(cache)).toEqual(["two", "rule", "local"]);
    expect(cache.rebuilt).toBe(true);
    unlinkSync(join(R, "p/.claude/rules/r.md"));
    expect(texts(cache)).toEqual(["two", "local"]);
  });

  test("lazily attached files stay attached across an mtime rebuild, and reattach after invalidate()", () => {
    const R = tempRoot();
    writeTree(R, { "p/CLAUDE.md": "top", "p/sub/CLAUDE.md": "nested", "p/sub/f.ts": "" });
    const cache = createInstructionCache({ cwd: join(R, "p"), env: envFor(R), settings: noSettings() });
    expect(cache.get().onFileRead(join(R, "p/sub/f.ts")).map((f) => f.content)).toEqual(["nested"]);
    writeFileSync(join(R, "p/CLAUDE.md"), "top changed");
    utimesSync(join(R, "p/CLAUDE.md"), new Date(), new Date(Date.now() + 5000));
    const rebuilt = cache.get();
    expect(cache.rebuilt).toBe(true);
    expect(rebuilt.onFileRead(join(R, "p/sub/f.ts"))).toEqual([]);
    cache.invalidate();
    expect(cache.get().onFileRead(join(R, "p/sub/f.ts")).map((f) => f.content)).toEqual(["nested"]);
  });
});
