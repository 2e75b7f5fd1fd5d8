import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  type CallToolResult,
  type GetPromptResult,
  type Prompt,
  PromptListChangedNotificationSchema,
  type ReadResourceResult,
  type Resource,
  ResourceListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { McpScope } from "./config.ts";
import { lazySchemaValidator } from "./schema-validator.ts";
import type { StdioTransport } from "./stdio-transport.ts";

/**
 * The MCP client manager: one SDK Client per server, connected in parallel, each bounded by the connect timeout.
 * Every server is reached through a `TransportFactory`, so stdio, HTTP, SSE and the Agent SDK's control-channel
 * servers are the same thing here; `addServer` is the seam for a custom transport. Nothing here throws to the loop:
 * a server that fails is a state with a reason, and a call to it is an error result naming server and cause.
 */
export type McpStatus = "connected" | "failed" | "pending" | "disabled" | "needs-auth";

export type McpToolInfo = {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; title?: string };
};

export type McpServerState = {
  name: string;
  scope: McpScope;
  source: string;
  status: McpStatus;
  error?: string;
  tools: McpToolInfo[];
  hasResources: boolean;
  hasPrompts: boolean;
  /** The server's prompts (slash commands `/mcp__server__prompt`), read at connect. */
  prompts: Array<{ name: string; description?: string; arguments?: Array<{ name: string; required?: boolean }> }>;
  serverInfo?: { name: string; version: string };
  instructions?: string;
};

/** Makes a fresh transport for each (re)connect. */
export type TransportFactory = () => Transport | Promise<Transport>;

export type McpManagerOptions = {
  /** MCP_TIMEOUT: how long a server has to start and answer initialize. */
  connectTimeoutMs: number;
  /** MCP_TOOL_TIMEOUT: how long one tools/call may take. */
  toolTimeoutMs: number;
  version: string;
  /** A server's tool list changed (list_changed, reconnect): the tool registry refreshes. */
  onToolsChanged?: (server: string) => void;
  /** A connected server went away mid-session; reported once per loss. */
  onLost?: (server: string, reason: string) => void;
};

type Entry = {
  state: McpServerState;
  factory: TransportFactory;
  client?: Client;
  transport?: Transport;
  connecting?: Promise<void>;
  /** A tools/list refresh after list_changed, so a call's result can wait for it. */
  refreshing?: Promise<void>;
};

export type McpManager = {
  servers(): McpServerState[];
  /** Registers and connects a server; resolves once it is connected or failed (never rejects). */
  addServer(name: string, factory: TransportFactory, meta?: { scope?: McpScope; source?: string }): Promise<McpServerState>;
  /** A server that is listed but not started (unapproved, bad config), with why. */
  addInert(name: string, meta: { scope: McpScope; source: string; status: McpStatus; error: string }): void;
  /**
   * Calls a tool. A tools/list_changed notification that arrived with the answer is applied before this resolves,
   * so the next model request sees the new tool list.
   */
  callTool(server: string, tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult>;
  listResources(server: string, signal?: AbortSignal): Promise<Resource[]>;
  readResource(server: string, uri: string, signal?: AbortSignal): Promise<ReadResourceResult>;
  listPrompts(server: string, signal?: AbortSignal): Promise<Prompt[]>;
  getPrompt(server: string, name: string, args: Record<string, string>, signal?: AbortSignal): Promise<GetPromptResult>;
  close(): Promise<void>;
};

const firstLine = (s: string) => s.trim().split("\n").filter(Boolean).slice(-3).join(" | ").slice(0, 400);

/** An OAuth refusal (our needs-auth, the SDK's UnauthorizedError, a 401 that outlived a refresh): sign in again. */
function authFailure(err: unknown, transport: Transport | undefined, server: string): string | undefined {
  const e = err as { needsAuth?: boolean; name?: string; code?: unknown; message?: string } | undefined;
  if (e?.needsAuth) return e.message;
  const said = (transport as { authTrail?: { last?: string } } | undefined)?.authTrail?.last;
  if (e?.name === "UnauthorizedError" || (e?.code === 401 && said !== undefined))
    return `needs authentication: the server refused its OAuth token${said ? ` (${said})` : ""}; run \`yoke mcp login ${server}\` to sign in again`;
  return undefined;
}

/** Why a connect failed, in words a user can act on: exit code, stderr, stdout garbage, timeout. */
function describeFailure(err: unknown, transport: Transport | undefined, timeoutMs: number): string {
  const msg = err instanceof Error ? err.message : String(err);
  const t = transport as Partial<StdioTransport> | undefined;
  const parts: string[] = [];
  const exit = t?.exit?.();
  if (exit) parts.push(`the process exited${exit.code !== null ? ` with code ${exit.code}` : ` on ${exit.signal}`} before it finished initialize`);
  else if (/timed out|-32001/i.test(msg)) parts.push(`no answer to initialize within ${timeoutMs} ms (MCP_TIMEOUT)`);
  else {
    // The SDK's HTTP errors carry the status as `code`.
    const code = (err as { code?: unknown })?.code;
    parts.push(typeof code === "number" && code >= 100 && code < 600 ? `HTTP ${code}: ${msg}` : msg);
  }
  const garbage = t?.garbage?.();
  if (garbage) parts.push(`it printed non-JSON-RPC output on stdout: ${JSON.stringify(garbage)}`);
  const stderr = t?.stderrTail?.();
  if (stderr?.trim()) parts.push(`stderr: ${firstLine(stderr)}`);
  return parts.join("; ");
}

const withTimeout = <T>(p: Promise<T>, ms: number, what: string): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} timed out`)), ms);
    p.then(
      (v) => (clearTimeout(timer), resolve(v)),
      (e) => (clearTimeout(timer), reject(e)),
    );
  });

export function createMcpManager(o: McpManagerOptions): McpManager {
  const entries = new Map<string, Entry>();
  let closing = false;

  const refreshTools = async (e: Entry) => {
    const client = e.client;
    if (!client || !client.getServerCapabilities()?.tools) {
      e.state.tools = [];
      return;
    }
    const tools: McpToolInfo[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: o.connectTimeoutMs });
      for (const t of page.tools) tools.push({ name: t.name, description: t.description, inputSchema: t.inputSchema as Record<string, unknown>, annotations: t.annotations });
      cursor = page.nextCursor;
    } while (cursor);
    e.state.tools = tools;
  };

  const connect = (e: Entry): Promise<void> => {
    if (e.connecting) return e.connecting;
    e.connecting = (async () => {
      e.state.status = "pending";
      let transport: Transport | undefined;
      const client = new Client({ name: "yoke", version: o.version }, { capabilities: {}, jsonSchemaValidator: lazySchemaValidator() });
      try {
        transport = await e.factory();
        e.transport = transport;
        performance.mark(`yoke:mcp-${e.state.name}-transport`);
        // The SDK's own request timeout covers initialize; the outer bound also covers a transport that never starts.
        await withTimeout(client.connect(transport, { timeout: o.connectTimeoutMs }), o.connectTimeoutMs + 500, "connect");
        e.client = client;
        performance.mark(`yoke:mcp-${e.state.name}-initialized`);
        const caps = client.getServerCapabilities() ?? {};
        e.state.serverInfo = client.getServerVersion();
        e.state.instructions = client.getInstructions();
        e.state.hasResources = !!caps.resources;
        e.state.hasPrompts = !!caps.prompts;
        // tools/list and prompts/list go out together: the first model request waits for both.
        const [, prompts] = await Promise.all([
          refreshTools(e),
          caps.prompts ? client.listPrompts(undefined, { timeout: o.connectTimeoutMs }).then((r) => r.prompts, () => []) : [],
        ]);
        e.state.prompts = prompts;
        performance.mark(`yoke:mcp-${e.state.name}-listed`);
        e.state.status = "connected";
        e.state.error = undefined;
        client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
          const run = (async () => {
            try {
              await refreshTools(e);
              o.onToolsChanged?.(e.state.name);
            } catch {
              // keep the old list; the next call reports the real problem
            }
          })();
          e.refreshing = run.finally(() => {
            if (e.refreshing === run) e.refreshing = undefined;
          });
          return run;
        });
        client.setNotificationHandler(ResourceListChangedNotificationSchema, async () => {});
        client.setNotificationHandler(PromptListChangedNotificationSchema, async () => {});
        client.onclose = () => {
          if (e.client !== client || closing) return;
          e.client = undefined;
          const exit = (transport as Partial<StdioTransport>).exit?.();
          const stderr = (transport as Partial<StdioTransport>).stderrTail?.();
          e.state.status = "failed";
          e.state.error = `the server went away${exit ? ` (exit code ${exit.code ?? exit.signal})` : ""}${stderr?.trim() ? `; stderr: ${firstLine(stderr)}` : ""}; it is reconnected on the next call`;
          o.onLost?.(e.state.name, e.state.error);
        };
      } catch (err) {
        e.client = undefined;
        const auth = authFailure(err, transport, e.state.name);
        e.state.status = auth ? "needs-auth" : "failed";
        e.state.error = auth ?? describeFailure(err, transport, o.connectTimeoutMs);
        await client.close().catch(() => {});
        await transport?.close().catch(() => {});
      } finally {
        e.connecting = undefined;
      }
    })();
    return e.connecting;
  };

  /** The connected client, reconnecting a server that went away; throws an Error naming server and cause. */
  const ready = async (name: string): Promise<Client> => {
    const e = entries.get(name);
    if (!e) throw new Error(`no MCP server named "${name}" is configured`);
    if (e.state.status === "disabled") throw new Error(`MCP server "${name}" is not started: ${e.state.error}`);
    if (!e.client) {
      const before = e.state.tools.map((t) => t.name).join();
      await connect(e);
      if (e.client && e.state.tools.map((t) => t.name).join() !== before) o.onToolsChanged?.(name);
    }
    if (!e.client) throw new Error(`MCP server "${name}" is not connected: ${e.state.error}`);
    return e.client;
  };

  return {
    servers: () => [...entries.values()].map((e) => e.state),
    async addServer(name, factory, meta) {
      const old = entries.get(name);
      if (old?.client) await old.client.close().catch(() => {});
      const e: Entry = {
        factory,
        state: { name, scope: meta?.scope ?? "dynamic", source: meta?.source ?? "", status: "pending", tools: [], hasResources: false, hasPrompts: false, prompts: [] },
      };
      entries.set(name, e);
      await connect(e);
      return e.state;
    },
    addInert(name, meta) {
      entries.set(name, {
        factory: () => {
          throw new Error(meta.error);
        },
        state: { name, scope: meta.scope, source: meta.source, status: meta.status, error: meta.error, tools: [], hasResources: false, hasPrompts: false, prompts: [] },
      });
    },
    async callTool(server, tool, args, signal) {
      const client = await ready(server);
      try {
        const result = (await client.callTool({ name: tool, arguments: args }, undefined, { timeout: o.toolTimeoutMs, signal })) as CallToolResult;
        // Messages that came in the same read as the answer are dispatched by now; wait for a refresh they started.
        await new Promise((r) => setImmediate(r));
        await entries.get(server)?.refreshing;
        return result;
      } catch (err) {
        const msg = err instanceof Error ? err.message : String(err);
        if (signal.aborted) throw err;
        if (/timed out|-32001/i.test(msg)) throw new Error(`MCP server "${server}" did not answer ${tool} within ${o.toolTimeoutMs} ms (MCP_TOOL_TIMEOUT)`);
        throw new Error(`MCP server "${server}" failed on ${tool}: ${msg}`);
      }
    },
    async listResources(server, signal) {
      const client = await ready(server);
      if (!client.getServerCapabilities()?.resources) return [];
      const out: Resource[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listResources(cursor ? { cursor } : undefined, { timeout: o.toolTimeoutMs, signal });
        out.push(...page.resources);
        cursor = page.nextCursor;
      } while (cursor);
      return out;
    },
    async readResource(server, uri, signal) {
      return (await ready(server)).readResource({ uri }, { timeout: o.toolTimeoutMs, signal });
    },
    async listPrompts(server, signal) {
      const client = await ready(server);
      if (!client.getServerCapabilities()?.prompts) return [];
      return (await client.listPrompts(undefined, { timeout: o.toolTimeoutMs, signal })).prompts;
    },
    async getPrompt(server, name, args, signal) {
      return (await ready(server)).getPrompt({ name, arguments: args }, { timeout: o.toolTimeoutMs, signal });
    },
    async close() {
      closing = true;
      await Promise.all(
        [...entries.values()].map(async (e) => {
          const c = e.client;
          e.client = undefined;
          await c?.close().catch(() => {});
          await e.transport?.close().catch(() => {});
        }),
      );
    },
  };
}
