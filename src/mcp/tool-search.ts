import { z } from "zod";
import { defineTool } from "../tool/define-tool.ts";
import { INPUT_SCHEMAS } from "../tool/input-schemas.ts";
import type { ToolRegistry } from "../tool/registry.ts";
import type { Tool } from "../tool/types.ts";

/**
 * Deferred tool schemas (seed 000, Claude Code's ENABLE_TOOL_SEARCH): when MCP tools would take more than a share of
 * the context window, the model gets their names only, and ToolSearch loads full schemas for the next request.
 */

/** `ENABLE_TOOL_SEARCH`: unset/`auto` defers past 10% of the window, `auto:N` past N%, true/false always/never. */
export function shouldDefer(setting: string | undefined, mcpSpecTokens: number, contextWindow: number): boolean {
  const v = (setting ?? "auto").trim().toLowerCase();
  if (v === "false" || v === "0" || v === "off") return false;
  if (v === "true" || v === "1" || v === "on") return mcpSpecTokens > 0;
  const m = /^auto(?::(\d+(?:\.\d+)?))?$/.exec(v);
  const pct = m?.[1] !== undefined ? Number(m[1]) : 10;
  return mcpSpecTokens > (contextWindow * pct) / 100;
}

/** Rough token count of tool specs as sent (JSON characters / 4). */
export const specTokens = (tools: Tool[]): number =>
  Math.ceil(tools.reduce((n, t) => n + JSON.stringify({ name: t.name, description: t.description, input_schema: t.jsonSchema }).length, 0) / 4);

const words = (s: string) => s.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);

/** Deferred tools ranked for a keyword query: name parts weigh more than description words; `+word` is required. */
export function searchDeferred(tools: Tool[], query: string, max: number): Tool[] {
  const terms = query.trim().split(/\s+/).filter(Boolean);
  const required = terms.filter((t) => t.startsWith("+") && t.length > 1).map((t) => t.slice(1).toLowerCase());
  const optional = terms.filter((t) => !t.startsWith("+")).map((t) => t.toLowerCase());
  const scored = tools
    .map((t) => {
      const nameWords = words(t.name);
      const desc = t.description.toLowerCase();
      const full = t.name.toLowerCase();
      if (required.some((r) => !full.includes(r) && !desc.includes(r))) return { t, score: 0 };
      let score = required.length ? 1 : 0;
      for (const w of [...required, ...optional]) {
        if (nameWords.includes(w)) score += 10;
        else if (full.includes(w)) score += 5;
        else if (desc.includes(w)) score += 2;
      }
      return { t, score };
    })
    .filter((x) => x.score > 0)
    .sort((a, b) => b.score - a.score);
  return scored.slice(0, max).map((x) => x.t);
}

/** MCP servers still connecting after the first request's wait (src/mcp/first-wait.ts): ToolSearch waits for them. */
export type ConnectingServers = {
  /** Names of the servers still connecting. */
  pending(): string[];
  /** Resolves when every server has connected or failed (each bounded by MCP_TIMEOUT). */
  settled(): Promise<void>;
};

const untilSettledOrAborted = (c: ConnectingServers, signal: AbortSignal): Promise<void> =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      signal.removeEventListener("abort", done);
      resolve();
    };
    signal.addEventListener("abort", done, { once: true });
    c.settled().then(done, done);
  });

export function createToolSearchTool(tools: () => ToolRegistry, connecting?: ConnectingServers): Tool {
  /** The tools a query names or matches, among `pool`; `unknown` are select: names not in it. */
  const find = (pool: Tool[], query: string, max: number): { found: Tool[]; unknown: string[]; select: boolean } => {
    const sel = /^select:(.*)$/is.exec(query.trim());
    if (!sel) return { found: searchDeferred(pool, query, max), unknown: [], select: false };
    const names = sel[1]!.split(",").map((s) => s.trim()).filter(Boolean);
    const found = pool.filter((t) => names.includes(t.name));
    return { found, unknown: names.filter((n) => !found.some((t) => t.name === n)), select: true };
  };
  return defineTool({
    name: "ToolSearch",
    description:
      "Loads the full definitions of deferred tools so you can call them. The names of deferred tools are listed in the system prompt; their parameters are not known until you load them. " +
      'Use "select:name1,name2" to load tools by exact name, or keywords (e.g. "github issue", "+slack send") to find them; `+word` must match. ' +
      "Loaded tools can be called from your next step on. When MCP servers are still connecting, a search that finds nothing waits for them and searches their tools.",
    input: () => z.object({
      query: z.string().describe('"select:<tool names, comma-separated>" or keywords'),
      max_results: z.number().int().min(1).max(50).optional().describe("How many tools keyword search may load (default 5)"),
    }),
    jsonSchema: INPUT_SCHEMAS.ToolSearch,
    readOnly: true,
    async execute({ query, max_results }, ctx) {
      const reg = tools();
      const max = max_results ?? 5;
      let r = find(reg.list().filter((t) => t.deferred), query, max);
      // Observed in 2.1.332: a search that finds nothing (a select: name not there, keywords that match nothing)
      // waits for the servers still connecting and searches again; one that finds something answers at once.
      if ((!r.found.length || r.unknown.length) && connecting?.pending().length) {
        const before = new Set(reg.list().map((t) => t.name));
        await untilSettledOrAborted(connecting, ctx.signal);
        // A late server's tools are deferred or sent in full depending on the set's size: either way they count here.
        r = find(reg.list().filter((t) => t.deferred || !before.has(t.name)), query, max);
      }
      const deferred = reg.list().filter((t) => t.deferred);
      if (r.select && !r.found.length)
        return { content: `No deferred tool is named ${r.unknown.join(", ")}. Deferred tools: ${deferred.map((t) => t.name).join(", ") || "(none)"}.`, isError: true };
      if (!r.found.length) return { content: `No deferred tool matches "${query}". Try other keywords, or select:<name> with a name from the list.` };
      reg.load(r.found.map((t) => t.name));
      const lines = r.found.map((t) => `- ${t.name}: ${t.description.split("\n")[0]!.slice(0, 200)}`);
      return { content: `Loaded ${r.found.length} tool${r.found.length === 1 ? "" : "s"}; call ${r.found.length === 1 ? "it" : "them"} directly from your next step:\n${lines.join("\n")}` };
    },
  });
}

/** The system-prompt section naming the deferred tools (names only). */
export function deferredToolsSection(reg: ToolRegistry): string | null {
  const names = reg.list().filter((t) => t.deferred).map((t) => t.name);
  if (!names.length) return null;
  return `# Deferred tools\nThese tools are available but their definitions are not loaded. Call ToolSearch (e.g. "select:${names[0]}") to load a tool before calling it:\n${names.join("\n")}`;
}
