import { join } from "node:path";
import type { AgentDefinition } from "../agent/types.ts";
import type { ToolRegistry } from "../tool/registry.ts";
import type { Tool } from "../tool/types.ts";
import { normalizeMcpName, parseServerConfig, type ScopedServer } from "./config.ts";
import { createMcpManager } from "./manager.ts";
import { MAX_TOOL_NAME, mcpTool } from "./tool-adapter.ts";
import { transportFor } from "./transports.ts";

/**
 * An agent's own MCP servers (frontmatter `mcpServers`, contracts §6.4; Claude Code's sub-agents docs "Scope MCP
 * servers to a subagent"). Each entry is a server's name, which shares the session's connection, or an inline
 * definition `{name: {...same schema as .mcp.json...}}`, which is started for the agent's run and stopped after it.
 * Tools are `mcp__<server>__<tool>`. This module loads the MCP SDK: import it only for an agent that has entries.
 */

/** One entry of an agent's `mcpServers`, read. */
export type AgentServerEntry = { kind: "ref"; name: string } | { kind: "inline"; server: ScopedServer };

/**
 * The entries of `mcpServers` (a list of names and `{name: config}` objects, or one `{name: config}` map as in
 * .mcp.json), and a problem per entry that cannot be used, naming the file and field. Pure; never throws.
 */
export function agentServerEntries(agent: Pick<AgentDefinition, "mcpServers" | "file" | "name">): { entries: AgentServerEntry[]; problems: string[] } {
  const where = agent.file ?? `agent ${agent.name}`;
  const entries: AgentServerEntry[] = [];
  const problems: string[] = [];
  const raw = agent.mcpServers;
  const items: unknown[] = Array.isArray(raw) ? raw : raw && typeof raw === "object" ? Object.entries(raw).map(([k, v]) => ({ [k]: v })) : [raw];
  items.forEach((item, i) => {
    if (typeof item === "string" && item.trim()) return void entries.push({ kind: "ref", name: item.trim() });
    if (!item || typeof item !== "object" || Array.isArray(item)) {
      problems.push(`${where}: field "mcpServers[${i}]" must be a server name or {name: {command|url ...}} (got ${JSON.stringify(item)})`);
      return;
    }
    for (const [name, def] of Object.entries(item as Record<string, unknown>)) {
      const config = parseServerConfig(def);
      // Kept with its problem (and as written) rather than dropped, so policy can judge it first (startAgentServers).
      const problem =
        typeof config === "string" ? `${where}: field "mcpServers.${name}": ${config}` : config.type === "sdk" ? `${where}: field "mcpServers.${name}": an SDK server cannot be defined in an agent file` : undefined;
      if (problem) entries.push({ kind: "inline", server: { name, scope: "dynamic", source: where, config: { type: "sdk" }, problem, written: def } });
      else if (typeof config !== "string") entries.push({ kind: "inline", server: { name, scope: "dynamic", source: where, config } });
    }
  });
  return { entries, problems };
}

export type AgentServersOptions = {
  cwd: string;
  env: Record<string, string>;
  version: string;
  /** Folder for the servers' stderr logs. */
  logDir?: string;
  /** Whether this agent's inline servers may start (trust of its folder, --strict-mcp-config, --bare). */
  mayStartInline: (agent: AgentDefinition) => string | true;
  /** The session's tools, for entries that name an already configured server. */
  sessionTools: () => ToolRegistry;
  /** Tools hidden by bare deny rules are never added. */
  hidden?: (name: string) => boolean;
  /** Why the organization's policy (allowedMcpServers / deniedMcpServers) keeps an inline server off, or null. */
  policyBlock?: (server: ScopedServer) => string | null;
  warn: (message: string) => void;
};

const envNumber = (v: string | undefined, def: number) => {
  const n = Number(v);
  return v && Number.isFinite(n) && n > 0 ? n : def;
};

/**
 * Starts an agent's inline servers (bounded by MCP_TIMEOUT each, all at once) and gathers the tools its entries
 * name; `close` stops what was started. A server that fails, an unknown name and a refused inline server are each
 * said through `warn`, naming the agent file, and the agent runs without them. Never rejects.
 */
export async function startAgentServers(
  agent: AgentDefinition,
  o: AgentServersOptions,
): Promise<{ tools: Tool[]; close(): Promise<void> } | undefined> {
  const where = agent.file ?? `agent ${agent.name}`;
  const { entries, problems } = agentServerEntries(agent);
  problems.forEach(o.warn);
  const tools: Tool[] = [];
  const add = (t: Tool) => {
    if (o.hidden?.(t.name) || tools.some((x) => x.name === t.name)) return;
    if (t.name.length > MAX_TOOL_NAME) return o.warn(`${where}: MCP tool ${t.name} left out: its name is longer than ${MAX_TOOL_NAME} characters`);
    tools.push(t);
  };
  for (const e of entries) {
    if (e.kind !== "ref") continue;
    const mine = o.sessionTools().list().filter((t) => t.mcp && normalizeMcpName(t.mcp.server) === normalizeMcpName(e.name));
    if (!mine.length) o.warn(`${where}: mcpServers names "${e.name}", which is no connected MCP server of this session; the agent runs without it`);
    mine.forEach(add);
  }
  const inline = entries.flatMap((e) => {
    if (e.kind !== "inline") return [];
    // Policy first: a server it keeps off is said to be blocked, whatever else is wrong with its entry.
    const why = o.policyBlock?.(e.server);
    if (why) o.warn(`${where}: MCP server "${e.server.name}" ${why}; not started`);
    else if (e.server.problem) o.warn(e.server.problem);
    return why || e.server.problem ? [] : [e.server];
  });
  if (!inline.length) return tools.length ? { tools, close: async () => {} } : undefined;
  const allowed = o.mayStartInline(agent);
  if (allowed !== true) {
    o.warn(`${where}: its MCP servers ${inline.map((s) => `"${s.name}"`).join(", ")} are not started: ${allowed}`);
    return tools.length ? { tools, close: async () => {} } : undefined;
  }
  const manager = createMcpManager({
    connectTimeoutMs: envNumber(o.env.MCP_TIMEOUT, 30_000),
    toolTimeoutMs: envNumber(o.env.MCP_TOOL_TIMEOUT, 600_000),
    version: o.version,
  });
  const maxOutputChars = envNumber(o.env.MAX_MCP_OUTPUT_TOKENS, 25_000) * 4;
  await Promise.all(
    inline.map(async (s) => {
      const factory = transportFor(s, { cwd: o.cwd, env: o.env, logDir: o.logDir ? join(o.logDir, "agents") : undefined });
      if (typeof factory === "string") return o.warn(`${where}: MCP server "${s.name}" not started: ${factory}`);
      const state = await manager.addServer(s.name, factory, { scope: "dynamic", source: where });
      if (state.status !== "connected") return o.warn(`${where}: MCP server "${s.name}" failed to connect: ${state.error ?? state.status}`);
      for (const info of state.tools) add(mcpTool(s.name, info, { manager, maxOutputChars, source: "dynamic" }));
    }),
  );
  return { tools, close: () => manager.close() };
}
