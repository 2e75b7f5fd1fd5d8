import { managedDir, yokeDir } from "../../config/paths.ts";
import type { McpServerConfig, ScopedServer } from "../../mcp/config.ts";
import { isRemote } from "../../mcp/config.ts";
import { mcpPolicyBlock } from "../../mcp/policy.ts";
import { hostOnly } from "../../mcp/provided-servers.ts";
import { type SessionServers, sessionServers } from "../../mcp/session-servers.ts";
import { parseArgv } from "../args.ts";
import { gatedSettings } from "../settings-args.ts";

/**
 * What `yoke mcp login/add/remove` see: the servers a session in this folder would see (src/mcp/session-servers.ts),
 * with the same settings, trust and policy; no `--mcp-config` (those are a run's own). `list` and `get` go through a
 * whole runtime instead, so they see the same set by construction.
 */
export function mcpView(cwd: string, env: Record<string, string | undefined> = process.env): SessionServers {
  const settings = gatedSettings(parseArgv([]), cwd);
  return sessionServers({ cwd, env, settings, yokeDir: yokeDir(env as NodeJS.ProcessEnv), managedDir: managedDir(env), flagConfigs: [], strict: false, bare: false });
}

/** Every server of the view, started or not (unapproved and policy-blocked ones too), each with its state. */
export function viewEntries(v: SessionServers): Array<{ server: ScopedServer; blocked?: string }> {
  return [...v.servers.map((server) => ({ server })), ...v.unapproved.map((u) => ({ server: u.server })), ...v.blocked.map((b) => ({ server: b.server, blocked: b.reason }))];
}

/** The organization's own servers cannot be removed or edited locally: the message, naming where they come from. */
export function orgServerRefusal(s: ScopedServer): string | undefined {
  if (s.scope === "managed") return `MCP server "${s.name}" is provided by your organization (managed settings, ${s.source}) and cannot be removed locally.`;
  if (s.scope === "enterprise") return `MCP server "${s.name}" is provided by your organization (${s.source}) and cannot be removed locally.`;
  return undefined;
}

/** Claude Code's refusal of `mcp add` for a server the policy keeps off, naming the policy's files. */
export function addPolicyRefusal(name: string, config: McpServerConfig, scope: ScopedServer["scope"], v: SessionServers, env: Record<string, string | undefined>): string | undefined {
  const why = mcpPolicyBlock({ name, scope, source: "", config }, v.policy, env);
  if (!why) return undefined;
  const files = /\(([^)]*)\)$/.exec(why)?.[1];
  return why.startsWith("is blocked")
    ? `Cannot add MCP server "${name}": server is explicitly blocked by enterprise policy (deniedMcpServers in ${files})`
    : `Cannot add MCP server "${name}": not allowed by enterprise policy (allowedMcpServers in ${files})`;
}

/**
 * A provided server's config as `yoke mcp get` shows it: the URL as its host only and the headers' names without
 * their values (Claude Code's `claude mcp get`), since anyone reading the output need not see the organization's key.
 */
export function shownConfig(s: { scope: string }, c: McpServerConfig | undefined): McpServerConfig | undefined {
  if (!c || s.scope !== "managed" || !isRemote(c)) return c;
  return { ...c, url: hostOnly(c.url), ...(c.headers ? { headers: Object.fromEntries(Object.keys(c.headers).map((k) => [k, "…"])) } : {}) };
}
