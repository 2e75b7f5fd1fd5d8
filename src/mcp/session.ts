import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { ToolRegistry } from "../tool/registry.ts";
import type { Tool } from "../tool/types.ts";
import type { McpScope, ScopedServer } from "./config.ts";
import { createMcpManager, type McpManager, type McpServerState, type TransportFactory } from "./manager.ts";
import { expandMcpInput } from "./prompts.ts";
import { resourceTools } from "./resource-tools.ts";
import { MAX_TOOL_NAME, mcpTool } from "./tool-adapter.ts";
import { blocksFirstRequest, waitBounded } from "./first-wait.ts";
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
  /** When the `prepared` servers were spawned (performance.now()): their first wait counts from then. */
  preparedAt?: number;
  /**
   * How long starting waits for each server, counted from its spawn (src/mcp/first-wait.ts); one still connecting
   * then joins later. Unset: the wait lasts until every server has connected or failed (each bounded by MCP_TIMEOUT).
   */
  firstWaitMs?: number;
};

export type McpSession = {
  manager: McpManager;
  /** `system/init` `mcp_servers` (contracts §4.4). */
  statuses(): Array<{ name: string; status: string }>;
  servers(): McpServerState[];
  /**
   * Starts more configured servers (plugin servers, once plugins are loaded); resolves when each is connected or
   * failed, or, with `firstWaitMs`, once its bound has passed (it then keeps connecting: see `settled`).
   */
  addConfigured(servers: ScopedServer[]): Promise<void>;
  /** Names of the servers still connecting. */
  pending(): string[];
  /** Resolves when every server started so far has connected or failed. Never rejects. */
  settled(): Promise<void>;
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
  const connecting: Promise<void>[] = [];
  let closed = false;
  /** `alwaysLoad: true` servers: their tools go to the model in full, never deferred (observed in 2.1.332). */
  const inFull = new Set<string>();
  const pending = () => manager.servers().filter((s) => s.status === "pending").map((s) => s.name);
  const settled = async () => {
    for (let n = -1; n !== connecting.length; ) {
      n = connecting.length;
      await Promise.all(connecting);
    }
  };

  /** Makes the registry match the connected servers' tools; decides deferral once tools are known. */
  sync = () => {
    const reg = o.tools();
    const want: Tool[] = [];
    const full = new Set<string>();
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
        if (inFull.has(s.name)) full.add(t.name);
      }
    }
    const defer = shouldDefer(o.env.ENABLE_TOOL_SEARCH, specTokens(want), o.contextWindow ?? 200_000);
    const names = new Set(want.map((t) => t.name));
    for (const n of registered) if (!names.has(n)) reg.remove(n);
    registered.clear();
    for (const t of want) {
      // A tool the model already loaded keeps its schema; a new one is deferred when the set is large.
      reg.register(defer && !full.has(t.name) ? { ...t, deferred: true } : t);
      registered.add(t.name);
    }
    if (defer && !toolSearch && !o.hidden?.("ToolSearch")) {
      toolSearch = createToolSearchTool(o.tools, { pending, settled });
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
  // A server still connecting after the first wait: the model gets ToolSearch, which waits for it (observed in 2.1.332).
  const searchWhileConnecting = () => {
    if (toolSearch || !pending().length || o.hidden?.("ToolSearch")) return;
    toolSearch = createToolSearchTool(o.tools, { pending, settled });
    o.tools().register(toolSearch);
    extras.push(toolSearch);
  };
  const addConfigured = async (servers: ScopedServer[]) => {
    await Promise.all(
      servers.map(async (s) => {
        // A server the policy blocks never starts, whoever hands it over (the wiring says why, once).
        if (s.blocked) return;
        const prepared = o.prepared?.get(s.name);
        const factory = s.problem ? s.problem : (prepared ?? transportFor(s, { cwd: o.cwd, env: o.env, logDir: o.logDir }));
        if (typeof factory === "string") {
          manager.addInert(s.name, { scope: s.scope, source: s.source, status: "failed", error: factory });
          report(s.name, `MCP server "${s.name}" not started: ${factory}`);
          return;
        }
        if (blocksFirstRequest({ scope: "user", config: s.config })) inFull.add(s.name);
        const startedAt = prepared && o.preparedAt !== undefined ? o.preparedAt : performance.now();
        const done = manager.addServer(s.name, factory, { scope: s.scope, source: s.source }).then((st) => {
          // A server still connecting when the run ends is stopped with it: that is no failure to report.
          if (closed) return;
          afterConnect(st);
          // One that joins after the first request reaches the model with the next one (connect-notes.ts says so).
          sync();
        });
        connecting.push(done);
        await (o.firstWaitMs === undefined || blocksFirstRequest(s) ? done : waitBounded(done, startedAt, o.firstWaitMs));
      }),
    );
    sync();
    searchWhileConnecting();
  };
  await addConfigured(o.servers);

  return {
    manager,
    servers: () => manager.servers(),
    addConfigured,
    pending,
    settled,
    statuses: () => manager.servers().map((s) => ({ name: s.name, status: s.status })),
    async addServer(name, transport, meta) {
      const factory: TransportFactory = typeof transport === "function" ? transport : () => transport;
      const s = await manager.addServer(name, factory, { scope: meta?.scope ?? "sdk", source: meta?.source ?? "sdk" });
      afterConnect(s);
      sync();
      return s;
    },
    expandInput: (text, signal) => expandMcpInput(text, manager, signal),
    close: () => {
      closed = true;
      return manager.close();
    },
  };
}
