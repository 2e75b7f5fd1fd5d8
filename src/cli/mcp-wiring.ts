import { join } from "node:path";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { LoadedSettings } from "../config/load.ts";
import { projectStateDir } from "../config/paths.ts";
import { type McpScope, normalizeMcpName, type ScopedServer } from "../mcp/config.ts";
import { connectNotes } from "../mcp/connect-notes.ts";
import { firstWaitMs } from "../mcp/first-wait.ts";
import type { McpServerState, TransportFactory } from "../mcp/manager.ts";
import type { McpSession } from "../mcp/session.ts";
import { pluginServers } from "../mcp/sources.ts";
import { pluginServersFor, type SessionServers, sessionServers } from "../mcp/session-servers.ts";
import { prestartStdio } from "../mcp/transports.ts";
import { managedDir } from "../config/paths.ts";
import { UsageError } from "./args.ts";
import type { PromptSection } from "../plugin/host.ts";
import type { LoadedPlugin } from "../plugin/loader.ts";
import type { ToolRegistry } from "../tool/registry.ts";
import type { ParsedArgs } from "./args.ts";

/**
 * The run's MCP servers. Config is read here (plain JSON, no SDK); the client itself (src/mcp/session.ts) is
 * imported only when a server is configured or the host adds one, so a run without MCP pays nothing for it.
 */
export type McpWiring = {
  /** `system/init` `mcp_servers`: `{name, status}` per server (contracts §4.4). */
  statuses(): Array<{ name: string; status: string }>;
  servers(): McpServerState[];
  /** The configured entries (scope, source, config), as read. */
  configs(): ScopedServer[];
  /**
   * Calls a tool of a configured server (`mcp_tool` hooks). A server that is not there, not started (unapproved) or
   * waiting for a sign-in throws Claude Code's "MCP server 'NAME' not connected"; a failed one is reconnected first.
   */
  callTool(server: string, tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult>;
  /** The seam for the Agent SDK's in-process servers (issue 15): a server reached through any MCP Transport. */
  addServer(name: string, transport: Transport | TransportFactory, meta?: { scope?: McpScope; source?: string }): Promise<McpServerState>;
  /** Slash commands the servers' prompts provide (`mcp__server__prompt`), for system/init. */
  promptCommands(): string[];
  /**
   * A prompt with `/mcp__server__prompt args` run and `@server:uri` resources attached. Input that names no server
   * comes back as it is; a server's failure is said on stderr and the input goes on unchanged.
   */
  expandInput(text: string, signal?: AbortSignal): Promise<string>;
  /** Names of the servers still connecting (the first request waits for each at most its bound: mcp/first-wait.ts). */
  pending(): string[];
  /** Resolves when every server has connected or failed (`yoke mcp list` waits for it). Never rejects. */
  settled(): Promise<void>;
  /** Reminders for the request being built: servers still connecting, and those that since connected (mcp/connect-notes.ts). */
  notes(): string[];
  close(): Promise<void>;
};

export type McpWiringOptions = {
  args: ParsedArgs;
  cwd: string;
  env: Record<string, string>;
  settings: LoadedSettings;
  yokeDir: string;
  /** Resolves once plugins are loaded: their servers start then; the others start at once. */
  plugins: Promise<LoadedPlugin[]>;
  tools: () => ToolRegistry;
  /** Tools hidden by bare deny rules are not registered. */
  hidden: (name: string) => boolean;
  sections: PromptSection[];
  version: string;
  /** The model's context window: the share ENABLE_TOOL_SEARCH=auto measures against. */
  contextWindow: number;
  warn: (msg: string) => void;
  bare: boolean;
};

/** The configured servers, read, and the stdio ones already spawned (see `startMcpEarly`). */
export type EarlyMcp = { sources: SessionServers; logDir: string; prepared?: Map<string, TransportFactory>; spawnedAt: number };

/**
 * Reads every MCP scope (src/mcp/session-servers.ts: what a session sees, the same for `yoke mcp`) and spawns the
 * stdio servers at once, before the rest of startup and before the MCP SDK is imported: compose calls this as soon as
 * settings and the session's env are known, so the servers' own start overlaps everything else yoke does before the
 * first request (bench/mcp.ts). Throws only managed-mcp.json's refusal of `--mcp-config` / `--strict-mcp-config`.
 */
export function startMcpEarly(o: Pick<McpWiringOptions, "args" | "cwd" | "env" | "settings" | "yokeDir" | "bare">): EarlyMcp {
  const list = (k: string) => (Array.isArray(o.args.flags[k]) ? (o.args.flags[k] as string[]) : []);
  const sources = sessionServers({
    cwd: o.cwd,
    env: o.env,
    settings: o.settings,
    yokeDir: o.yokeDir,
    managedDir: managedDir(o.env),
    flagConfigs: list("mcp-config"),
    strict: !!o.args.flags["strict-mcp-config"],
    bare: o.bare,
  });
  if (sources.refused) throw new UsageError(sources.refused);
  const logDir = join(projectStateDir(o.cwd, o.env), "mcp-logs");
  // stdio servers are spawned before the SDK is imported, so its import overlaps their start.
  const spawnedAt = performance.now();
  const prepared = sources.servers.length ? prestartStdio(sources.servers, { cwd: o.cwd, env: o.env, logDir }) : undefined;
  return { sources, logDir, prepared, spawnedAt };
}

export async function wireMcp(o: McpWiringOptions & { early?: EarlyMcp }): Promise<McpWiring> {
  const { sources, logDir, prepared, spawnedAt } = o.early ?? startMcpEarly(o);
  for (const m of sources.problems) o.warn(m);
  // A server policy keeps off is not listed (Claude Code 2.1.332 leaves it out of system/init and `mcp list`): said once.
  const sayBlocked = (b: SessionServers["blocked"]) => {
    for (const x of b) o.warn(`MCP ${x.reason}; not started`);
  };
  sayBlocked(sources.blocked);
  let session: McpSession | undefined;
  let starting: Promise<McpSession> | undefined;
  const start = (servers = sources.servers, unapproved = sources.unapproved) =>
    (starting ??= import("../mcp/session.ts").then(async (m) => {
      performance.mark("yoke:mcp-imported");
      session = await m.startMcpSession({
        servers,
        unapproved: unapproved.map((u) => ({ name: u.name, reason: u.reason, source: u.server.source, scope: u.server.scope })),
        cwd: o.cwd,
        env: o.env,
        logDir,
        prepared,
        preparedAt: spawnedAt,
        firstWaitMs: firstWaitMs(o.env),
        version: o.version,
        tools: o.tools,
        hidden: o.hidden,
        warn: o.warn,
        contextWindow: o.contextWindow,
      });
      o.sections.push({ plugin: "mcp", name: "deferred-tools", text: () => m.deferredToolsSection(o.tools()) });
      return session;
    }));
  // A copy: the plugin servers joined to sources.servers below must not also reach this first start.
  const first = sources.servers.length || sources.unapproved.length ? start([...sources.servers], sources.unapproved) : undefined;
  const strict = !!o.args.flags["strict-mcp-config"];
  const pluginRuled = pluginServersFor(
    strict || o.bare || sources.exclusive ? [] : (await o.plugins).flatMap((p) => (p.kind === "claude" ? pluginServers({ name: p.info.name, root: p.info.root, dataDir: p.info.dataDir }) : [])),
    sources,
    { strict, bare: o.bare, env: o.env, cwd: o.cwd },
  );
  const fromPlugins = pluginRuled.allowed;
  // Kept for `yoke plugins list`, which shows each part of a plugin with its state; never started nor listed here.
  const pluginBlocked = pluginRuled.blocked.map((b) => ({ ...b.server, blocked: b.reason }));
  sayBlocked(pluginRuled.blocked);
  sources.servers.unshift(...fromPlugins);
  // Each plugin server starts once: through addConfigured, whether or not a session was started above.
  if (fromPlugins.length) await (await start([], [])).addConfigured(fromPlugins);
  await first;
  const notes = connectNotes(() => session?.servers() ?? [], () => o.tools().list());
  return {
    pending: () => session?.pending() ?? [],
    settled: async () => {
      await session?.settled();
    },
    notes,
    statuses: () => session?.statuses() ?? [],
    servers: () => session?.servers() ?? [],
    configs: () => [...sources.servers, ...pluginBlocked, ...sources.blocked.map((b) => ({ ...b.server, blocked: b.reason })), ...sources.unapproved.map((u) => u.server)],
    promptCommands: () =>
      (session?.servers() ?? []).filter((s) => s.status === "connected").flatMap((s) => s.prompts.map((p) => `mcp__${normalizeMcpName(s.name)}__${normalizeMcpName(p.name)}`)),
    expandInput: async (text, signal) => {
      if (!session || !(text.startsWith("/mcp__") || text.includes("@"))) return text;
      try {
        return await session.expandInput(text, signal);
      } catch (e) {
        o.warn((e as Error).message);
        return text;
      }
    },
    callTool: async (server, tool, args, signal) => {
      const st = session?.servers().find((x) => x.name === server);
      if (!session || !st || st.status === "disabled" || st.status === "needs-auth") throw new Error(`MCP server '${server}' not connected`);
      return session.manager.callTool(server, tool, args, signal);
    },
    addServer: async (name, transport, meta) => (await start([], [])).addServer(name, transport, meta),
    close: async () => {
      await (starting ? (await starting).close() : undefined);
    },
  };
}
