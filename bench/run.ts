/**
 * `bun run bench [--runs N] [--json [FILE]] [--bin PATH] [--three-turn-tool Bash|Read]`: medians of wall time and peak RSS of the
 * compiled yoke for `--version`, a one-turn `-p` run and a three-turn Write → Bash|Read → text run
 * against the fake Anthropic API, plus the binary's size. With CLAUDE_BIN set, the same runs of
 * that CLI side by side (same fake server, same flags, its own isolated HOME) and ratios.
 * `bun run bench --from-json FILE` re-renders the table from a saved result without running.
 *
 * Exits 1 (naming the run and its output) when a run does not do what its scenario scripts: a
 * figure from a failed run would be meaningless. Never a timed test: it only prints.
 */
import { existsSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cpus, loadavg, platform, release } from "node:os";
import { join } from "node:path";
import { fakeApiEnv, startFakeAnthropic, type FakeAnthropic } from "../test/helpers/fake-anthropic.ts";
import { isolatedEnv, repoRoot, yokeBin } from "../test/helpers/binary.ts";
import { detectRssMethod, measure, stats, type RssMethod } from "./measure.ts";
import { freshCopies } from "./fresh-copy.ts";
import { configuredArgs, configuredProblem, writeConfiguredProject, type ProjectKind } from "./project.ts";
import { parseTiming } from "./timing.ts";
import { renderPhases, renderPreamble, renderTable, TARGETS, type CliFigures, type Results } from "./report.ts";
import {
  freshCwd,
  installResponder,
  newRunLog,
  runProblem,
  scenarioArgs,
  type RunLog,
  type ScenarioId,
  type ThreeTurnTool,
} from "./scenarios.ts";

type Opts = { runs: number; json: string | null; bin: string | null; fromJson: string | null; script: ThreeTurnTool | null; project: ProjectKind; claude: boolean };

function parseOpts(argv: string[]): Opts {
  const o: Opts = { runs: 7, json: null, bin: null, fromJson: null, script: null, project: "configured", claude: true };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const next = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`bench: ${a} needs a value`);
      return v;
    };
    if (a === "--runs") {
      o.runs = Number(next());
      // Fewer runs make medians that one noisy neighbour can move: not worth printing as figures.
      if (!Number.isInteger(o.runs) || o.runs < 5) throw new Error(`bench: --runs must be a whole number of at least 5 (got '${argv[i]}')`);
    } else if (a === "--json") {
      o.json = argv[i + 1] && !argv[i + 1]!.startsWith("--") ? argv[++i]! : join(repoRoot(), "bench", "results.json");
    } else if (a === "--bin") o.bin = next();
    else if (a === "--from-json") o.fromJson = next();
    else if (a === "--three-turn-tool") {
      const v = next();
      if (v !== "Bash" && v !== "Read") throw new Error(`bench: --three-turn-tool must be Bash or Read (got '${v}')`);
      o.script = v;
    } else if (a === "--project") {
      const v = next();
      if (v !== "bare" && v !== "configured") throw new Error(`bench: --project must be bare or configured (got '${v}')`);
      o.project = v;
    } else if (a === "--no-claude") o.claude = false;
    else throw new Error(`bench: unknown option ${a} (use --runs N, --json [FILE], --bin PATH, --from-json FILE, --three-turn-tool Bash|Read, --project bare|configured, --no-claude)`);
  }
  return o;
}

type Cli = {
  name: "yoke" | "claude";
  bin: string;
  fake: FakeAnthropic;
  restock: () => void;
  env: (fakeEnv: Record<string, string>) => Record<string, string>;
};

const SCENARIOS: ScenarioId[] = ["version", "oneTurn", "threeTurns"];

async function main(): Promise<number> {
  const opts = parseOpts(process.argv.slice(2));
  if (opts.fromJson) {
    const r = JSON.parse(readFileSync(opts.fromJson, "utf8")) as Results;
    console.log(`${renderPreamble(r)}\n\n${renderTable(r)}\n\n${renderPhases(r)}`);
    return 0;
  }
  const loadAvg1 = loadavg()[0]!;
  const rss: RssMethod = detectRssMethod();
  const yokePath = realpathSync(opts.bin ?? yokeBin());
  let current: RunLog | null = null;
  let tool: ThreeTurnTool = "Read";
  let hasBash = false;
  const fake = await startFakeAnthropic();
  const fakes = [fake];
  const clis: Cli[] = [
    // YOKE_TIMING: the phase marks (one stderr line at exit); trust: the project's hooks and MCP servers apply, as
    // they do for Claude Code in -p mode, which asks no trust question.
    { name: "yoke", bin: yokePath, fake, restock: installResponder(fake, () => current, () => tool), env: (f) => isolatedEnv({ ...f, YOKE_RETRY_BASE_MS: "5", YOKE_TIMING: "1", YOKE_TRUST_WORKSPACE: "1" }) },
  ];
  // The pinned Claude Code 2.1.332 native build the Agent SDK dev dependency ships, unless CLAUDE_BIN names another.
  const pinned = join(repoRoot(), "node_modules", "@anthropic-ai", "claude-agent-sdk-linux-x64", "claude");
  const claudeBin = opts.claude ? (process.env.CLAUDE_BIN || (existsSync(pinned) ? pinned : undefined)) : undefined;
  if (claudeBin) {
    // Its own fake without request validation: Claude Code 2.1.197 sends `role: "system"` entries in
    // `messages`, which the real API takes but fake-validate.ts refuses.
    const claudeFake = await startFakeAnthropic({ validate: false });
    fakes.push(claudeFake);
    clis.push({
      name: "claude",
      bin: realpathSync(Bun.which(claudeBin) ?? claudeBin),
      fake: claudeFake,
      restock: installResponder(claudeFake, () => current, () => tool),
      // No telemetry or update checks: there is no network, and a CI user would switch them off too.
      env: (f) => isolatedEnv({ ...f, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1", DISABLE_AUTOUPDATER: "1", DISABLE_TELEMETRY: "1" }),
    });
  }
  const scratch: string[] = [];
  // --version times fresh copies of the binaries, all in the same page-cache state (bench/fresh-copy.ts says why).
  const versionBins = new Map<Cli, string>();

  // rssRun: this run measures peak RSS alone. GNU time's own fork and exec add ~3 ms of wall and ~2.5 ms of CPU to
  // every run it wraps (measured on Bun 1.4.5: yoke --version 10.2 → 13.3 ms, Claude Code's 25.8 → 28.9), a
  // constant that pulls every ratio toward 1; so wall and first request come from runs spawned directly, and CPU too
  // unless the RSS runs use bench/reap-all.py, which counts what outlives the run as well.
  const once = async (cli: Cli, id: ScenarioId, rssRun = false) => {
    const cwd = freshCwd();
    scratch.push(cwd);
    const configured = opts.project === "configured" && id !== "version";
    if (configured) writeConfiguredProject(cwd);
    // Each run its own empty TMPDIR, as on a user's machine: this shared machine's /tmp holds ~100,000 test leftovers,
    // and yoke's sweep of dead runs' scratch folders lists it (~100 ms of CPU) once the first request has left.
    const tmp = freshCwd();
    scratch.push(tmp);
    const env: Record<string, string> = { ...cli.env(fakeApiEnv(cli.fake)), TMPDIR: tmp };
    // --version is measured as a user runs it, without the YOKE_TIMING probe (Claude Code runs without one): the probe's
    // marks, CPU reads and stderr line are ~45 page faults of a ~700-fault start, and take it through src/main.ts rather
    // than src/entry.ts's answer (issue 21). Its phases are main and exit, a fraction of a millisecond apart.
    if (id === "version") delete env.YOKE_TIMING;
    scratch.push(env.HOME!);
    const log = newRunLog(id, cwd);
    current = log;
    cli.restock();
    // A long limit: at nice 19 on a loaded shared machine one Claude Code run has taken 30 s.
    const s = await measure([versionBins.get(cli) ?? cli.bin, ...scenarioArgs(id), ...(configured ? configuredArgs() : [])], { cwd, env, rss: rssRun ? rss : "none", timeoutMs: 240_000 });
    current = null;
    const problem = runProblem(id, s, log) ?? (configured ? configuredProblem(log.firstBody, { mcp: cli.name === "yoke" }) : null);
    if (problem) throw new Error(`bench: ${cli.name} ${id} run failed: ${problem}\n  stderr: ${s.stderr.slice(0, 400)}`);
    return { s, log };
  };

  try {
    // Which three-turn script: Write → Bash → text when the binary has Bash, else Write → Read → text.
    const probeCwd = freshCwd();
    scratch.push(probeCwd);
    const probeEnv = clis[0]!.env(fakeApiEnv(fake));
    scratch.push(probeEnv.HOME!);
    clis[0]!.restock();
    const probe = await measure([yokePath, "-p", "probe", "--output-format", "stream-json", "--verbose"], { cwd: probeCwd, env: probeEnv, rss: "none" });
    const init = probe.stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l)).find((l) => l.type === "system" && l.subtype === "init");
    if (!init) throw new Error(`bench: no init line from ${yokePath}:\n${probe.stdout}${probe.stderr}`);
    hasBash = (init.tools as string[]).includes("Bash");
    tool = opts.script ?? (hasBash ? "Bash" : "Read");
    if (tool === "Bash" && !hasBash) console.error("bench: note: Bash forced but not in yoke's tool list: yoke's second step gets an is_error result");

    const wall: Record<string, number[]> = {};
    const cpu: Record<string, number[]> = {};
    const phases: Record<string, Record<string, number[]>> = {};
    const rssMiB: Record<string, number[]> = {};
    const toFirst: Record<string, number[]> = {};
    const side: Record<string, number> = {};
    const bashErr: Record<string, boolean | null> = { yoke: null, claude: null };
    for (const id of SCENARIOS) {
      versionBins.clear();
      if (id === "version") {
        const { dir, copies } = freshCopies(clis.map((c) => c.bin));
        scratch.push(dir);
        clis.forEach((c, i) => versionBins.set(c, copies[i]!));
      }
      // One unmeasured run each first, so page cache and the fake's first connection are warm.
      for (const cli of clis) await once(cli, id);
      for (let i = 0; i < opts.runs; i++) {
        // Interleaved, so a burst of load on a shared machine hits both CLIs alike.
        for (const cli of clis) {
          const { s, log } = await once(cli, id);
          const key = `${cli.name}/${id}`;
          (wall[key] ??= []).push(s.wallMs);
          // With the reaper, CPU comes from the RSS runs: it counts what outlives the run too (bench/reap-all.py).
          if (s.cpuMs !== null && rss !== "reaper") (cpu[key] ??= []).push(s.cpuMs);
          if (cli.name === "yoke") for (const [phase, at] of Object.entries(parseTiming(s.stderr))) ((phases[id] ??= {})[phase] ??= []).push(at);
          if (log.firstRequestAt !== null) (toFirst[key] ??= []).push(log.firstRequestAt - s.startedAt);
          side[key] = Math.max(side[key] ?? 0, log.sideRequests);
          if (id === "threeTurns" && tool === "Bash") bashErr[cli.name] = log.toolResults[1]?.isError ?? null;
        }
        if (rss !== "none")
          for (const cli of clis) {
            const { s } = await once(cli, id, true);
            if (s.rssKiB !== null) (rssMiB[`${cli.name}/${id}`] ??= []).push(s.rssKiB / 1024);
            if (s.cpuMs !== null && rss === "reaper") (cpu[`${cli.name}/${id}`] ??= []).push(s.cpuMs);
          }
      }
      process.stderr.write(`bench: ${id} done\n`);
    }

    const figures = (cli: Cli): CliFigures => {
      const version = Bun.spawnSync([cli.bin, "--version"], { env: cli.env({}) }).stdout.toString().trim();
      const scenarios = {} as CliFigures["scenarios"];
      for (const id of SCENARIOS) {
        const key = `${cli.name}/${id}`;
        scenarios[id] = { wallMs: stats(wall[key] ?? []), cpuMs: stats(cpu[key] ?? []), firstRequestMs: stats(toFirst[key] ?? []), rssMiB: stats(rssMiB[key] ?? []), sideRequests: side[key] ?? 0 };
      }
      return { bin: cli.bin, version, sizeBytes: statSync(cli.bin).size, scenarios };
    };
    const results: Results = {
      date: new Date().toISOString(),
      runs: opts.runs,
      rssMethod: rss === "reaper" ? "bench/reap-all.py (child subreaper: the whole tree's peak and CPU, what outlives the run included)" : rss === "gnu-time" ? "GNU time %M" : rss === "proc-vmhwm" ? "polling /proc/<pid>/status VmHWM" : "none (not measured)",
      machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? "unknown", loadAvg1, os: `${platform()} ${release()}`, bun: Bun.version },
      threeTurnScript: `Write → ${tool} → text`,
      project: opts.project,
      phases: Object.fromEntries(Object.entries(phases).map(([id, p]) => [id, Object.fromEntries(Object.entries(p).map(([k, v]) => [k, stats(v)!]))])),
      yokeHasBash: hasBash,
      bashResultIsError: { yoke: bashErr.yoke ?? null, claude: bashErr.claude ?? null },
      yoke: figures(clis[0]!),
      claude: clis[1] ? figures(clis[1]) : null,
      targets: TARGETS,
    };
    console.log(`${renderPreamble(results)}\n\n${renderTable(results)}\n\n${renderPhases(results)}`);
    if (opts.json) {
      writeFileSync(opts.json, `${JSON.stringify(results, null, 2)}\n`);
      console.log(`\nwrote ${opts.json}`);
    }
    return 0;
  } finally {
    for (const f of fakes) await f.stop();
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
