// bench/fresh-copy.ts: the --version scenario times copies of the binaries, all in the same page-cache state.
import { expect, test } from "bun:test";
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { freshCopies } from "../../bench/fresh-copy.ts";
import { tempDir } from "../helpers/tmp.ts";

test("each binary is copied whole, executable, under its own name, two binaries of one name apart", () => {
  const [one, two] = [tempDir("yoke-fresh-a-"), tempDir("yoke-fresh-b-")];
  writeFileSync(join(one, "yoke"), "#!/bin/sh\necho one\n", { mode: 0o644 });
  writeFileSync(join(two, "yoke"), "#!/bin/sh\necho two\n", { mode: 0o700 });
  const { dir, copies } = freshCopies([join(one, "yoke"), join(two, "yoke")]);
  try {
    expect(copies.map((c) => basename(c))).toEqual(["yoke", "yoke"]);
    expect(new Set(copies.map((c) => dirname(c))).size).toBe(2);
    expect(copies.every((c) => c.startsWith(dir))).toBe(true);
    expect(copies.map((c) => readFileSync(c, "utf8"))).toEqual(["#!/bin/sh\necho one\n", "#!/bin/sh\necho two\n"]);
    expect(copies.map((c) => statSync(c).mode & 0o777)).toEqual([0o755, 0o755]);
    expect(Bun.spawnSync([copies[1]!]).stdout.toString()).toBe("two\n");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a binary that does not exist is an error naming it, and leaves no folder behind", () => {
  // A temp folder of its own, so a bench running beside the test cannot change what is counted.
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = tempDir("yoke-fresh-tmp-");
  try {
    expect(tmpdir()).toBe(process.env.TMPDIR);
    expect(() => freshCopies(["/nonexistent/yoke-bench-missing"])).toThrow("yoke-bench-missing");
    expect(readdirSync(tmpdir())).toEqual([]);
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  }
});
