import { VERSION } from "./version.ts";
import { flushOutput, writeErr, writeErrAtExit, writeOut, writeOutOnce } from "./util/output.ts";

/** argv → Runtime → mode. The only place that reads process.argv, exits, or installs signal handlers. */
async function main(argv: string[]): Promise<number> {
  if (process.env.YOKE_TIMING === "1") markCpu();
  // Where the memory goes (issue 21): RSS per phase and its split at exit, read from /proc only when asked for.
  if (process.env.YOKE_TIMING === "1" && process.env.YOKE_TIMING_RSS === "1") (memoryProbe = await import("./util/memory-probe.ts")).startRssMarks();
  performance.mark("yoke:main");
  // --version answers before anything else is loaded, without making Node's stdout stream: startup is a feature.
  if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-v")) {
    await writeOutOnce(`${VERSION} (yoke)\n`);
    return 0;
  }
  const { ensureHome } = await import("./util/home.ts");
  const homeNote = ensureHome();
  if (homeNote) writeErr(homeNote);
  const { parseArgv, renderHelp, UsageError } = await import("./cli/args.ts");
  performance.mark("yoke:args-loaded");
  const { COMMANDS, looksLikeMistypedCommand } = await import("./cli/commands/index.ts");
  if (argv[0] && (Object.hasOwn(COMMANDS, argv[0]) || looksLikeMistypedCommand(argv, Object.keys(COMMANDS)))) {
    const { runCommandTree } = await import("./cli/command-tree.ts");
    return runCommandTree(argv);
  }
  let args;
  try {
    args = parseArgv(argv);
  } catch (e) {
    if (e instanceof UsageError) {
      writeErr(`${e.message}\n`);
      return 1;
    }
    throw e;
  }
  if (args.flags.version) {
    writeOut(`${VERSION} (yoke)\n`);
    return 0;
  }
  if (args.flags.help) {
    writeOut(`${renderHelp(VERSION, COMMANDS)}\n`);
    return 0;
  }
  // A person at a terminal without -p gets the interactive session; its module loads only then (startup, issue 21).
  if (!args.flags.print && args.flags["rewind-files"] === undefined && process.stdin.isTTY && process.stdout.isTTY) {
    const { runInteractive } = await import("./tui/index.ts");
    performance.mark("yoke:tui-loaded");
    return runInteractive(args);
  }
  const { runHeadless } = await import("./cli/headless.ts");
  return runHeadless(args);
}

let memoryProbe: typeof import("./util/memory-probe.ts") | undefined;

/**
 * YOKE_TIMING=1: each phase mark also records this process's CPU time (user + system) so far, as its detail. Wall
 * time on a shared machine is mostly waiting for a core; CPU time says what a phase itself costs (issue 21).
 */
function markCpu(): void {
  const mark = performance.mark.bind(performance);
  performance.mark = ((name: string, o?: { detail?: unknown; startTime?: number }) => {
    const c = process.cpuUsage();
    return mark(name, o ?? { detail: { cpuMs: (c.user + c.system) / 1000 } });
  }) as typeof performance.mark;
}

/**
 * YOKE_TIMING=1: one stderr line with the time since process start of each phase mark
 * (performance.mark("yoke:<phase>") anywhere in the code), for profiling startup, and one with this process's CPU
 * time at each (hooks, git and MCP servers not included). Never throws.
 */
function printTiming(): void {
  if (process.env.YOKE_TIMING !== "1") return;
  performance.mark("yoke:exit");
  const marks = (performance.getEntriesByType("mark") as PerformanceMark[]).filter((m) => m.name.startsWith("yoke:"));
  // Measures are durations (the main thread's time on one thing), not points in time.
  const spans = performance.getEntriesByType("measure").filter((m) => m.name.startsWith("yoke:"));
  const cpu = marks.filter((m) => typeof m.detail?.cpuMs === "number");
  writeErrAtExit(
    `yoke timing (ms since start): ${[...marks.map((m) => `${m.name.slice(5)}=${m.startTime.toFixed(1)}`), ...spans.map((m) => `${m.name.slice(5)}:${m.duration.toFixed(2)}`)].join(" ")}\n` +
      `yoke cpu (ms of this process): ${cpu.map((m) => `${m.name.slice(5)}=${(m.detail.cpuMs as number).toFixed(1)}`).join(" ")}\n` +
      (memoryProbe?.memoryReport() ?? ""),
  );
}

/** Exits only after stdout and stderr reached their readers: process.exit() drops what a pipe has not taken yet. */
async function exitAfterFlush(code: number): Promise<never> {
  await flushOutput();
  process.exit(code);
}

main(process.argv.slice(2)).then(
  (code) => {
    printTiming();
    return exitAfterFlush(code);
  },
  (err) => {
    writeErr(`yoke: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return exitAfterFlush(1);
  },
);
