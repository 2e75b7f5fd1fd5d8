/**
 * `bun run bench/memory.ts [--bin PATH] [--runs N] [--scenario oneTurn|threeTurns] [--project configured|bare]`: where a
 * run's memory goes (issue 21: peak RSS of a one-turn run ≤ 50 MiB). Runs the compiled yoke (dist/yoke unless --bin)
 * with YOKE_TIMING=1 YOKE_TIMING_RSS=1 in the bench project (bench/project.ts) and prints the median peak RSS (GNU
 * time's %M), the median RSS at each phase mark, and the median split at exit: Bun's machine code, read-only data, data
 * and embedded bytecode, anonymous memory (JavaScript heap, malloc, stacks), shared libraries, with the JavaScript
 * heap's capacity and its live functions, code blocks and structures. Reading /proc at every mark costs CPU: compare
 * CPU with bench/ab.ts, never here. Each phase's row also splits its RSS by kind, which says whether a phase grew
 * by running more of Bun's code (shared by every feature that uses it) or by the heap. Never a timed test: it only prints; exits 1 naming a failed run.
 */
import { rmSync } from "node:fs";
import { isolatedEnv, yokeBin } from "../test/helpers/binary.ts";
import { fakeApiEnv, startFakeAnthropic } from "../test/helpers/fake-anthropic.ts";
import { detectRssMethod, measure, stats } from "./measure.ts";
import { configuredArgs, configuredProblem, writeConfiguredProject } from "./project.ts";
import { freshCwd, installResponder, newRunLog, runProblem, scenarioArgs, type RunLog, type ScenarioId } from "./scenarios.ts";

const argv = process.argv.slice(2);
const opt = (name: string) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const bin = opt("--bin") ?? yokeBin();
const runs = Number(opt("--runs") ?? 5);
const id = (opt("--scenario") ?? "oneTurn") as ScenarioId;
const configured = (opt("--project") ?? "configured") === "configured";
if (!Number.isInteger(runs) || runs < 1) throw new Error(`bench/memory: --runs must be a whole number (got '${opt("--runs")}')`);
if (id !== "oneTurn" && id !== "threeTurns") throw new Error(`bench/memory: --scenario must be oneTurn or threeTurns (got '${id}')`);

/** `name=number` pairs of the stderr line starting with `head`. */
const pairs = (stderr: string, head: string): Array<[string, number]> =>
  [...(stderr.split("\n").find((l) => l.startsWith(head)) ?? "").slice(head.length).matchAll(/([\w-]+)=([\d.]+)/g)].map((m) => [m[1]!, Number(m[2])]);

const fake = await startFakeAnthropic();
let current: RunLog | null = null;
const restock = installResponder(fake, () => current, () => "Bash");
const rss = detectRssMethod();
const peaks: number[] = [];
const phases = new Map<string, number[]>();
const split = new Map<string, number[]>();
/** `mark\0index of the kind` → MiB per run (code, rodata, data, anon, libs: memory-probe.ts's order). */
const kindsAt = new Map<string, number[]>();
const push = (m: Map<string, number[]>, k: string, v: number) => (m.get(k) ?? m.set(k, []).get(k)!).push(v);
try {
  // One unmeasured run first: the binary's pages into the page cache (a cold binary maps fewer of them).
  for (let i = -1; i < runs; i++) {
    const cwd = freshCwd();
    const tmp = freshCwd();
    if (configured) writeConfiguredProject(cwd);
    const env: Record<string, string> = { ...isolatedEnv({ ...fakeApiEnv(fake), YOKE_RETRY_BASE_MS: "5", YOKE_TIMING: "1", YOKE_TIMING_RSS: "1", YOKE_TRUST_WORKSPACE: "1" }), TMPDIR: tmp };
    current = newRunLog(id, cwd);
    restock();
    const s = await measure([bin, ...scenarioArgs(id), ...(configured ? configuredArgs() : [])], { cwd, env, rss, timeoutMs: 240_000 });
    const log = current;
    current = null;
    for (const d of [cwd, tmp, env.HOME!]) rmSync(d, { recursive: true, force: true });
    const problem = runProblem(id, s, log) ?? (configured ? configuredProblem(log.firstBody, { mcp: true }) : null);
    if (problem) throw new Error(`bench/memory: run failed: ${problem}`);
    if (i < 0) continue;
    if (s.rssKiB !== null) peaks.push(s.rssKiB / 1024);
    for (const [k, v] of pairs(s.stderr, "yoke rss (MiB at each mark): ")) push(phases, k, v);
    const byKind = s.stderr.split("\n").find((l) => l.startsWith("yoke rss by kind"));
    for (const m of byKind?.slice(byKind.indexOf("): ") + 3).matchAll(/([\w-]+)=([\d./]+)/g) ?? []) {
      m[2]!.split("/").forEach((x, j) => push(kindsAt, `${m[1]}\0${j}`, Number(x)));
    }
    for (const [k, v] of pairs(s.stderr, "yoke memory at exit (MiB): ")) push(split, k, v);
  }
} finally {
  await fake.stop();
}
const med = (xs: number[]) => stats(xs)!.median;
const f = (xs: number[]) => {
  const s = stats(xs)!;
  return `${s.median.toFixed(1)} (${s.min.toFixed(1)}–${s.max.toFixed(1)})`;
};
console.log(`bench/memory: ${bin}, ${id}, ${configured ? "configured" : "bare"} project, ${runs} runs (median, min–max)\n`);
console.log(`peak RSS: ${peaks.length ? `${f(peaks)} MiB` : "not measured (no GNU time or /proc)"}\n`);
console.log("| phase | RSS, MiB | step | Bun's code | read-only data | data and bytecode | anonymous | libraries |\n|---|---|---|---|---|---|---|---|");
let last = 0;
// In the order of the first run's marks (time order); `step` is the growth since the mark before; the kinds are each
// kind's medians at that mark (their sum is close to, not equal to, the RSS median).
for (const [k, v] of phases) {
  const d = med(v) - last;
  const kinds = [0, 1, 2, 3, 4].map((j) => kindsAt.get(`${k}\0${j}`)).map((xs) => (xs?.length ? med(xs).toFixed(1) : ""));
  console.log(`| ${k} | ${f(v)} | ${last ? `${d >= 0 ? "+" : ""}${d.toFixed(1)}` : ""} | ${kinds.join(" | ")} |`);
  last = med(v);
}
console.log("\n| at exit | median |\n|---|---|");
const counts = new Set(["js-functions", "js-code-blocks", "js-structures", "threads"]);
for (const [k, v] of split) console.log(`| ${k}${counts.has(k) ? "" : ", MiB"} | ${med(v).toFixed(counts.has(k) ? 0 : 1)} |`);
process.exit(0);
