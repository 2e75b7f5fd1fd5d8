/**
 * The benchmark's results as data (what --json writes) and their rendering as a markdown table
 * (what the README carries). Pure functions; nothing here throws on a well-formed Results.
 */
import type { Stats } from "./measure.ts";
import type { ScenarioId, ThreeTurnTool } from "./scenarios.ts";

export type CliFigures = {
  bin: string;
  version: string;
  sizeBytes: number;
  /** Per scenario: wall time in ms and peak RSS in MiB; null when not measured. */
  scenarios: Record<ScenarioId, { wallMs: Stats | null; cpuMs?: Stats | null; firstRequestMs: Stats | null; rssMiB: Stats | null; sideRequests: number } | undefined>;
};

export type Results = {
  date: string;
  runs: number;
  rssMethod: string;
  machine: { cpus: number; cpuModel: string; loadAvg1: number; os: string; bun: string };
  threeTurnScript: `Write → ${ThreeTurnTool} → text`;
  /** Where the runs ran: an empty folder, or the configured project of bench/project.ts. */
  project?: "bare" | "configured";
  /** yoke's YOKE_TIMING phase marks per scenario: ms since process start. */
  phases?: Partial<Record<ScenarioId, Record<string, Stats>>>;
  /** Whether Bash was in the tool list of yoke's init line. */
  yokeHasBash: boolean;
  /** Whether the Bash step's tool_result was an error (e.g. denied); null when not scripted. */
  bashResultIsError: { yoke: boolean | null; claude: boolean | null };
  yoke: CliFigures;
  claude: CliFigures | null;
  targets: typeof TARGETS;
};

/** Issue 2 point 11. */
export const TARGETS = {
  oneTurn: { wallMs: 150, rssMiB: 80 },
  threeTurns: { wallMs: 250 },
} as const;

/** Issue 21 point 4: wall time as a ratio of Claude Code's in the same run, peak RSS and binary size absolute. */
export const RATIO_TARGETS = { version: 0.5, oneTurn: 0.1, threeTurns: 0.1, oneTurnRssMiB: 50, binaryMiB: 110 } as const;

/** For scale, from issue 2: the real `claude` 2.1.332 on this kind of machine. */
export const ISSUE_CLAUDE = "claude 2.1.332 (issue 2): 1.18 s / 196 MiB one turn, 1.37 s / 210 MiB three turns";

const ms = (s: Stats | null | undefined) => (s ? `${Math.round(s.median)} ms` : "–");
const mib = (s: Stats | null | undefined) => (s ? `${s.median.toFixed(1)} MiB` : "–");
const spread = (s: Stats | null | undefined, unit: "ms" | "MiB") =>
  s ? `${unit === "ms" ? Math.round(s.min) : s.min.toFixed(1)}–${unit === "ms" ? Math.round(s.max) : s.max.toFixed(1)}` : "–";
const ratio = (a: Stats | null | undefined, b: Stats | null | undefined) => (a && b && b.median > 0 ? `${(a.median / b.median).toFixed(2)}×` : "–");
const check = (s: Stats | null | undefined, limit: number, unit: string) =>
  s ? `≤ ${limit} ${unit} ${s.median <= limit ? "✓" : "✗"}` : `≤ ${limit} ${unit}`;

const LABELS: Record<ScenarioId, string> = {
  version: "`--version`",
  oneTurn: "one-turn `-p` (text reply)",
  threeTurns: "three turns",
};

/** The README table: medians, min–max, targets with ✓/✗, and claude with ratios when measured. */
export function renderTable(r: Results): string {
  const withClaude = r.claude !== null;
  const head = withClaude
    ? ["", "yoke (median)", "yoke min–max", "target", "claude (median)", "yoke/claude"]
    : ["", "yoke (median)", "yoke min–max", "target"];
  const rows: string[][] = [];
  const label3 = `${LABELS.threeTurns} (${r.threeTurnScript})`;
  for (const id of ["version", "oneTurn", "threeTurns"] as const) {
    const y = r.yoke.scenarios[id];
    const c = r.claude?.scenarios[id];
    const name = id === "threeTurns" ? label3 : LABELS[id];
    const wallTarget = id === "oneTurn" ? check(y?.wallMs, TARGETS.oneTurn.wallMs, "ms") : id === "threeTurns" ? check(y?.wallMs, TARGETS.threeTurns.wallMs, "ms") : "";
    const rssTarget = id === "oneTurn" ? check(y?.rssMiB, RATIO_TARGETS.oneTurnRssMiB, "MiB") : "";
    const ratioTarget = withClaude ? ` · ≤ ${RATIO_TARGETS[id]}× claude ${y?.wallMs && c?.wallMs ? (y.wallMs.median / c.wallMs.median <= RATIO_TARGETS[id] ? "✓" : "✗") : ""}` : "";
    const wall = [`${name}: wall`, ms(y?.wallMs), spread(y?.wallMs, "ms"), `${wallTarget}${ratioTarget}`.replace(/^ · /, "")];
    const cpuRow = [`${name}: CPU (user+sys)`, ms(y?.cpuMs), spread(y?.cpuMs, "ms"), ""];
    const first = [`${name}: spawn → first request`, ms(y?.firstRequestMs), spread(y?.firstRequestMs, "ms"), ""];
    const rss = [`${name}: peak RSS`, mib(y?.rssMiB), spread(y?.rssMiB, "MiB"), rssTarget];
    if (withClaude) {
      wall.push(ms(c?.wallMs), ratio(y?.wallMs, c?.wallMs));
      cpuRow.push(ms(c?.cpuMs), ratio(y?.cpuMs, c?.cpuMs));
      rss.push(mib(c?.rssMiB), ratio(y?.rssMiB, c?.rssMiB));
      first.push(ms(c?.firstRequestMs), ratio(y?.firstRequestMs, c?.firstRequestMs));
    }
    rows.push(wall);
    if (y?.cpuMs) rows.push(cpuRow);
    if (id !== "version") rows.push(first);
    rows.push(rss);
  }
  const sizeMiB = r.yoke.sizeBytes / 1048576;
  const size = ["binary size", `${sizeMiB.toFixed(1)} MiB`, "", `≤ ${RATIO_TARGETS.binaryMiB} MiB ${sizeMiB <= RATIO_TARGETS.binaryMiB ? "✓" : "✗"}`];
  if (withClaude) size.push(`${(r.claude!.sizeBytes / 1048576).toFixed(1)} MiB`, `${(r.yoke.sizeBytes / r.claude!.sizeBytes).toFixed(2)}×`);
  rows.push(size);
  const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
  return [line(head), line(head.map(() => "---")), ...rows.map(line)].join("\n");
}

/** The lines printed above the table: what was run, where and how. */
export function renderPreamble(r: Results): string {
  const m = r.machine;
  const lines = [
    `yoke ${r.yoke.version} — ${r.runs} runs per figure, medians; peak RSS via ${r.rssMethod}`,
    `machine: ${m.cpus} × ${m.cpuModel}, ${m.os}, bun ${m.bun}, load average ${m.loadAvg1.toFixed(2)} at start`,
    `project: ${r.project === "configured" ? "configured (git repo, CLAUDE.md, 3 hooks, 2 skills, 1 stdio MCP server, 2 plugins: bench/project.ts)" : "bare (an empty folder)"}`,
    `three-turn script: ${r.threeTurnScript}${r.threeTurnScript.includes("Read") && !r.yokeHasBash ? " (Bash is not in yoke's tool list yet)" : ""}`,
  ];
  if (r.bashResultIsError.yoke !== null) lines.push(`Bash step result: yoke ${r.bashResultIsError.yoke ? "is_error (denied or failed)" : "ok"}` + (r.bashResultIsError.claude === null ? "" : `, claude ${r.bashResultIsError.claude ? "is_error" : "ok"}`));
  if (r.claude) {
    const side = (f: CliFigures) => (["oneTurn", "threeTurns"] as const).map((id) => f.scenarios[id]?.sideRequests ?? 0).join("/");
    lines.push(`claude: ${r.claude.bin} (${r.claude.version}); side requests per run (one/three): yoke ${side(r.yoke)}, claude ${side(r.claude)}`);
  }
  lines.push(`for scale, ${ISSUE_CLAUDE}`);
  return lines.join("\n");
}

/** yoke's phase marks (YOKE_TIMING=1): median ms since process start, min–max, per scenario. */
export function renderPhases(r: Results): string {
  if (!r.phases || Object.keys(r.phases).length === 0) return "";
  const ids = (["version", "oneTurn", "threeTurns"] as const).filter((id) => r.phases![id]);
  const names: string[] = [];
  for (const id of ids) for (const n of Object.keys(r.phases[id]!)) if (!names.includes(n)) names.push(n);
  const order = (n: string) => Math.min(...ids.map((id) => r.phases![id]![n]?.median ?? Infinity));
  names.sort((a, b) => order(a) - order(b));
  const cell = (s: Stats | undefined) => (s ? `${s.median.toFixed(1)} (${s.min.toFixed(0)}–${s.max.toFixed(0)})` : "");
  const head = ["yoke phase (ms since start, median (min–max))", ...ids.map((id) => LABELS[id])];
  const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
  return [line(head), line(head.map(() => "---")), ...names.map((n) => line([n, ...ids.map((id) => cell(r.phases![id]![n]))]))].join("\n");
}
