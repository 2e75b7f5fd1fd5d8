import { join } from "node:path";
import { type ScopedServer, serversFrom } from "./config.ts";
import { readJsonFile } from "./sources.ts";

/**
 * Claude Code's `managed-mcp.json` (contracts §2.1: the managed settings folder holds it beside managed-settings.json;
 * Claude Code's "Control MCP server access" docs, "Exclusive control with managed-mcp.json"): when the file is there,
 * its servers are the only configured ones. User, local and project servers, plugins' servers and agents' own servers
 * do not load; `--mcp-config` and `--strict-mcp-config` end the run at startup; `yoke mcp add` is refused. A host's
 * in-process servers (the Agent SDK's) still join. `{"mcpServers": {}}` turns MCP off. deniedMcpServers still applies
 * to its servers; allowedMcpServers only to one whose definition uses `${VAR}` (its effective config is the user's).
 */
export type ManagedMcp = { path: string; servers: ScopedServer[] };

/** Claude Code's words, so scripts that look for them find them. */
export const DYNAMIC_CONFIG_REFUSED = "You cannot dynamically configure MCP servers when an enterprise MCP config is present";
export const ADD_REFUSED = "Cannot add MCP server: enterprise MCP configuration is active and has exclusive control over MCP servers";

/**
 * The file in the managed folder, read; undefined when there is none. A file that cannot be read or parsed still
 * takes control (the safe way: no other server starts) and comes back as one failed entry naming the file, line and
 * column, listed as failed and said on stderr. Never throws.
 */
export function readManagedMcp(managedDir: string): ManagedMcp | undefined {
  const path = join(managedDir, "managed-mcp.json");
  let doc: unknown;
  try {
    doc = readJsonFile(path);
  } catch (e) {
    return { path, servers: [{ name: "(managed-mcp.json)", scope: "enterprise", source: path, config: { type: "sdk" }, problem: `${(e as Error).message} (no MCP server starts until it is fixed)` }] };
  }
  if (doc === undefined) return undefined;
  if (!doc || typeof doc !== "object" || Array.isArray(doc))
    return { path, servers: [{ name: "(managed-mcp.json)", scope: "enterprise", source: path, config: { type: "sdk" }, problem: `${path}: must hold a JSON object with "mcpServers"` }] };
  return { path, servers: serversFrom(doc, "enterprise", path) };
}
