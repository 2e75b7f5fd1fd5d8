/**
 * `yoke sessions export` (issue 18.5): one table of many headless runs, read from their result JSON files (the
 * `--output-format json` output each task saved). A fleet's results folder is walked for `*.json` files holding a
 * result object; anything else is skipped and counted, a file that does not parse is named.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";

export type ExportRow = {
  /** Where the result came from, relative to the folder given (the task's name in a fleet). */
  task: string;
  session_id: string;
  /** `success`, or the result's error subtype (`error_max_turns` …). */
  status: string;
  is_error: boolean;
  turns: number;
  cost_usd: number;
  duration_ms: number;
  denials: number;
  /** Runs of this task: failed attempts kept beside its result, plus the result's own. */
  attempts: number;
};

export type ExportSummary = {
  tasks: number;
  succeeded: number;
  failed: number;
  cost_usd: number;
  turns: number;
  denials: number;
  duration_ms: { p50: number; p95: number; max: number };
};

export type ExportResult = { rows: ExportRow[]; summary: ExportSummary; problems: string[] };

const num = (x: unknown): number => (typeof x === "number" && Number.isFinite(x) ? x : 0);

function filesUnder(path: string, out: string[]): void {
  const st = statSync(path);
  if (st.isFile()) {
    out.push(path);
    return;
  }
  for (const e of readdirSync(path, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name, "en", { numeric: true }))) {
    if (e.name.startsWith(".")) continue; // a fleet's own state (.yoke) and partial files
    const p = join(path, e.name);
    if (e.isDirectory()) filesUnder(p, out);
    else if (e.isFile() && e.name.endsWith(".json")) out.push(p);
  }
}

/** A result object from a file's text: the JSON object, or the last `type: result` line of stream-json output. */
function resultOf(text: string): Record<string, unknown> | null {
  const t = text.trim();
  try {
    const v = JSON.parse(t);
    if (v && typeof v === "object" && !Array.isArray(v) && (v as { type?: unknown }).type === "result") return v as Record<string, unknown>;
    if (Array.isArray(v)) return (v.findLast((x) => x?.type === "result") as Record<string, unknown>) ?? null;
    return null;
  } catch {
    const last = t.split("\n").reverse().find((l) => l.includes('"type":"result"'));
    if (!last) throw new Error("not JSON");
    return JSON.parse(last);
  }
}

const pct = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]! : 0);

/** Reads every result under `paths`. Throws only when a given path does not exist. */
export function exportResults(paths: string[]): ExportResult {
  const rows: ExportRow[] = [];
  const problems: string[] = [];
  for (const root of paths) {
    const files: string[] = [];
    try {
      filesUnder(root, files);
    } catch {
      throw new Error(`sessions export: no such file or folder: ${root}`);
    }
    // A fleet task folder holds result.json when it succeeded and failed-*.json per failed attempt: the task is one
    // row (its result, else its last failed attempt, so a task that never succeeded is listed, not lost).
    const byDir = new Map<string, string[]>();
    for (const f of files) byDir.set(dirname(f), [...(byDir.get(dirname(f)) ?? []), f]);
    const chosen: Array<{ file: string; attempts: number; forcedError: boolean }> = [];
    for (const group of byDir.values()) {
      const failed = group.filter((f) => basename(f).startsWith("failed-"));
      const result = group.find((f) => basename(f) === "result.json");
      if (result) chosen.push({ file: result, attempts: failed.length + 1, forcedError: false });
      else if (failed.length) chosen.push({ file: failed.at(-1)!, attempts: failed.length, forcedError: true });
      for (const f of group) if (f !== result && !failed.includes(f)) chosen.push({ file: f, attempts: 1, forcedError: false });
    }
    for (const { file: f, attempts, forcedError } of chosen) {
      let r: Record<string, unknown> | null;
      try {
        r = resultOf(readFileSync(f, "utf8"));
      } catch (e) {
        problems.push(`${f}: not a result JSON file (${(e as Error).message})`);
        continue;
      }
      if (!r) continue;
      const named = basename(f) === "result.json" || forcedError ? dirname(f) : f;
      const task = relative(root, named) || basename(named);
      const isError = forcedError || r.is_error === true;
      rows.push({
        task,
        session_id: String(r.session_id ?? ""),
        status: isError && (r.subtype === "success" || r.subtype === undefined) ? "error" : String(r.subtype ?? "success"),
        is_error: isError,
        turns: num(r.num_turns),
        cost_usd: num(r.total_cost_usd),
        duration_ms: num(r.duration_ms),
        denials: Array.isArray(r.permission_denials) ? r.permission_denials.length : 0,
        attempts,
      });
    }
  }
  const d = rows.map((r) => r.duration_ms).sort((a, b) => a - b);
  const sum = (k: "cost_usd" | "turns" | "denials") => rows.reduce((s, r) => s + r[k], 0);
  return {
    rows,
    problems,
    summary: {
      tasks: rows.length,
      succeeded: rows.filter((r) => !r.is_error).length,
      failed: rows.filter((r) => r.is_error).length,
      cost_usd: Math.round(sum("cost_usd") * 1e6) / 1e6,
      turns: sum("turns"),
      denials: sum("denials"),
      duration_ms: { p50: pct(d, 50), p95: pct(d, 95), max: d.at(-1) ?? 0 },
    },
  };
}

const secs = (ms: number) => `${(ms / 1000).toFixed(1)}s`;

export function formatExportTable(x: ExportResult): string {
  const head = ["task", "session", "status", "turns", "cost", "duration", "denials", "attempts"];
  const body = x.rows.map((r) => [r.task, r.session_id.slice(0, 8), r.status, String(r.turns), `$${r.cost_usd.toFixed(4)}`, secs(r.duration_ms), String(r.denials), String(r.attempts)]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i >= 3 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join("  ").trimEnd();
  const s = x.summary;
  return [
    line(head),
    ...body.map(line),
    "",
    `${s.tasks} tasks: ${s.succeeded} succeeded, ${s.failed} failed; ${s.turns} turns, $${s.cost_usd.toFixed(4)}, ${s.denials} denials; duration p50 ${secs(s.duration_ms.p50)}, p95 ${secs(s.duration_ms.p95)}, max ${secs(s.duration_ms.max)}`,
    "",
  ].join("\n");
}

const csvCell = (v: string | number | boolean) => {
  const s = String(v);
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

export function formatExportCsv(x: ExportResult): string {
  const keys: Array<keyof ExportRow> = ["task", "session_id", "status", "is_error", "turns", "cost_usd", "duration_ms", "denials", "attempts"];
  return `${[keys.join(","), ...x.rows.map((r) => keys.map((k) => csvCell(r[k])).join(","))].join("\n")}\n`;
}
