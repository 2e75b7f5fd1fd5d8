// Issue 17.13: `bun run build --all` with no npm and nothing cached says so and exits 1, leaving no empty cache folders.
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../helpers/binary.ts";
import { tempDir } from "../helpers/tmp.ts";

test("build --all without npm: every cross target skipped naming why, one summary line, exit 1", async () => {
  const bin = tempDir();
  for (const b of ["bun", "tar"]) {
    const where = Bun.which(b);
    if (where) symlinkSync(where, join(bin, b));
  }
  const home = tempDir();
  const out = tempDir();
  mkdirSync(join(home, ".cache"), { recursive: true });
  const p = Bun.spawn([process.execPath, "build.ts", "--all"], {
    cwd: repoRoot(),
    env: { PATH: bin, HOME: home, YOKE_BUILD_OUT: out },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  expect(code).toBe(1);
  expect(stdout).toContain("npm is not on PATH");
  expect(stdout).toMatch(/skipped darwin-arm64: its Bun runtime \(@oven\/bun-darwin-aarch64@[\d.]+\) is not installed and could not be fetched \(no npm\)/);
  expect(stderr).toContain(`build --all: no cross target could be built (their Bun runtimes are neither in node_modules nor in ${join(home, ".cache", "yoke", "build")}, and npm is not on PATH)`);
  expect(existsSync(join(out, "yoke"))).toBe(true); // the host build still happened
  expect(existsSync(join(home, ".cache", "yoke", "build")) ? readdirSync(join(home, ".cache", "yoke", "build")) : []).toEqual([]);
}, 120_000);
