// The record of what the sandbox library read to build a line (src/sandbox/fingerprint.ts), checked before each
// command reuses the line (issue 16 bench). A folder changed just before the build is listed at each check until
// its change time is old; from then on its stamp stands for it. Whatever the check takes as its record, a
// change after it must still show. Real folders.
import { describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { holdGhosts, snapshot, unchanged } from "../../src/sandbox/fingerprint.ts";
import { tempDir } from "../helpers/tmp.ts";

const spec = (dir: string) => ({ scans: [{ root: dir, depth: 2, skip: [] }], walks: [], paths: [join(dir, "a/b/c"), join(dir, "a/b/d"), join(dir, "a/x")] });

describe("the disk record a built line is reused on", () => {
  test("a folder listed again at each check, once its stamp stands for it, still shows a new entry", () => {
    const dir = tempDir("yoke-fp-");
    mkdirSync(join(dir, "a/b"), { recursive: true });
    const s = snapshot(spec(dir));
    expect(unchanged(s)).toBe(true);
    // Window 0: every folder's change time counts as old, so the check takes its stamp from here on.
    expect(unchanged(s, 0)).toBe(true);
    expect(unchanged(s)).toBe(true);
    writeFileSync(join(dir, "a/new"), "");
    expect(unchanged(s)).toBe(false);
  });

  test("an entry removed and one made under another name (same count) show after the stamp is taken", () => {
    const dir = tempDir("yoke-fp-");
    mkdirSync(join(dir, "a/b"), { recursive: true });
    writeFileSync(join(dir, "a/old"), "");
    const s = snapshot(spec(dir));
    expect(unchanged(s, 0)).toBe(true);
    rmSync(join(dir, "a/old"));
    writeFileSync(join(dir, "a/odd"), "");
    expect(unchanged(s)).toBe(false);
  });

  test("paths sharing their folders: a change in a shared folder shows for all, one in a leaf for its own", () => {
    const dir = tempDir("yoke-fp-");
    mkdirSync(join(dir, "a/b"), { recursive: true });
    const s = snapshot({ scans: [], walks: [], paths: spec(dir).paths });
    expect(unchanged(s)).toBe(true);
    mkdirSync(join(dir, "a/b/d"));
    expect(unchanged(s)).toBe(false);
    const t = snapshot({ scans: [], walks: [], paths: spec(dir).paths });
    rmSync(join(dir, "a/b"), { recursive: true });
    writeFileSync(join(dir, "a/b"), "");
    expect(unchanged(t)).toBe(false);
  });

  test("a folder holding a kept sandbox's mount points is listed at every check: its ghosts come and go unseen, a real entry shows", () => {
    const dir = tempDir("yoke-fp-");
    mkdirSync(join(dir, "a/b"), { recursive: true });
    const s = snapshot(spec(dir));
    const ghost = join(dir, "a/ghost");
    holdGhosts(s, [ghost]);
    writeFileSync(ghost, "");
    expect(unchanged(s, 0)).toBe(true);
    rmSync(ghost);
    expect(unchanged(s, 0)).toBe(true);
    writeFileSync(ghost, "");
    expect(unchanged(s, 0)).toBe(true);
    writeFileSync(join(dir, "a/real"), "");
    expect(unchanged(s, 0)).toBe(false);
  });
});
