import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { ImageBlock, TextBlock } from "../provider/types.ts";
import { interrupted, truncateMiddle } from "../tool/define-tool.ts";
import type { Tool, ToolResult } from "../tool/types.ts";
import { mcpToolName } from "./config.ts";
import type { McpManager, McpToolInfo } from "./manager.ts";

/** Claude Code's limit on a tool name the API accepts; longer MCP names are left out with a warning. */
export const MAX_TOOL_NAME = 128;
const MAX_DESCRIPTION = 2048;

type Block = TextBlock | ImageBlock;

/** MCP content → tool_result content: text and images as they are, links and resources as text the model can use. */
export function convertResult(result: CallToolResult, maxChars: number): ToolResult {
  const blocks: Block[] = [];
  for (const c of result.content ?? []) {
    if (c.type === "text") blocks.push({ type: "text", text: c.text });
    else if (c.type === "image") blocks.push({ type: "image", source: { type: "base64", media_type: c.mimeType, data: c.data } });
    else if (c.type === "audio") blocks.push({ type: "text", text: `[Audio content (${c.mimeType}) returned by the tool; audio cannot be shown here]` });
    else if (c.type === "resource_link") blocks.push({ type: "text", text: `[Resource link: ${c.name} (${c.uri})${c.description ? ` ${c.description}` : ""}]` });
    else if (c.type === "resource") {
      const r = c.resource as { uri: string; mimeType?: string; text?: string; blob?: string };
      if (typeof r.text === "string") blocks.push({ type: "text", text: `[Resource ${r.uri}]\n${r.text}` });
      else if (r.blob && r.mimeType?.startsWith("image/")) blocks.push({ type: "image", source: { type: "base64", media_type: r.mimeType, data: r.blob } });
      else blocks.push({ type: "text", text: `[Binary resource ${r.uri} (${r.mimeType ?? "unknown type"}) returned by the tool]` });
    }
  }
  if (!blocks.length && result.structuredContent !== undefined) blocks.push({ type: "text", text: JSON.stringify(result.structuredContent) });
  // MAX_MCP_OUTPUT_TOKENS: the text is cut (head and tail kept) with a note saying so.
  let budget = maxChars;
  for (const b of blocks) {
    if (b.type !== "text") continue;
    if (b.text.length > budget) b.text = `${truncateMiddle(b.text, Math.max(budget, 200))}\n[MCP output cut to fit MAX_MCP_OUTPUT_TOKENS; ask the tool for less (a narrower query, a page) if you need the rest]`;
    budget = Math.max(0, budget - b.text.length);
  }
  const content = blocks.length === 1 && blocks[0]!.type === "text" ? blocks[0]!.text : blocks.length ? blocks : "(the tool returned no content)";
  return { content, details: result.content ?? result.structuredContent ?? null, isError: result.isError === true };
}

export type McpToolOptions = {
  manager: McpManager;
  /** MAX_MCP_OUTPUT_TOKENS × 4 characters. */
  maxOutputChars: number;
  /** The server's config scope, for hooks' `mcp_server.source`. */
  source?: string;
};

// One schema shared by every MCP tool (zod schemas are immutable): a server with 50 tools made 50 at startup.
let anyObjectSchema: z.ZodType<Record<string, unknown>> | undefined;
const anyObject = () => (anyObjectSchema ??= z.record(z.string(), z.unknown()));

/** One MCP tool as a yoke Tool: the server validates the arguments; readOnlyHint makes it read-only for permissions. */
export function mcpTool(server: string, info: McpToolInfo, o: McpToolOptions): Tool {
  const name = mcpToolName(server, info.name);
  const readOnly = info.annotations?.readOnlyHint === true;
  const parse = (raw: unknown) =>
    raw && typeof raw === "object" && !Array.isArray(raw)
      ? { ok: true as const, input: raw as Record<string, unknown> }
      : { ok: false as const, error: `InputValidationError: ${name} needs a JSON object as input.` };
  const schema = info.inputSchema && typeof info.inputSchema === "object" ? { ...info.inputSchema, type: "object" } : { type: "object", properties: {} };
  const description = (info.description ?? info.annotations?.title ?? `${info.name} (from MCP server ${server})`).slice(0, MAX_DESCRIPTION);
  return {
    name,
    description,
    inputSchema: anyObject(),
    jsonSchema: schema,
    readOnly,
    concurrencySafe: readOnly,
    mcp: { server, tool: info.name, ...(o.source ? { source: o.source } : {}) },
    parse,
    async run(raw, ctx) {
      const p = parse(raw);
      if (!p.ok) return { content: p.error, isError: true };
      if (ctx.signal.aborted) return interrupted(name);
      try {
        return convertResult(await o.manager.callTool(server, info.name, p.input, ctx.signal), o.maxOutputChars);
      } catch (err) {
        if (ctx.signal.aborted) return interrupted(name);
        return { content: `Error: ${err instanceof Error ? err.message : String(err)}`, isError: true };
      }
    },
  };
}
