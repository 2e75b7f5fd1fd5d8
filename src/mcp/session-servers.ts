import { pluginOnlySurfaces } from "../config/plugin-only.ts";
import type { LoadedSettings } from "../config/load.ts";
import { isProjectTrusted } from "../trust/workspace.ts";
import { userHome } from "../util/home.ts";
import { type ApprovalKeys, isRemote, mergeScopes, type ScopedServer } from "./config.ts";
import { DYNAMIC_CONFIG_REFUSED, readManagedMcp } from "./managed-mcp.ts";
import { applyMcpPolicy, type McpPolicy, readMcpPolicy } from "./policy.ts";
import { readProvidedServers, sameUrlKey } from "./provided-servers.ts";
import { claudeJsonPath, loadMcpSources } from "./sources.ts";

/**
 * The configured MCP servers exactly as a session sees them, decided in one place so a run and every `yoke mcp`
 * subcommand (list, get, login, remove) agree: managed-mcp.json's exclusive control, the organization's provided servers
 * (`managedMcpServers`), every file scope and `--mcp-config`, project approval and workspace trust, the
 * strictPluginOnlyCustomization lock, and the allowedMcpServers / deniedMcpServers policy. Plugins' servers join later
 * (once plugins load) through `pluginServersFor`. Reads files, spawns nothing, never throws.
 */
export type SessionServerOptions = {
  cwd: string;
  env: Record<string, string | undefined>;
  settings: LoadedSettings;
  /** ~/.yoke */
  yokeDir: string;
  /** The managed settings folder (managed-mcp.json). */
  managedDir: string;
  flagConfigs: string[];
  /** `--strict-mcp-config`. */
  strict: boolean;
  bare: boolean;
};

export type SessionServers = {
  /** The servers that start. */
  servers: ScopedServer[];
  /** Listed as disabled with why (an unapproved or untrusted project server, one the plugin-only lock skips). */
  unapproved: Array<{ name: string; reason: string; server: ScopedServer }>;
  /** Kept off by policy: never started and not listed (as Claude Code 2.1.332 leaves them out), said once each. */
  blocked: Array<{ server: ScopedServer; reason: string }>;
  /** managed-mcp.json's path when it has exclusive control. */
  exclusive?: string;
  /** Set when managed-mcp.json refuses this run's `--mcp-config` / `--strict-mcp-config` (the run must end). */
  refused?: string;
  policy: McpPolicy;
  /** Plugins that managed settings enable (`enabledPlugins`, by plugin name): their servers are the organization's. */
  orgPlugins: Set<string>;
  /** Policy and managedMcpServers notices, each naming its file and field: said once. */
  problems: string[];
};

/** The variables a server's config expands with when it starts (transports.ts), for the policy to judge the same text. */
export const policyEnv = (env: Record<string, string | undefined>, cwd: string): Record<string, string | undefined> => ({ ...env, CLAUDE_PROJECT_DIR: cwd });

/** Settings levels whose approval keys count: a committed project settings file does not approve its own `.mcp.json`. */
const approvalsFrom = (s: LoadedSettings): ApprovalKeys[] => s.sources.filter((x) => x.level !== "project").map((x) => x.settings as ApprovalKeys);

export function sessionServers(o: SessionServerOptions): SessionServers {
  const policy = readMcpPolicy(o.settings);
  const provided = readProvidedServers(o.settings);
  const problems = [...policy.problems, ...provided.problems];
  const managed = readManagedMcp(o.managedDir);
  const orgPlugins = new Set(
    o.settings.sources
      .filter((s) => s.level === "managed")
      .flatMap((s) => Object.entries((s.settings as { enabledPlugins?: Record<string, unknown> }).enabledPlugins ?? {}))
      .filter(([, on]) => on === true)
      .map(([id]) => id.split("@")[0]!),
  );
  const out: SessionServers = { servers: [], unapproved: [], blocked: [], policy, orgPlugins, problems };
  if (managed && (o.flagConfigs.length || o.strict)) return { ...out, exclusive: managed.path, refused: `${DYNAMIC_CONFIG_REFUSED} (${managed.path})` };
  // --bare starts only what the command line names; --strict-mcp-config leaves provided servers out with the rest.
  const org = o.bare || o.strict ? [] : provided.servers;
  if (managed) {
    // The file's entry wins a name it shares with a provided server.
    out.exclusive = managed.path;
    out.servers = o.bare ? [] : mergeScopes([org, managed.servers]);
  } else {
    const sources = loadMcpSources({
      cwd: o.cwd,
      env: o.env,
      yokeDir: o.yokeDir,
      claudeJson: claudeJsonPath(o.env, userHome(o.env)),
      flagConfigs: o.flagConfigs,
      strict: o.strict || o.bare,
      plugins: [],
      approvals: approvalsFrom(o.settings),
    });
    // A provided server beats a user, project or local one of its name; a --mcp-config one replaces it for the run.
    const dynamic = sources.servers.filter((s) => s.scope === "dynamic");
    const rest = sources.servers.filter((s) => s.scope !== "dynamic");
    out.servers = mergeScopes([rest, org, dynamic]);
    const taken = new Set(org.map((s) => s.name));
    out.unapproved = sources.unapproved.filter((u) => !taken.has(u.name));
  }
  // An untrusted folder's .mcp.json starts nothing, whatever approves it (src/trust; the notice names it).
  if (!isProjectTrusted(o.settings)) {
    for (const s of out.servers.filter((x) => x.scope === "project"))
      out.unapproved.push({ name: s.name, server: s, reason: `project server "${s.name}" (${s.source}) waits until this folder is trusted (yoke trust)` });
    out.servers = out.servers.filter((x) => x.scope !== "project");
  }
  // Managed strictPluginOnlyCustomization locking "mcp" (observed in 2.1.332): user-level and project-level servers are
  // skipped; plugins' servers (added later), provided ones, --mcp-config and a host's own servers stay.
  if (pluginOnlySurfaces(o.settings, () => {}).has("mcp")) {
    const locked = (x: ScopedServer) => x.scope === "user" || x.scope === "project" || x.scope === "local";
    for (const s of out.servers.filter(locked))
      out.unapproved.push({ name: s.name, server: s, reason: `"${s.name}" (${s.source}) is not started: managed strictPluginOnlyCustomization allows MCP servers only from plugins` });
    out.servers = out.servers.filter((x) => !locked(x));
  }
  // The policy expands what the spawn expands (transports.ts adds CLAUDE_PROJECT_DIR), so it judges what runs.
  // Policy decides first: a server it keeps off is blocked even where approval, trust or the plugin-only lock would
  // also keep it off, so every listing shows it the same way (left out, said once).
  const ruled = applyMcpPolicy(out.servers, policy, policyEnv(o.env, o.cwd));
  const ruledOff = applyMcpPolicy(out.unapproved.map((u) => u.server), policy, policyEnv(o.env, o.cwd));
  out.servers = ruled.allowed;
  out.unapproved = out.unapproved.filter((u) => ruledOff.allowed.includes(u.server));
  out.blocked = [...ruled.blocked, ...ruledOff.blocked];
  return out;
}

/**
 * Plugins' servers for a session that already has `session`: none under exclusive control, `--strict-mcp-config` or
 * `--bare`; one pointing at the URL of a provided server gives way to it (Claude Code's rule); one of a plugin managed
 * settings enable counts as the organization's (a checkout's own denylist does not reach it); the rest under policy.
 */
export function pluginServersFor(
  candidates: ScopedServer[],
  session: Pick<SessionServers, "servers" | "exclusive" | "policy" | "orgPlugins">,
  o: { strict: boolean; bare: boolean; env: Record<string, string | undefined>; cwd: string },
): { allowed: ScopedServer[]; blocked: Array<{ server: ScopedServer; reason: string }> } {
  if (session.exclusive || o.strict || o.bare) return { allowed: [], blocked: [] };
  const providedUrls = new Set(session.servers.filter((s) => s.scope === "managed" && isRemote(s.config)).map((s) => sameUrlKey((s.config as { url: string }).url)));
  const kept = candidates
    .filter((s) => !(isRemote(s.config) && providedUrls.has(sameUrlKey(s.config.url))))
    .map((s): ScopedServer => ([...session.orgPlugins].some((p) => s.name.startsWith(`plugin:${p}:`)) ? { ...s, orgPlugin: true } : s));
  return applyMcpPolicy(kept, session.policy, policyEnv(o.env, o.cwd));
}
