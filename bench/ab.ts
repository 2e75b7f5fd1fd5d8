/**
 * `bun run bench/ab.ts --a PATH --b PATH [--runs N] [--scenario oneTurn|threeTurns|version]... [--copies no]`: two yoke binaries
 * (say main's and a branch's) A/B alternating in the configured project of bench/project.ts, the way `bun run bench`
 * runs yoke against Claude Code. Prints per scenario the median, 10th and 90th percentile of wall time, CPU time of
 * the process tree, peak RSS (GNU time's %M), spawn → first request, yoke's own CPU time at the first request and at
 * exit, the first answer → exit (wall and own CPU: the tool turns and the exit without start-up's noise), the last
 * answer → reaped and the exit mark → reaped (the end of a run as its parent sees it, both plus the exec), how many
 * times JavaScriptCore collected its heap during the run (BUN_JSC_logGC), and each
 * binary's YOKE_TIMING phases (wall / own CPU, medians). Each scenario runs fresh copies of both binaries (the state a
 * `cp` install leaves, bench/fresh-copy.ts); `--copies no` runs them where they are, to measure the page-cache state
 * they are in (just built, caches dropped). Never a timed test: it only prints. Exits 1 naming a failed run.
 */
import { realpathSync, rmSync } from "node:fs";
import { loadavg } from "node:os";
import { fakeApiEnv, startFakeAnthropic } from "../test/helpers/fake-anthropic.ts";
import { isolatedEnv } from "../test/helpers/binary.ts";
import { detectRssMethod, measure } from "./measure.ts";
import { freshCopies } from "./fresh-copy.ts";
import { configuredArgs, configuredProblem, writeConfiguredProject } from "./project.ts";
import { freshCwd, installResponder, newRunLog, runProblem, scenarioArgs, type RunLog, type ScenarioId } from "./scenarios.ts";
import { parseCpu, parseTiming } from "./timing.ts";

type Opts = { a: string; b: string; runs: number; scenarios: ScenarioId[]; copies: boolean };

function parseOpts(argv: string[]): Opts {
  const o: Partial<Opts> & { scenarios: ScenarioId[] } = { runs: 9, scenarios: [], copies: true };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const v = argv[++i];
    if (v === undefined) throw new Error(`bench/ab: ${a} needs a value`);
    if (a === "--a") o.a = realpathSync(v);
    else if (a === "--b") o.b = realpathSync(v);
    else if (a === "--runs") {
      o.runs = Number(v);
      if (!Number.isInteger(o.runs) || o.runs < 5) throw new Error(`bench/ab: --runs must be a whole number of at least 5 (got '${v}')`);
    } else if (a === "--scenario") {
      if (v !== "version" && v !== "oneTurn" && v !== "threeTurns") throw new Error(`bench/ab: --scenario must be version, oneTurn or threeTurns (got '${v}')`);
      o.scenarios.push(v);
    } else if (a === "--copies") {
      if (v !== "yes" && v !== "no") throw new Error(`bench/ab: --copies must be yes or no (got '${v}')`);
      o.copies = v === "yes";
    } else throw new Error(`bench/ab: unknown option ${a} (use --a PATH --b PATH [--runs N] [--scenario ID]... [--copies no])`);
  }
  if (!o.a || !o.b) throw new Error("bench/ab: --a PATH and --b PATH are both needed");
  return { a: o.a, b: o.b, runs: o.runs!, scenarios: o.scenarios.length ? o.scenarios : ["oneTurn", "threeTurns"], copies: o.copies! };
}

/** Nearest-rank percentile of a non-empty list. */
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((x, y) => x - y);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
};
const fmt = (xs: number[]) => (xs.length ? `${pct(xs, 50).toFixed(1)} (${pct(xs, 10).toFixed(1)}–${pct(xs, 90).toFixed(1)})` : "–");

async function main(): Promise<number> {
  const o = parseOpts(process.argv.slice(2));
  const fake = await startFakeAnthropic();
  let current: RunLog | null = null;
  const restock = installResponder(fake, () => current, () => "Bash");
  const scratch: string[] = [];
  // Peak RSS by GNU time's %M where it works (measure.ts says why not Bun's resourceUsage), else /proc polling.
  const rss = detectRssMethod();
  console.log(`bench/ab: A = ${o.a}\n          B = ${o.b}\n${o.runs} runs each, alternating, ${o.copies ? "fresh copies of both" : "run where they are"}; load average ${loadavg()[0]!.toFixed(1)} at start`);
  try {
    for (const id of o.scenarios) {
      const fig: Record<string, Record<string, number[]>> = { A: {}, B: {} };
      const phases: Record<string, Record<string, number[]>> = { A: {}, B: {} };
      const push = (m: Record<string, number[]>, k: string, v: number | null | undefined) => v != null && Number.isFinite(v) && (m[k] ??= []).push(v);
      // Every scenario times fresh copies of both binaries, in the same page-cache state (bench/fresh-copy.ts says why):
      // a binary just built and one copied an hour ago differ by ~10 MiB of peak RSS and ~20% of --version's CPU.
      const copies = o.copies ? freshCopies([o.a, o.b]) : null;
      if (copies) scratch.push(copies.dir);
      const binOf = copies ? { A: copies.copies[0]!, B: copies.copies[1]! } : { A: o.a, B: o.b };
      // One unmeasured run each first (page cache, the fake's first connection).
      for (let i = -1; i < o.runs; i++) {
        // Each timed run (spawned directly) is followed by a run under GNU time for peak RSS alone: its fork and exec
        // add ~3 ms of wall and ~2.5 ms of CPU to a run it wraps (bench/run.ts).
        const order = i % 2 ? (["A", "B"] as const) : (["B", "A"] as const);
        for (const [which, rssRun] of [...order.map((w) => [w, false] as const), ...(rss === "none" ? [] : order.map((w) => [w, true] as const))]) {
          const cwd = freshCwd();
          const tmp = freshCwd();
          if (id !== "version") writeConfiguredProject(cwd);
          const env: Record<string, string> = { ...isolatedEnv({ ...fakeApiEnv(fake), YOKE_RETRY_BASE_MS: "5", YOKE_TIMING: "1", YOKE_TRUST_WORKSPACE: "1" }), TMPDIR: tmp };
          // --version is measured as a user runs it, without the YOKE_TIMING probe (Claude Code runs without one): the probe's
          // marks, CPU reads and stderr line are ~45 page faults of a ~700-fault start, and take it through src/main.ts rather
          // than src/entry.ts's answer (issue 21). Its phases are main and exit, a fraction of a millisecond apart.
          if (id === "version") delete env.YOKE_TIMING;
          // JavaScriptCore logs each collection (one line per start) to stderr: a three-turn run held one in its tool turns,
          // 10–19 ms of CPU, until the children's pipes stopped costing the heap 256 KiB each (src/util/read-after-exit.ts).
          else if (!rssRun) env.BUN_JSC_logGC = "1";
          scratch.push(cwd, tmp, env.HOME!);
          current = newRunLog(id, cwd);
          restock();
          const s = await measure([binOf[which], ...scenarioArgs(id), ...(id === "version" ? [] : configuredArgs())], { cwd, env, rss: rssRun ? rss : "none", timeoutMs: 240_000 });
          const log = current;
          current = null;
          const problem = runProblem(id, s, log) ?? (id === "version" ? null : configuredProblem(log.firstBody, { mcp: true }));
          if (problem) throw new Error(`bench/ab: ${which} ${id} run failed: ${problem}`);
          if (i < 0) continue;
          if (rssRun) {
            if (s.rssKiB !== null) push(fig[which]!, "peak RSS, MiB", s.rssKiB / 1024);
            if (rss === "reaper") push(fig[which]!, "CPU, process tree", s.cpuMs);
            continue;
          }
          const wall = parseTiming(s.stderr);
          const cpu = parseCpu(s.stderr);
          push(fig[which]!, "wall", s.wallMs);
          // With the reaper, the tree's CPU comes from the RSS runs: it counts what outlives the run too (reap-all.py).
          if (rss !== "reaper") push(fig[which]!, "CPU, process tree", s.cpuMs);
          if (log.firstRequestAt !== null) push(fig[which]!, "spawn → first request", log.firstRequestAt - s.startedAt);
          push(fig[which]!, "own CPU at the request", cpu.request);
          push(fig[which]!, "own CPU at exit", cpu.exit);
          push(fig[which]!, "JS heap collections (count)", (s.stderr.match(/: START .*=> (Eden|Full)Collection/g) ?? []).length);
          // The turns after the first answer (issue 21: tool turns, the exit), without start-up's noise.
          if (wall["message-done"] !== undefined && wall.exit !== undefined) push(fig[which]!, "first answer → exit", wall.exit - wall["message-done"]);
          if (cpu["message-done"] !== undefined && cpu.exit !== undefined) push(fig[which]!, "own CPU, first answer → exit", cpu.exit - cpu["message-done"]);
          // The end of a run as its parent sees it (issue 21): from the last answer, and from the exit mark, to the reap.
          // Marks count from the process's start, the wall from the spawn, so both hold the exec before yoke's first
          // instruction (the same in A and B); compare them, not their size.
          const lastAnswer = Math.max(...Object.entries(wall).filter(([k]) => /^turn-message-\d+$/.test(k)).map(([, v]) => v));
          if (Number.isFinite(lastAnswer)) push(fig[which]!, "last answer → reaped (+ exec)", s.wallMs - lastAnswer);
          if (wall.exit !== undefined) push(fig[which]!, "exit mark → reaped (+ exec)", s.wallMs - wall.exit);
          for (const [k, v] of Object.entries(wall)) push(phases[which]!, `${k} wall`, v);
          for (const [k, v] of Object.entries(cpu)) push(phases[which]!, `${k} cpu`, v);
        }
      }
      console.log(`\n### ${id}: median (p10–p90), ms\n\n| | A | B | B/A |\n|---|---|---|---|`);
      for (const k of Object.keys(fig.A!)) {
        const a = fig.A![k]!;
        const b = fig.B![k] ?? [];
        console.log(`| ${k} | ${fmt(a)} | ${fmt(b)} | ${b.length ? (pct(b, 50) / pct(a, 50)).toFixed(2) : "–"}× |`);
      }
      const names = [...new Set([...Object.keys(phases.A!), ...Object.keys(phases.B!)].map((k) => k.replace(/ (wall|cpu)$/, "")))];
      const med = (w: string, k: string) => (phases[w]![k]?.length ? pct(phases[w]![k]!, 50).toFixed(1) : "–");
      names.sort((x, y) => Number(med("B", `${x} wall`)) - Number(med("B", `${y} wall`)));
      console.log(`\n| phase: wall / own CPU (medians) | A | B |\n|---|---|---|`);
      for (const n of names) console.log(`| ${n} | ${med("A", `${n} wall`)} / ${med("A", `${n} cpu`)} | ${med("B", `${n} wall`)} / ${med("B", `${n} cpu`)} |`);
    }
    return 0;
  } finally {
    await fake.stop();
    for (const d of scratch) rmSync(d, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(1);
  },
);
