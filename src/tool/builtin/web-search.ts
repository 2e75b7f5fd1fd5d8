import { z } from "zod";
import type { ContentBlock } from "../../provider/types.ts";
import { defineTool } from "../define-tool.ts";
import description from "./web-search.md" with { type: "text" };

/** contracts §7.2 WebSearch input. */
const input = () =>
  z
    .object({
      query: z.string().min(2).describe("The search query"),
      allowed_domains: z.array(z.string()).optional().describe("Only include results from these domains"),
      blocked_domains: z.array(z.string()).optional().describe("Never include results from these domains"),
    })
    .refine((i) => !(i.allowed_domains?.length && i.blocked_domains?.length), "give allowed_domains or blocked_domains, not both");

/** The Messages API's server-side web search tool, as Claude Code puts it in the request (at most 8 searches). */
export function webSearchServerTool(i: { allowed_domains?: string[]; blocked_domains?: string[] }): Record<string, unknown> {
  return {
    type: "web_search_20250305",
    name: "web_search",
    max_uses: 8,
    ...(i.allowed_domains?.length ? { allowed_domains: i.allowed_domains } : {}),
    ...(i.blocked_domains?.length ? { blocked_domains: i.blocked_domains } : {}),
  };
}

type Hit = { title: string; url: string };
type SearchResult = { tool_use_id: string; content: Hit[] } | { tool_use_id: string; error: string };

/** The search results and the model's write-up from the side request's content blocks. Pure. */
export function readSearchBlocks(blocks: ContentBlock[]): { results: SearchResult[]; text: string } {
  const results: SearchResult[] = [];
  let text = "";
  for (const b of blocks as Array<Record<string, any>>) {
    if (b.type === "text") text += b.text;
    if (b.type !== "web_search_tool_result") continue;
    if (Array.isArray(b.content))
      results.push({ tool_use_id: String(b.tool_use_id), content: b.content.filter((r: any) => r?.type === "web_search_result").map((r: any) => ({ title: String(r.title ?? ""), url: String(r.url ?? "") })) });
    else results.push({ tool_use_id: String(b.tool_use_id), error: String(b.content?.error_code ?? "unknown") });
  }
  return { results, text };
}

/**
 * WebSearch as Claude Code provides it: a side request to the model with the API's server-side `web_search` tool;
 * the results come back as server_tool_use / web_search_tool_result blocks and go to the model as links plus the
 * side request's summary.
 */
export const webSearchTool = defineTool({
  name: "WebSearch",
  description,
  input,
  // The model sees the plain object schema; "one or the other" is checked on input.
  jsonSchema: {
    type: "object",
    properties: {
      query: { type: "string", minLength: 2, description: "The search query" },
      allowed_domains: { type: "array", items: { type: "string" }, description: "Only include results from these domains" },
      blocked_domains: { type: "array", items: { type: "string" }, description: "Never include results from these domains" },
    },
    required: ["query"],
  },
  readOnly: true,
  concurrencySafe: true,
  async execute(inp, ctx) {
    if (!ctx.sideQuery) return { content: "WebSearch is not available in this session (no model connection for searches).", isError: true };
    const started = Date.now();
    let blocks: ContentBlock[] = [];
    try {
      await ctx.sideQuery({
        system: "You are a web search assistant. Search the web for the user's query with the web_search tool and summarise what the results say, citing them.",
        prompt: `Perform a web search for the query: ${inp.query}`,
        maxTokens: 4096,
        signal: ctx.signal,
        tools: [webSearchServerTool(inp)],
        onMessage: (content) => void (blocks = content),
      });
    } catch (e) {
      return { content: `Web search failed: ${(e as Error).message}. Try again, or answer without it and say so.`, isError: true };
    }
    const { results, text } = readSearchBlocks(blocks);
    const errors = results.filter((r): r is { tool_use_id: string; error: string } => "error" in r);
    const hits = results.flatMap((r) => ("content" in r ? r.content : []));
    if (hits.length === 0 && errors.length > 0) return { content: `Web search failed (${errors.map((e) => e.error).join(", ")}). Try a different query.`, isError: true };
    const lines = [`Web search results for query: "${inp.query}"`, "", `Links: ${JSON.stringify(hits)}`];
    if (text.trim()) lines.push("", text.trim());
    lines.push("", "REMINDER: cite the sources you use from these results as markdown links.");
    return { content: lines.join("\n"), details: { query: inp.query, results, durationSeconds: (Date.now() - started) / 1000 } };
  },
});
