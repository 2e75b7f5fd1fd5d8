/**
 * Issue 20.5: tools never hang on or drown in files that are not regular files. Grep on a FIFO hung forever and
 * on /dev/zero grew to 2.5 GB; the class: FIFOs, devices and symlinks to them, named outright or met in a walk,
 * with both search engines, and Read on the same.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createGlobTool } from "../../src/tool/builtin/glob.ts";
import { createGrepTool } from "../../src/tool/builtin/grep.ts";
import { readTool } from "../../src/tool/builtin/read.ts";
import { makeCtx, removeTempDirs, tempDir } from "./search-ctx.ts";

afterAll(removeTempDirs);
const engines = (Bun.which("rg") ? ["rg", "builtin"] : ["builtin"]) as Array<"rg" | "builtin">;

function hostileTree(): string {
  const root = tempDir();
  writeFileSync(path.join(root, "a.txt"), "needle here\n");
  Bun.spawnSync(["mkfifo", path.join(root, "pipe")]);
  symlinkSync("/dev/zero", path.join(root, "zero"));
  symlinkSync(path.join(root, "pipe"), path.join(root, "to-pipe"));
  return root;
}

describe.each(engines)("Grep (%s engine) and special files", (engine) => {
  const grep = (input: Record<string, unknown>, root: string) => createGrepTool({ engine }).run({ pattern: "needle", ...input } as never, makeCtx(root));

  for (const [name, target] of [
    ["a FIFO", "pipe"],
    ["/dev/zero", "/dev/zero"],
    ["a symlink to /dev/zero", "zero"],
    ["a symlink to a FIFO", "to-pipe"],
  ] as const) {
    test(`${name} named as path: refused with a clear error`, async () => {
      const root = hostileTree();
      const r = await grep({ path: target }, root);
      expect(r.isError).toBe(true);
      expect(r.content).toContain("is not a regular file or a directory (a FIFO, socket or device)");
    });
  }

  test("a tree holding a FIFO and symlinks to devices: searched, special files skipped, no hang", async () => {
    const root = hostileTree();
    const r = await grep({}, root);
    expect(r.isError).toBeFalsy();
    expect(String(r.content)).toContain("a.txt");
    expect(String(r.content)).not.toContain("pipe");
  });
});

test("Glob with a FIFO as path: refused", async () => {
  const root = hostileTree();
  const r = await createGlobTool().run({ pattern: "*", path: "pipe" } as never, makeCtx(root));
  expect(r.isError).toBe(true);
});

test("Read of a FIFO, a device and a symlink to one: refused, never blocks", async () => {
  const root = hostileTree();
  for (const f of [path.join(root, "pipe"), "/dev/zero", path.join(root, "zero"), path.join(root, "to-pipe")]) {
    const r = await readTool.run({ file_path: f } as never, makeCtx(root));
    expect(r.isError).toBe(true);
    expect(String(r.content)).toContain("is not a regular file");
  }
});
