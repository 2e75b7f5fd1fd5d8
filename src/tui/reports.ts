import { contextReport, formatContextReport } from "../context/index.ts";
import { formatHookList, listHooks } from "../hook/index.ts";
import type { Runtime } from "../cli/compose.ts";
import { modelInfo } from "../provider/models.ts";
import { VERSION } from "../version.ts";

/** The texts behind /context, /cost, /status, /permissions, /hooks, /agents, /plugins and /memory. Never throw. */

/** `/context`: the same report as `yoke context`, headed by a bar of how full the window is. */
export async function contextText(rt: Runtime, usedTokens: number): Promise<string> {
  const files = rt.context.startupFiles();
  const sections = await rt.context.sections(rt.models.current(), rt.tools.list().map((t) => t.name));
  const report = contextReport({
    files,
    systemSections: sections,
    tools: rt.tools.list().map((t) => ({ name: t.name, description: t.description, jsonSchema: t.jsonSchema })),
    messages: rt.convo.messages,
  });
  const window = modelInfo(rt.models.current()).contextWindow;
  const used = usedTokens || report.total;
  const pct = Math.min(100, Math.round((used / window) * 100));
  const width = 40;
  const fill = Math.round((pct / 100) * width);
  const b = report.breakdown;
  const part = (n: number) => Math.round((n / Math.max(1, report.total)) * fill);
  const bar = "▓".repeat(part(b.system + b.tools)) + "▒".repeat(part(b.instructions + b.memory));
  const picture = `[${(bar + "█".repeat(Math.max(0, fill - bar.length))).slice(0, fill)}${"·".repeat(width - fill)}] ${pct}% of ${window.toLocaleString("en-US")} tokens`;
  const m = rt.context.memory;
  return `${picture}\n  ▓ system and tools  ▒ instructions and memory  █ messages\n\n${formatContextReport(report)}\n\nAuto memory: ${m.enabled ? m.dir : `off${m.reason ? ` (${m.reason})` : ""}`}`;
}

/** `/cost` and `/usage`: tokens and cost per model for this process. */
export function costText(rt: Runtime): string {
  const usage = rt.deps.usage.modelUsage();
  const rows = Object.entries(usage);
  if (!rows.length) return "No API calls yet in this session.";
  const n = (x: number) => x.toLocaleString("en-US");
  return [
    `Total cost: $${rt.deps.usage.totalCost().toFixed(4)}`,
    `API time: ${(rt.deps.usage.apiMs() / 1000).toFixed(1)}s`,
    ...rows.map(([model, u]) => `  ${model}: ${n(u.inputTokens)} in, ${n(u.outputTokens)} out, ${n(u.cacheReadInputTokens)} cache read, ${n(u.cacheCreationInputTokens)} cache write ($${u.costUSD.toFixed(4)})`),
  ].join("\n");
}

export function statusText(rt: Runtime): string {
  return [
    `yoke ${VERSION}`,
    `Session: ${rt.sessionId}`,
    `Transcript: ${rt.transcript.store.path || "(not saved: --no-session-persistence)"}`,
    `Working directory: ${rt.session.cwd}`,
    `Model: ${rt.models.current()}`,
    `Permission mode: ${rt.permissions.mode}`,
    `Sandbox: ${rt.sandbox.active ? "on" : `off (${rt.sandbox.reason})`}`,
    `MCP servers: ${rt.mcp.servers().map((s) => `${s.name} (${s.status})`).join(", ") || "none"}`,
  ].join("\n");
}

export function permissionsText(rt: Runtime, denials: Array<{ tool: string; reason: string }>): string {
  const rules = rt.permissions.rules;
  const lines = [`Mode: ${rt.permissions.mode}`];
  for (const list of ["deny", "ask", "allow"] as const) {
    const rs = rules.filter((r) => r.source.list === list);
    lines.push(`${list[0]!.toUpperCase()}${list.slice(1)} rules:${rs.length ? "" : " none"}`);
    for (const r of rs) lines.push(`  ${r.text}  ← ${r.source.file}`);
  }
  lines.push(`Recent denials:${denials.length ? "" : " none"}`);
  for (const d of denials.slice(-10)) lines.push(`  ${d.tool}: ${d.reason}`);
  return lines.join("\n");
}

export const hooksText = (rt: Runtime): string => formatHookList(listHooks(rt.hooks)).trimEnd();

export const agentsText = (rt: Runtime): string =>
  rt.agentDefs.length ? rt.agentDefs.map((a) => `  ${a.name}: ${a.description}`).join("\n") : "No subagent types.";

export const pluginsText = (rt: Runtime): string =>
  rt.plugins.loaded.length
    ? rt.plugins.loaded.map((p) => `  ${p.kind === "yoke" ? p.plugin.name : p.info.name}  ${p.path}`).join("\n")
    : "No plugins loaded.";

export function memoryText(rt: Runtime): string {
  const m = rt.context.memory;
  const files = rt.context.startupFiles().filter((f) => f.status === "included" || f.status === "truncated");
  return [
    `Auto memory: ${m.enabled ? m.dir : `off${m.reason ? ` (${m.reason})` : ""}`}`,
    "Instruction files in use:",
    ...(files.length ? files.map((f) => `  ${f.layer}: ${f.path}`) : ["  none"]),
    "Edit them in your editor; changes apply to the next session.",
  ].join("\n");
}
