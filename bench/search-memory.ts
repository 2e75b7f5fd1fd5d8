/**
 * Peak memory of Grep and Glob on searches with millions of matches (issue 20.5): each case runs in a fresh process
 * and prints its peak RSS (VmHWM) over the process's RSS before the search, so the figure is what the search held.
 * Usage: bun bench/search-memory.ts [lines] [files]   (defaults 3,000,000 matching lines, 100,000 files)
 * Never a timed test: it only prints.
 */
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createGlobTool } from "../src/tool/builtin/glob.ts";
import { createGrepTool } from "../src/tool/builtin/grep.ts";
import { makeCtx } from "../test/tool/search-ctx.ts";

const hwm = () => Number(/VmHWM:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))![1]) / 1024;
const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))![1]) / 1024;

if (process.argv[2] === "one") {
  const [, , , dir, tool, engine, mode] = process.argv;
  const base = rss();
  const ctx = makeCtx(dir!);
  const r =
    tool === "Glob"
      ? await createGlobTool().run({ pattern: "**/*.txt" }, ctx)
      : await createGrepTool({ engine: engine as "rg" | "builtin" }).run({ pattern: "hit", output_mode: mode as "content" }, ctx);
  const tail = String(r.content).split("\n").at(-1)!.slice(0, 90);
  console.log(`${`${tool} ${tool === "Glob" ? "" : `${engine} ${mode}`}`.padEnd(34)} +${(hwm() - base).toFixed(0).padStart(5)} MiB peak   ${r.isError ? "ERROR " : ""}${tail}`);
  process.exit(0);
}

const lines = Number(process.argv[2] ?? 3_000_000);
const files = Number(process.argv[3] ?? 100_000);
const root = mkdtempSync(path.join(tmpdir(), "yoke-bench-searchmem-"));
try {
  const big = path.join(root, "big");
  mkdirSync(big);
  const fd = openSync(path.join(big, "many.txt"), "w");
  const chunk = "hit\n".repeat(100_000);
  for (let i = 0; i < lines / 100_000; i++) writeSync(fd, chunk);
  closeSync(fd);
  const tree = path.join(root, "tree");
  for (let d = 0; d < files / 1000; d++) {
    const sub = path.join(tree, `d${d}`);
    mkdirSync(sub, { recursive: true });
    for (let f = 0; f < 1000; f++) {
      const h = openSync(path.join(sub, `f${f}.txt`), "w");
      writeSync(h, "hit\n");
      closeSync(h);
    }
  }
  console.log(`Grep/Glob peak memory: ${lines} matching lines in one file; ${files} matching files`);
  const engines = Bun.which("rg") ? ["rg", "builtin"] : ["builtin"];
  const cases: string[][] = [];
  for (const e of engines) for (const m of ["content", "count"]) cases.push([big, "Grep", e, m]);
  for (const e of engines) for (const m of ["files_with_matches", "content"]) cases.push([tree, "Grep", e, m]);
  cases.push([tree, "Glob", "-", "-"]);
  for (const c of cases) {
    const p = Bun.spawnSync(["bun", import.meta.path, "one", ...c], { stdout: "pipe", stderr: "pipe" });
    process.stdout.write(p.stdout.toString() || p.stderr.toString().slice(0, 300));
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}
