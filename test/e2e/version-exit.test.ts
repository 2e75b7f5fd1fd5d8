/**
 * Issue 21.4: `--version` is the cheapest start yoke has (no Node stream, no node:fs; src/main.ts, src/util/output.ts),
 * and being cheap must not cost it its output or its exit code: the whole line reaches a pipe whose reader is slow,
 * a file, and a reader that already left, with exit 0 each time; with YOKE_TIMING=1 the timing lines reach stderr
 * whole as well (they are written with Bun.write at exit, which the exit waits for).
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { isolatedEnv, yokeBin } from "../helpers/binary.ts";
import { tempDir } from "../helpers/tmp.ts";

let bin: string;
beforeAll(() => {
  bin = yokeBin();
});

const sh = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
const LINE = `${pkg.version} (yoke)\n`;

/** Runs `yoke FLAG REDIRECTIONS` in bash; returns yoke's own exit code and what reached the files `out` and `err`. */
async function run(flag: string, redirect: (f: { out: string; err: string }) => string, extraEnv: Record<string, string> = {}) {
  const dir = tempDir("yoke-version-");
  const files = { out: join(dir, "out"), err: join(dir, "err") };
  const code = join(dir, "code");
  // PIPESTATUS[0] is yoke's own exit code, whatever the reader after it does.
  const script = `${sh(bin)} ${flag} < /dev/null ${redirect({ out: sh(files.out), err: sh(files.err) })}; echo "\${PIPESTATUS[0]}" > ${sh(code)}`;
  const p = Bun.spawn(["bash", "-c", script], { cwd: dir, env: isolatedEnv(extraEnv), stdout: "ignore", stderr: "inherit" });
  expect(await p.exited).toBe(0);
  const read = (f: string) => {
    try {
      return readFileSync(f, "utf8");
    } catch {
      return null;
    }
  };
  return { code: Number(read(code)), stdout: read(files.out), stderr: read(files.err) };
}

// The reader starts reading a second after yoke is done: an exit that did not wait for the pipe would lose the line.
const SLOW = "(sleep 1; cat > FILE)";
const slow = (file: string) => SLOW.replace("FILE", file);

describe("--version and -v: the whole line, exit 0", () => {
  for (const flag of ["--version", "-v"]) {
    test(`${flag} into a pipe whose reader is slow`, async () => {
      expect(await run(flag, (f) => `2> ${f.err} | ${slow(f.out)}`)).toEqual({ code: 0, stdout: LINE, stderr: "" });
    });

    test(`${flag} into a file`, async () => {
      expect(await run(flag, (f) => `2> ${f.err} > ${f.out}`)).toEqual({ code: 0, stdout: LINE, stderr: "" });
    });
  }

  test("a reader that leaves without reading: exit 0 and nothing on stderr", async () => {
    const r = await run("--version", (f) => `2> ${f.err} | true`);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
  });

  test("stdout closed: exit 0 and nothing on stderr", async () => {
    const r = await run("--version", (f) => `2> ${f.err} >&-`);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
  });

  test("YOKE_TIMING=1: the version in its file, both timing lines whole through a slow stderr pipe", async () => {
    const r = await run("--version", (f) => `2>&1 > ${f.out} | ${slow(f.err)}`, { YOKE_TIMING: "1" });
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 0, stdout: LINE });
    expect(r.stderr).toMatch(/^yoke timing \(ms since start\): main=\d+\.\d exit=\d+\.\d\nyoke cpu \(ms of this process\): main=\d+\.\d exit=\d+\.\d\n$/);
  });
});
