// Shared pieces of the MCP end-to-end tests: real servers from node_modules and the tiny hostile fixture.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../helpers/binary.ts";
import { tempDir } from "../helpers/tmp.ts";

const nm = (pkg: string) => join(repoRoot(), "node_modules", "@modelcontextprotocol", pkg, "dist", "index.js");

/** `@modelcontextprotocol/server-everything` over stdio (a dev dependency nobody here wrote). */
export const everything = () => ({ command: "node", args: [nm("server-everything"), "stdio"] });
/** `@modelcontextprotocol/server-filesystem` over stdio, allowed into `dir`. */
export const filesystem = (dir: string) => ({ command: "node", args: [nm("server-filesystem"), dir] });
/** The hand-written fixture server in one of its modes (ok, never-init, exit, garbage, hang). */
export const tiny = (mode: string) => ({ command: "node", args: [join(repoRoot(), "test", "fixtures", "mcp", "tiny-server.mjs"), mode] });
export const everythingPath = () => nm("server-everything");

/** A temp project with `.mcp.json` holding these servers and `.claude/settings.local.json` holding `local`. */
export function mcpProject(servers: Record<string, unknown>, local?: Record<string, unknown>): string {
  const cwd = tempDir("yoke-mcp-");
  writeFileSync(join(cwd, ".mcp.json"), JSON.stringify({ mcpServers: servers }, null, 2));
  if (local) {
    mkdirSync(join(cwd, ".claude"), { recursive: true });
    writeFileSync(join(cwd, ".claude", "settings.local.json"), JSON.stringify(local, null, 2));
  }
  return cwd;
}

export const call = (name: string, input: Record<string, unknown> = {}) => ({ content: [{ type: "tool_use" as const, name, input }] });
export const toolNames = (req: { body: any }): string[] => (req.body?.tools ?? []).map((t: any) => t.name);
