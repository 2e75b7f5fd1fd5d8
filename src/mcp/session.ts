import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { ToolRegistry } from "../tool/registry.ts";
import type { Tool } from "../tool/types.ts";
import type { McpScope, ScopedServer } from "./config.ts";
import { createMcpManager, type McpManager, type McpServerState, type TransportFactory } from "./manager.ts";
import { expandMcpInput } from "./prompts.ts";
import { resourceTools } from "./resource-tools.ts";
import { MAX_TOOL_NAME, mcpTool } from "./tool-adapter.ts";
import { createToolSearchTool, shouldDefer, specTokens } from "./tool-search.ts";

export { deferredToolsSection } from "./tool-search.ts";
import { transportFor } from "./transports.ts";

/**
 * One session's MCP servers wired into its tool registry. Loaded with a dynamic import only when a server is
 * configured (or the host adds one), so a run without MCP never loads the SDK.
 */
export type McpSessionOptions = {
  servers: ScopedServer[];
  unapproved: Array<{ name: string; reason: string; source?: string; scope?: McpScope }>;
  cwd: string;
  env: Record<string, string>;
  logDir?: string;
  version: string;
  /** The session's registry; MCP tools, ToolSearch and the resource tools are registered into it. */
  tools: () => ToolRegistry;
  /** Tools hidden by bare deny rules are never registered. */
  hidden?: (name: string) => boolean;
  /** One line to stderr (prefixed by the caller). */
  warn: (msg: string) => void;
  contextWindow?: number;
  /** Transports already started (stdio servers spawned before the SDK loaded), by server name. */
  prepared?: Map<string, TransportFactory>;
};

export type McpSession = {
  manager: McpManager;
  /** `system/init` `mcp_servers` (contracts §4.4). */
  statuses(): Array<{ name: string; status: string }>;
  servers(): McpServerState[];
  /** Starts more configured servers (plugin servers, once plugins are loaded); resolves when each is connected or failed. */
  addConfigured(servers: ScopedServer[]): Promise<void>;
  /**
   * Adds a server reached through a custom transport (the Agent SDK's control-channel servers, issue 15): it is
   * connected, its tools registered, and its status listed like any other. Resolves once connected or failed.
   */
  addServer(name: string, transport: Transport | TransportFactory, meta?: { scope?: McpScope; source?: string }): Promise<McpServerState>;
  /** `/mcp__server__prompt` commands and `@server:uri` mentions expanded; throws naming the server on failure. */
  expandInput(text: string, signal?: AbortSignal): Promise<string>;
  close(): Promise<void>;
};

const envNumber = (v: string | undefined, def: number) => {
  const n = Number(v);
  return v && Number.isFinite(n) && n > 0 ? n : def;
};

export async function startMcpSession(o: McpSessionOptions): Promise<McpSession> {
  const reported = new Set<string>();
  const report = (name: string, msg: string) => {
    const key = `${name}\0${msg}`;
    if (reported.has(key)) return;
    reported.add(key);
    o.warn(msg);
  };
  let sync = () => {};
  const manager = createMcpManager({
    // Claude Code's MCP_TIMEOUT default is 30 s; MCP_TOOL_TIMEOUT is ours at 10 min so a hung tool never stalls a headless run for a day.
    connectTimeoutMs: envNumber(o.env.MCP_TIMEOUT, 30_000),
    toolTimeoutMs: envNumber(o.env.MCP_TOOL_TIMEOUT, 600_000),
    version: o.version,
    onToolsChanged: () => sync(),
    onLost: (name, reason) => report(name, `MCP server "${name}" ${reason}`),
  });
  const maxOutputChars = envNumber(o.env.MAX_MCP_OUTPUT_TOKENS, 25_000) * 4;
  const registered = new Set<string>();
  const extras: Tool[] = [];
  let toolSearch: Tool | undefined;
  let resourcesAdded = false;

  /** Makes the registry match the connected servers' tools; decides deferral once tools are known. */
  sync = () => {
    const reg = o.tools();
    const want: Tool[] = [];
    for (const s of manager.servers()) {
      if (s.status !== "connected") continue;
      for (const info of s.tools) {
        const t = mcpTool(s.name, info, { manager, maxOutputChars, source: s.scope });
        if (o.hidden?.(t.name)) continue;
        if (t.name.length > MAX_TOOL_NAME) {
          report(s.name, `MCP server "${s.name}": tool ${info.name} left out: its name ${t.name} is longer than ${MAX_TOOL_NAME} characters`);
          continue;
        }
        want.push(t);
      }
    }
    const defer = shouldDefer(o.env.ENABLE_TOOL_SEARCH, specTokens(want), o.contextWindow ?? 200_000);
    const names = new Set(want.map((t) => t.name));
    for (const n of registered) if (!names.has(n)) reg.remove(n);
    registered.clear();
    for (const t of want) {
      // A tool the model already loaded keeps its schema; a new one is deferred when the set is large.
      reg.register(defer ? { ...t, deferred: true } : t);
      registered.add(t.name);
    }
    if (defer && !toolSearch) {
      toolSearch = createToolSearchTool(o.tools);
      reg.register(toolSearch);
      extras.push(toolSearch);
    }
    if (!resourcesAdded && manager.servers().some((s) => s.status === "connected" && s.hasResources)) {
      resourcesAdded = true;
      for (const t of resourceTools(manager)) {
        reg.register(t);
        extras.push(t);
      }
    }
  };

  const afterConnect = (s: McpServerState) => {
    if (s.status === "failed") report(s.name, `MCP server "${s.name}" failed to connect: ${s.error}`);
    else if (s.status === "needs-auth") report(s.name, `MCP server "${s.name}" ${s.error}`);
  };

  for (const u of o.unapproved) {
    manager.addInert(u.name, { scope: u.scope ?? "project", source: u.source ?? "", status: "disabled", error: u.reason });
    report(u.name, `MCP ${u.reason}; not started`);
  }
  const addConfigured = async (servers: ScopedServer[]) => {
    await Promise.all(
      servers.map(async (s) => {
        // A server the policy blocks never starts, whoever hands it over (the wiring says why, once).
        if (s.blocked) return;
        const factory = s.problem ? s.problem : (o.prepared?.get(s.name) ?? transportFor(s, { cwd: o.cwd, env: o.env, logDir: o.logDir }));
        if (typeof factory === "string") {
          manager.addInert(s.name, { scope: s.scope, source: s.source, status: "failed", error: factory });
          report(s.name, `MCP server "${s.name}" not started: ${factory}`);
          return;
        }
        afterConnect(await manager.addServer(s.name, factory, { scope: s.scope, source: s.source }));
      }),
    );
    sync();
  };
  await addConfigured(o.servers);

  return {
    manager,
    servers: () => manager.servers(),
    addConfigured,
    statuses: () => manager.servers().map((s) => ({ name: s.name, status: s.status })),
    async addServer(name, transport, meta) {
      const factory: TransportFactory = typeof transport === "function" ? transport : () => transport;
      const s = await manager.addServer(name, factory, { scope: meta?.scope ?? "sdk", source: meta?.source ?? "sdk" });
      afterConnect(s);
      sync();
      return s;
    },
    expandInput: (text, signal) => expandMcpInput(text, manager, signal),
    close: () => manager.close(),
  };
}
