/**
 * Grep/Glob speed on a big tree: built-in engine vs rg-driving engine vs raw `rg`.
 * Usage: bun bench/search.ts [runs]   (tree cached in $YOKE_BENCH_TREE or /tmp/yoke-bench-tree)
 * Prints medians over the runs and the ratios to raw rg. Targets: built-in ≤ 3x rg, rg-driving ≤ 1.2x rg.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createGlobTool } from "../src/tool/builtin/glob.ts";
import { createGrepTool } from "../src/tool/builtin/grep.ts";
import { createFileState } from "../src/tool/file-state.ts";
import type { Tool, ToolContext } from "../src/tool/types.ts";

const ROOT = process.env.YOKE_BENCH_TREE ?? "/tmp/yoke-bench-tree";
const RUNS = Math.max(5, Number(process.argv[2] ?? 5));
const FILES = 50_000;

/** Deterministic PRNG (mulberry32) so the tree is the same on every machine. */
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS =
  "const let var function return if else for while import export from class interface type async await new this value result error data item list map set get handle process request response config options user state index count".split(
    " ",
  );

function generate(): void {
  const rand = rng(42);
  const pick = <T>(a: T[]) => a[Math.floor(rand() * a.length)]!;
  const exts = [".ts", ".js", ".md", ".json", ".py", ".txt"];
  let bytes = 0;
  mkdirSync(ROOT, { recursive: true });
  // A third of the files sit under ignored paths: every third top-level dir is "gen-*" (ignored) plus *.log.
  writeFileSync(path.join(ROOT, ".gitignore"), "gen-*/\n*.log\n");
  mkdirSync(path.join(ROOT, ".git"), { recursive: true });
  for (let i = 0; i < FILES; i++) {
    const top = i % 60;
    const topName = top % 3 === 0 ? `gen-${top}` : `pkg-${top}`;
    const dir = path.join(ROOT, topName, `mod-${(i >> 4) % 25}`, `sub-${i % 7}`);
    mkdirSync(dir, { recursive: true });
    const r = rand();
    // Mixed sizes: mostly 2–8 KB, some 20–60 KB, a few 1–3 MB; mean ≈ 10 KB.
    const size = r < 0.9 ? 2_000 + rand() * 6_000 : r < 0.999 ? 20_000 + rand() * 40_000 : 1_000_000 + rand() * 2_000_000;
    const lines: string[] = [];
    let len = 0;
    while (len < size) {
      const n = 3 + Math.floor(rand() * 10);
      let line = Array.from({ length: n }, () => pick(WORDS)).join(" ");
      const x = rand();
      if (x < 0.002) line += ` TODO(${pick(WORDS)}) fix this`;
      else if (x < 0.004) line = `handle${pick(WORDS)}Request(${line})`;
      lines.push(line);
      len += line.length + 1;
    }
    if (i % 1000 === 7) lines.splice(Math.floor(lines.length / 2), 0, "const marker = needle_rare_token;");
    const body = `${lines.join("\n")}\n`;
    const ext = i % 50 === 0 ? ".log" : pick(exts);
    writeFileSync(path.join(dir, `file-${i}${ext}`), body);
    bytes += body.length;
  }
  writeFileSync(path.join(ROOT, ".complete"), String(bytes));
}

function ctx(env: Record<string, string>): ToolContext {
  return {
    cwd: ROOT,
    projectDir: ROOT,
    workingDirectories: [ROOT],
    sessionId: "bench",
    signal: new AbortController().signal,
    env: { PATH: process.env.PATH ?? "", ...env },
    fileState: createFileState(),
    session: { cwd: ROOT, todos: [], envFiles: [] },
    toolUseId: "bench",
  };
}

/** Medians of several contenders, run round-robin so load changes on a shared machine hit all alike. */
async function times(fns: Array<() => Promise<unknown>>): Promise<number[]> {
  for (const fn of fns) await fn(); // warm-up (page cache, JIT)
  const t: number[][] = fns.map(() => []);
  for (let i = 0; i < RUNS; i++) {
    for (const [k, fn] of fns.entries()) {
      const s = performance.now();
      await fn();
      t[k]!.push(performance.now() - s);
    }
  }
  return t.map((xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!);
}

async function rawRg(args: string[]): Promise<number> {
  const p = Bun.spawn(["rg", "--no-config", "--hidden", "--glob", "!.git", ...args, ROOT], { stdout: "pipe", stderr: "ignore" });
  const out = await new Response(p.stdout).text();
  await p.exited;
  return out.length;
}

async function runTool(tool: Tool, input: unknown, env: Record<string, string>) {
  const r = await tool.run(input, ctx(env));
  if (r.isError) throw new Error(String(r.content));
  return r;
}

if (!existsSync(path.join(ROOT, ".complete"))) {
  console.log(`generating ${FILES} files under ${ROOT} …`);
  const s = performance.now();
  generate();
  console.log(`  done in ${((performance.now() - s) / 1000).toFixed(1)} s`);
}
const totalBytes = Number(await Bun.file(path.join(ROOT, ".complete")).text());
console.log(`tree: ${ROOT}, ${FILES} files, ${(totalBytes / 1e6).toFixed(0)} MB; median of ${RUNS} runs (ms)\n`);

const grep = createGrepTool();
const glob = createGlobTool();
const cases: Array<{ name: string; input: Record<string, unknown>; rg: string[] }> = [
  { name: "files  needle_rare_token", input: { pattern: "needle_rare_token" }, rg: ["-l", "-e", "needle_rare_token"] },
  { name: "files  handle\\w+Request", input: { pattern: "handle\\w+Request" }, rg: ["-l", "-e", "handle\\w+Request"] },
  { name: "content needle_rare_token", input: { pattern: "needle_rare_token", output_mode: "content" }, rg: ["-n", "-e", "needle_rare_token"] },
  { name: "content TODO\\(\\w+\\)", input: { pattern: "TODO\\(\\w+\\)", output_mode: "content" }, rg: ["-n", "-e", "TODO\\(\\w+\\)"] },
  { name: "count  -i RESULT", input: { pattern: "RESULT", output_mode: "count", "-i": true }, rg: ["-c", "-i", "-e", "RESULT"] },
];

const rows: string[][] = [["search", "raw rg", "rg-driving", "built-in", "rg-drv/rg", "built-in/rg"]];
for (const c of cases) {
  const [raw, drv, bi] = (await times([
    () => rawRg(c.rg),
    () => runTool(grep, c.input, { YOKE_GREP_ENGINE: "rg" }),
    () => runTool(grep, c.input, { YOKE_GREP_ENGINE: "builtin" }),
  ])) as [number, number, number];
  const a = await runTool(grep, { ...c.input, head_limit: 0 }, { YOKE_GREP_ENGINE: "rg" });
  const b = await runTool(grep, { ...c.input, head_limit: 0 }, { YOKE_GREP_ENGINE: "builtin" });
  const same = a.content === b.content ? "" : "  (OUTPUT DIFFERS)";
  rows.push([c.name + same, raw.toFixed(0), drv.toFixed(0), bi.toFixed(0), (drv / raw).toFixed(2), (bi / raw).toFixed(2)]);
}
{
  const [raw, g] = (await times([() => rawRg(["--files", "--glob", "**/*.ts"]), () => runTool(glob, { pattern: "**/*.ts" }, {})])) as [
    number,
    number,
  ];
  rows.push(["Glob **/*.ts (vs rg --files)", raw.toFixed(0), "-", g.toFixed(0), "-", (g / raw).toFixed(2)]);
}
const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
for (const r of rows) console.log(r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  "));
