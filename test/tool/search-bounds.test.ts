/**
 * Issue 20 point 5: Grep and Glob hold what the model can be shown, not what the tree holds. The collector keeps
 * the newest files up to the page and counts the rest; these tests check the bound itself (what it holds while a
 * million files go through) and that the answer is the same as a full sort, with the cut said, for both engines
 * and for the variants no issue named: many small matches, one huge line, a file growing while it is read, /proc
 * files, a binary file named outright.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { appendFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createGlobTool } from "../../src/tool/builtin/glob.ts";
import { createGrepTool, type GrepInput } from "../../src/tool/builtin/grep.ts";
import { createCollector, keepFor, MAX_KEPT_ENTRIES, MAX_UNLIMITED_PAGE } from "../../src/tool/builtin/search/collect.ts";
import { spawnProcess, killGroup } from "../../src/util/subprocess.ts";
import { waitFor } from "../helpers/wait-for.ts";
import { makeCtx, removeTempDirs, tempDir } from "./search-ctx.ts";

// Removing a few thousand files can take long on a busy disk.
afterAll(removeTempDirs, 120_000);

const hasRg = !!Bun.which("rg");
const engines = (hasRg ? ["rg", "builtin"] : ["builtin"]) as Array<"rg" | "builtin">;
const grep = (engine: "rg" | "builtin", input: GrepInput, cwd: string) => createGrepTool({ engine }).run(input, makeCtx(cwd));

describe("the collector (issue 20.5)", () => {
  test("50,000 files through it: it never holds more than about twice the page, and keeps exactly the newest", () => {
    const keep = keepFor(0, 250);
    const c = createCollector({ mode: "files_with_matches", withContext: false, keep });
    const all: Array<{ path: string; t: number }> = [];
    let peak = 0;
    // A deterministic spread of times with many ties, so the path order of ties is exercised too.
    for (let i = 0; i < 50_000; i++) {
      const t = (i * 7919) % 10_007;
      const p = `/r/f${i}`;
      all.push({ path: p, t });
      c.add({ path: p, count: 1, lines: [], mtimeMs: t });
      peak = Math.max(peak, c.held());
    }
    const r = c.done();
    expect(peak <= 2 * keep + 1024 + 1).toBe(true);
    expect(r.files).toBe(50_000);
    expect(r.entries).toBe(50_000);
    all.sort((a, b) => b.t - a.t || (a.path < b.path ? -1 : 1));
    expect(r.hits.slice(0, keep).map((h) => h.path)).toEqual(all.slice(0, keep).map((a) => a.path));
  });

  test("one file with more lines than the page keeps the page's worth and counts the rest (lines and -- gaps)", () => {
    const c = createCollector({ mode: "content", withContext: true, keep: 10 });
    const lines = Array.from({ length: 1000 }, (_, i) => ({ n: i * 3 + 1, text: "x".repeat(10_000), match: true }));
    c.add({ path: "/r/a", count: 1000, lines, mtimeMs: 1 });
    const r = c.done();
    expect(r.hits[0]!.lines).toHaveLength(10);
    expect(r.hits[0]!.lines[0]!.text).toHaveLength(501); // cut where the formatter cuts, plus one to say so
    expect(r.entries).toBe(1999); // 1000 lines, 999 gaps between non-adjacent lines
  });

  test("a page past the kept bound is clamped to it", () => {
    expect(keepFor(10, 250)).toBe(260);
    expect(keepFor(0, 0)).toBe(MAX_UNLIMITED_PAGE);
    expect(keepFor(10_000_000, 250)).toBe(MAX_KEPT_ENTRIES);
  });
});

const name = (i: number) => `f${String(i).padStart(5, "0")}.txt`;

/** `n` files of one matching line each, file i older than file i+1. */
function manyFiles(n: number): string {
  const d = tempDir();
  for (let i = 0; i < n; i++) {
    const f = path.join(d, name(i));
    writeFileSync(f, "needle\n");
    utimesSync(f, 1_700_000_000 + i, 1_700_000_000 + i);
  }
  return d;
}

describe.each(engines)("Grep bounds with the %s engine (issue 20.5)", (engine) => {
  test("many small matches: 1,500 files, the newest five shown, the total said, in every output mode", async () => {
    const d = manyFiles(1500);
    const newest = [1499, 1498, 1497, 1496, 1495].map((i) => path.join(d, name(i)));
    const files = await grep(engine, { pattern: "needle", head_limit: 5 }, d);
    expect(files.content).toBe(
      `${newest.join("\n")}\n\n[Showing results 1-5 of 1500. Call Grep again with offset: 5 to see the next ones, or narrow the search.]`,
    );
    expect(files.details).toMatchObject({ numFiles: 1500, filenames: newest });
    const count = await grep(engine, { pattern: "needle", output_mode: "count", head_limit: 2 }, d);
    expect(count.content).toBe(
      `${newest[0]}:1\n${newest[1]}:1\n\nFound 1500 matching lines in 1500 files.\n\n[Showing results 1-2 of 1500. Call Grep again with offset: 2 to see the next ones, or narrow the search.]`,
    );
    const content = await grep(engine, { pattern: "needle", output_mode: "content", head_limit: 2, offset: 1 }, d);
    expect(content.content).toBe(
      `${newest[1]}:1:needle\n${newest[2]}:1:needle\n\n[Showing results 2-3 of 1500. Call Grep again with offset: 3 to see the next ones, or narrow the search.]`,
    );
    // Only the kept files are named in details, not all 1,500.
    expect((content.details as { filenames: string[]; numFiles: number }).numFiles).toBe(1500);
    expect((content.details as { filenames: string[] }).filenames.length < 1500).toBe(true);
  });

  test("head_limit 0 shows at most 20,000 entries at a time and says how to go on", async () => {
    const d = tempDir();
    writeFileSync(path.join(d, "a.txt"), "hit\n".repeat(25_000));
    const r = await grep(engine, { pattern: "hit", output_mode: "content", head_limit: 0 }, d);
    expect(String(r.content).endsWith(
      "[Showing results 1-20000 of 25000. head_limit 0 shows at most 20000 at a time: call Grep again with offset: 20000 to see the next ones, or narrow the search.]",
    )).toBe(true);
  });

  test("one huge line with 300,000 matches: -o pages its matches, count mode counts one line", async () => {
    const d = tempDir();
    const f = path.join(d, "line.txt");
    writeFileSync(f, `${"ab ".repeat(300_000)}\n`);
    const r = await grep(engine, { pattern: "ab", output_mode: "content", "-o": true, head_limit: 3 }, d);
    expect(r.content).toBe(
      `${f}:1:ab\n${f}:1:ab\n${f}:1:ab\n\n[Showing results 1-3 of 300000. Call Grep again with offset: 3 to see the next ones, or narrow the search.]`,
    );
    expect((await grep(engine, { pattern: "ab", output_mode: "count" }, d)).content).toBe(`${f}:1\n\nFound 1 matching line in 1 file.`);
  });

  test("a file growing while it is searched: the search ends with what it read", async () => {
    const d = tempDir();
    const f = path.join(d, "log.txt");
    appendFileSync(f, "needle\n");
    const writer = spawnProcess(["sh", "-c", `while :; do echo needle >> "${f}"; done`], {});
    try {
      await waitFor(() => statSync(f).size > 4096, "the writer to append");
      const r = await grep(engine, { pattern: "needle", output_mode: "count" }, d);
      expect(r.isError).toBeUndefined();
      expect(String(r.content)).toStartWith(`${f}:`);
    } finally {
      await killGroup(writer.pid!, 0);
    }
  });

  test("/proc files (size 0, content made on read) are searched", async () => {
    const r = await grep(engine, { pattern: "^Name:", output_mode: "content", path: "/proc/self/status" }, tempDir());
    expect(String(r.content)).toStartWith("/proc/self/status:1:Name:");
  });

  test("a binary file named outright is not searched, and says so", async () => {
    const d = tempDir();
    const f = path.join(d, "blob.bin");
    writeFileSync(f, Buffer.concat([Buffer.from("needle"), Buffer.alloc(1000), Buffer.from("needle")]));
    const r = await grep(engine, { pattern: "needle", path: f }, d);
    expect(r.content).toBe(`${f} is a binary file; Grep does not search binary files.`);
  });
});

test("Glob keeps the newest `limit` paths while 1,500 match, and says how many were left out (issue 20.5)", async () => {
  const d = manyFiles(1500);
  const r = await createGlobTool({ limit: 5 }).run({ pattern: "*.txt" }, makeCtx(d));
  const lines = String(r.content).split("\n");
  expect(lines.slice(0, 5)).toEqual([1499, 1498, 1497, 1496, 1495].map((i) => path.join(d, name(i))));
  expect(lines[5]).toBe(
    "(Results are truncated: showing the 5 most recently modified of 1500 matching files, 1495 left out. Use a more specific pattern or path.)",
  );
  expect(r.details).toMatchObject({ numFiles: 1500, truncated: true });
});
