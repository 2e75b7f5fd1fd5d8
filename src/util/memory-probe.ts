import { readFileSync } from "node:fs";

/**
 * YOKE_TIMING_RSS=1 (with YOKE_TIMING=1): where a run's memory goes, for issue 21's peak-RSS target (bench/memory.ts
 * reads it). Each phase mark records the resident set size then and its split by kind (reading smaps: ~1 ms a mark, and
 * the text read adds ~2 MiB of anonymous memory to the probed run's peak), and at
 * exit one line splits it by kind: the binary's
 * machine code (Bun's own, touched pages), its read-only data, its data and embedded bytecode, anonymous memory (the
 * JavaScript heap, malloc, stacks) and shared libraries, with the JavaScript heap's capacity, live counts of functions,
 * code blocks and structures, and the number of threads. Loaded only when asked
 * for: reading /proc costs ~0.5 ms a time here, which would distort the CPU figures of YOKE_TIMING alone. Linux only;
 * elsewhere the lines say "unavailable". Never throws.
 */
const MiB = 1048576;
const marks: string[] = [];
/** Per mark, the split of residentByKind (`code/rodata/data/anon/libs`), so a phase's growth has a kind. */
const kindMarks: string[] = [];

const rssBytes = (): number | undefined => {
  try {
    return Number(readFileSync("/proc/self/statm", "latin1").split(" ")[1]) * 4096;
  } catch {
    return undefined;
  }
};

/** From now on each `yoke:` phase mark also records the RSS at that moment. */
export function startRssMarks(): void {
  const mark = performance.mark.bind(performance);
  performance.mark = ((name: string, o?: Parameters<typeof performance.mark>[1]) => {
    const r = name.startsWith("yoke:") ? rssBytes() : undefined;
    if (r !== undefined) {
      marks.push(`${name.slice(5)}=${(r / MiB).toFixed(1)}`);
      const k = residentByKind();
      if (k) kindMarks.push(`${name.slice(5)}=${Object.values(k).map((v) => v.toFixed(1)).join("/")}`);
    }
    return mark(name, o);
  }) as typeof performance.mark;
}

/** Resident MiB per kind of mapping in /proc/self/smaps, or null when it cannot be read. */
function residentByKind(): Record<string, number> | null {
  let text: string;
  try {
    text = readFileSync("/proc/self/smaps", "latin1");
  } catch {
    return null;
  }
  const out: Record<string, number> = { "binary-code": 0, "binary-rodata": 0, "binary-data": 0, anon: 0, libs: 0 };
  let kind = "anon";
  for (const line of text.split("\n")) {
    const m = /^[0-9a-f]+-[0-9a-f]+ (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (m) {
      const [, perms, path] = m;
      if (!path || path.startsWith("[")) kind = "anon";
      else if (path === process.execPath) kind = perms!.includes("x") ? "binary-code" : perms!.includes("w") ? "binary-data" : "binary-rodata";
      else kind = "libs";
      continue;
    }
    if (line.startsWith("Rss:")) out[kind]! += Number(line.slice(4).trim().split(" ")[0]) / 1024;
  }
  return out;
}

/** The two lines printed at exit (after the timing lines). */
export function memoryReport(): string {
  const kinds = residentByKind();
  let heap = "";
  try {
    const h = (require("bun:jsc") as typeof import("bun:jsc")).heapStats();
    // Capacity, not size: heapSize and the object count are only brought up to date by a collection, and a short run
    // may end before its first. Functions and structures are counted live (the code a start loads and runs).
    const t = h.objectTypeCounts;
    heap = ` js-heap-capacity=${(h.heapCapacity / MiB).toFixed(1)} js-functions=${t.Function ?? 0} js-code-blocks=${(t.FunctionCodeBlock ?? 0) + (t.UnlinkedFunctionCodeBlock ?? 0)} js-structures=${t.Structure ?? 0}`;
  } catch {
    // Not Bun's JavaScriptCore: no heap figures.
  }
  const split = kinds ? Object.entries(kinds).map(([k, v]) => `${k}=${v.toFixed(1)}`).join(" ") : "unavailable";
  let threads = "";
  try {
    threads = ` threads=${/^Threads:\s+(\d+)/m.exec(readFileSync("/proc/self/status", "latin1"))?.[1] ?? "?"}`;
  } catch {
    // Not Linux.
  }
  const byKind = `yoke rss by kind (MiB at each mark, ${Object.keys(kinds ?? {}).join("/")}): ${kindMarks.length ? kindMarks.join(" ") : "unavailable"}\n`;
  return `yoke rss (MiB at each mark): ${marks.length ? marks.join(" ") : "unavailable"}\n${byKind}yoke memory at exit (MiB): ${split}${heap}${threads}\n`;
}
