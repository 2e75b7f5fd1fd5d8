import { estimateTokens, type InstructionFile, type PromptSection } from "./types.ts";

export type ContextBreakdown = { system: number; tools: number; instructions: number; memory: number; messages: number };

export type ContextReport = {
  files: InstructionFile[];
  /** Token estimates (characters / 4). */
  breakdown: ContextBreakdown;
  total: number;
};

/**
 * The data behind `yoke context`. Pure, never throws. Files with layer "memory" in `files` (the
 * MEMORY.md index) count as memory, not instructions.
 */
export function contextReport(opts: {
  files: InstructionFile[];
  systemSections: PromptSection[];
  tools?: Array<{ name: string; description: string; jsonSchema?: unknown }>;
  messages?: unknown[];
}): ContextReport {
  const counted = (f: InstructionFile) => f.status === "included" || f.status === "truncated";
  const sum = (fs: InstructionFile[]) => fs.filter(counted).reduce((n, f) => n + f.tokens, 0);
  const breakdown: ContextBreakdown = {
    system: estimateTokens(opts.systemSections.map((s) => s.text).join("\n\n")),
    tools: (opts.tools ?? []).reduce((n, t) => n + estimateTokens(t.name + t.description + JSON.stringify(t.jsonSchema ?? {})), 0),
    instructions: sum(opts.files.filter((f) => f.layer !== "memory")),
    memory: sum(opts.files.filter((f) => f.layer === "memory")),
    messages: (opts.messages ?? []).reduce<number>((n, m) => n + estimateTokens(typeof m === "string" ? m : JSON.stringify(m)), 0),
  };
  const total = Object.values(breakdown).reduce((a, b) => a + b, 0);
  return { files: opts.files, breakdown, total };
}

const pad = (s: string, n: number) => (s.length >= n ? s : s + " ".repeat(n - s.length));
const padStart = (s: string, n: number) => (s.length >= n ? s : " ".repeat(n - s.length) + s);
const kb = (n: number) => (n < 1024 ? `${n} B` : `${(n / 1024).toFixed(1)} KB`);

/** A plain-text table: the breakdown, then every file in order with layer, size, tokens and status (with reason). */
export function formatContextReport(report: ContextReport): string {
  const b = report.breakdown;
  const lines = [
    "Context (estimated tokens, characters / 4)",
    ...(
      [
        ["System prompt", b.system],
        ["Tools", b.tools],
        ["Instructions", b.instructions],
        ["Memory", b.memory],
        ["Messages", b.messages],
        ["Total", report.total],
      ] as const
    ).map(([k, v]) => `  ${pad(k, 14)}${padStart(v.toLocaleString("en-US"), 9)}`),
    "",
  ];
  if (report.files.length === 0) return [...lines, "No instruction files."].join("\n");
  const rows = report.files.map((f, i) => [
    String(i + 1),
    f.layer,
    kb(f.size),
    f.tokens ? f.tokens.toLocaleString("en-US") : "-",
    f.status + (f.reason ? ` (${f.reason})` : ""),
    f.path + (f.parent ? `  ← imported by ${f.parent}` : ""),
  ]);
  const head = ["#", "layer", "size", "tokens", "status", "path"];
  const widths = head.slice(0, 4).map((h, c) => Math.max(h.length, ...rows.map((r) => r[c]!.length)));
  const fmt = (r: string[]) =>
    `  ${r.slice(0, 4).map((cell, c) => (c >= 2 ? padStart(cell, widths[c]!) : pad(cell, widths[c]!))).join("  ")}  ${r[5]}\n  ${" ".repeat(widths.reduce((a, w) => a + w + 2, 0))}${r[4]}`;
  lines.push("Instruction files, in prompt order:");
  lines.push(`  ${head.slice(0, 4).map((h, c) => (c >= 2 ? padStart(h, widths[c]!) : pad(h, widths[c]!))).join("  ")}  path / status`);
  for (const r of rows) lines.push(fmt(r));
  return lines.join("\n");
}
