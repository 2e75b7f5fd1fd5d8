import type { ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { ImageBlock, TextBlock } from "../provider/types.ts";
import { defineTool } from "../tool/define-tool.ts";
import { INPUT_SCHEMAS } from "../tool/input-schemas.ts";
import type { Tool, ToolResult } from "../tool/types.ts";
import type { McpManager } from "./manager.ts";

/** Resource contents as tool_result content: text as is, images as images, other binaries named. */
export function resourceContent(r: ReadResourceResult): ToolResult["content"] {
  const blocks: Array<TextBlock | ImageBlock> = [];
  for (const c of r.contents) {
    const x = c as { uri: string; mimeType?: string; text?: string; blob?: string };
    if (typeof x.text === "string") blocks.push({ type: "text", text: r.contents.length > 1 ? `[${x.uri}]\n${x.text}` : x.text });
    else if (x.blob && x.mimeType?.startsWith("image/")) blocks.push({ type: "image", source: { type: "base64", media_type: x.mimeType, data: x.blob } });
    else blocks.push({ type: "text", text: `[Binary resource ${x.uri} (${x.mimeType ?? "unknown type"}, ${x.blob?.length ?? 0} base64 characters)]` });
  }
  if (blocks.length === 1 && blocks[0]!.type === "text") return blocks[0]!.text;
  return blocks.length ? blocks : "(the resource is empty)";
}

/** ListMcpResourcesTool and ReadMcpResourceTool (contracts §7.2 inputs), read-only. */
export function resourceTools(manager: McpManager): Tool[] {
  const withResources = () => manager.servers().filter((s) => s.status === "connected" && s.hasResources);
  const list = defineTool({
    name: "ListMcpResourcesTool",
    aliases: ["ListMcpResources"],
    description: "Lists the resources MCP servers offer (uri, name, type, server). Give `server` to list one server's resources.",
    input: () => z.object({ server: z.string().optional().describe("Only this server's resources") }),
    jsonSchema: INPUT_SCHEMAS.ListMcpResourcesTool,
    readOnly: true,
    async execute({ server }, ctx) {
      const names = server ? [server] : withResources().map((s) => s.name);
      if (server && !manager.servers().some((s) => s.name === server))
        return { content: `No MCP server named "${server}". Servers: ${manager.servers().map((s) => s.name).join(", ") || "(none)"}.`, isError: true };
      const out: Array<Record<string, unknown>> = [];
      const errors: string[] = [];
      await Promise.all(
        names.map(async (n) => {
          try {
            for (const r of await manager.listResources(n, ctx.signal)) out.push({ ...r, server: n });
          } catch (e) {
            errors.push(`${n}: ${(e as Error).message}`);
          }
        }),
      );
      if (!out.length && errors.length) return { content: `Could not list resources: ${errors.join("; ")}`, isError: true };
      const text = out.length ? JSON.stringify(out) : "No resources found. MCP servers may still provide tools even if they have no resources.";
      return { content: errors.length ? `${text}\n(failed: ${errors.join("; ")})` : text, details: out };
    },
  });
  const read = defineTool({
    name: "ReadMcpResourceTool",
    aliases: ["ReadMcpResource"],
    description: "Reads one resource from an MCP server by its URI (see ListMcpResourcesTool).",
    input: () => z.object({ server: z.string().describe("The MCP server name"), uri: z.string().describe("The resource URI") }),
    jsonSchema: INPUT_SCHEMAS.ReadMcpResourceTool,
    readOnly: true,
    async execute({ server, uri }, ctx) {
      if (!manager.servers().some((s) => s.name === server))
        return { content: `No MCP server named "${server}". Servers: ${manager.servers().map((s) => s.name).join(", ") || "(none)"}.`, isError: true };
      const r = await manager.readResource(server, uri, ctx.signal);
      return { content: resourceContent(r), details: r };
    },
  });
  return [list, read];
}
