import type { Tool } from "./types.ts";

/**
 * contracts §1.4: PreToolUse, PermissionRequest, PostToolUse and PostToolUseFailure payloads of an MCP tool end with
 * `mcp_server: {name, source}`, source being the config scope (observed in 2.1.332: `dynamic` for --mcp-config,
 * `project` for .mcp.json). Other tools get nothing. Pure.
 */
export const mcpServerField = (tool: Pick<Tool, "mcp">): { mcp_server?: { name: string; source: string } } =>
  tool.mcp ? { mcp_server: { name: tool.mcp.server, source: tool.mcp.source ?? "dynamic" } } : {};
