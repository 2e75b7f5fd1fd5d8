import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseJsonWithLocation } from "../util/json-error.ts";
import { type ApprovalKeys, isStdio, mergeScopes, projectServerApproval, type ScopedServer, serversFrom } from "./config.ts";

/**
 * Every place Claude Code reads MCP servers from, merged with its precedence (lowest first): plugins, user, project
 * `.mcp.json`, local (per project), then `--mcp-config` (only those with `--strict-mcp-config`). User and local
 * scope are read from Claude Code's `~/.claude.json` and from yoke's own `~/.yoke/mcp.json` (same shape; yoke's
 * entry wins a tie), which is where `yoke mcp add` writes.
 */
export type McpSourceOptions = {
  cwd: string;
  env: Record<string, string | undefined>;
  /** ~/.yoke */
  yokeDir: string;
  /** Claude Code's `~/.claude.json` path. */
  claudeJson: string;
  /** `--mcp-config` values: a file path or a JSON string each. */
  flagConfigs: string[];
  strict: boolean;
  /** Claude Code plugin folders that are enabled: `.mcp.json` and plugin.json `mcpServers`. */
  plugins: Array<{ name: string; root: string; dataDir: string }>;
  /** Settings levels that may hold approval keys (project settings do not approve their own servers). */
  approvals: ApprovalKeys[];
};

export type McpSources = {
  servers: ScopedServer[];
  /** Project servers that were not started, with why (once on stderr; listed as disabled in system/init). */
  unapproved: Array<{ name: string; reason: string; server: ScopedServer }>;
};

export const claudeJsonPath = (env: Record<string, string | undefined>, home: string): string =>
  env.CLAUDE_CONFIG_DIR ? join(env.CLAUDE_CONFIG_DIR, ".claude.json") : join(home, ".claude.json");
export const yokeMcpPath = (yokeDir: string): string => join(yokeDir, "mcp.json");

/** Reads a JSON file; a missing file is `undefined`, a broken one throws naming file, line and column. */
export function readJsonFile(path: string): unknown {
  if (!existsSync(path)) return undefined;
  return parseJsonWithLocation(readFileSync(path, "utf8"), path);
}

/** A broken file becomes one failed entry naming it, so the run goes on and says why. */
function safeRead(path: string, scope: ScopedServer["scope"]): { doc: unknown; error?: ScopedServer } {
  try {
    return { doc: readJsonFile(path) };
  } catch (e) {
    return { doc: undefined, error: { name: `(${path})`, scope, source: path, config: { type: "sdk" }, problem: (e as Error).message } };
  }
}

const projectEntry = (doc: unknown, cwd: string): unknown => {
  const projects = (doc as { projects?: Record<string, unknown> } | undefined)?.projects;
  return projects && typeof projects === "object" ? projects[cwd] : undefined;
};

/** `--mcp-config` value: JSON when it looks like an object, else a file (relative to cwd). */
function flagServers(value: string, index: number, cwd: string): ScopedServer[] {
  const t = value.trim();
  const source = `--mcp-config[${index}]`;
  if (t.startsWith("{")) {
    try {
      return serversFrom(parseJsonWithLocation(t, source), "dynamic", source);
    } catch (e) {
      return [{ name: `(${source})`, scope: "dynamic", source, config: { type: "sdk" }, problem: (e as Error).message }];
    }
  }
  const file = resolve(cwd, t);
  if (!existsSync(file)) return [{ name: `(${source})`, scope: "dynamic", source, config: { type: "sdk" }, problem: `${source}: no such file ${file}` }];
  const r = safeRead(file, "dynamic");
  return r.error ? [r.error] : serversFrom(r.doc, "dynamic", file);
}

/** Plugin servers are named `plugin:<plugin>:<server>` (tools `mcp__plugin_<plugin>_<server>__<tool>`). */
export function pluginServers(p: McpSourceOptions["plugins"][number]): ScopedServer[] {
  const out: ScopedServer[] = [];
  const take = (doc: unknown, source: string) => {
    const d = doc && typeof doc === "object" && !("mcpServers" in (doc as object)) ? { mcpServers: doc } : doc;
    for (const s of serversFrom(d, "plugin", source)) {
      const env = { CLAUDE_PLUGIN_ROOT: p.root, CLAUDE_PLUGIN_DATA: p.dataDir };
      const config = isStdio(s.config) ? { ...s.config, env: { ...env, ...s.config.env } } : s.config;
      out.push({ ...s, name: `plugin:${p.name}:${s.name}`, config, pluginRoot: p.root, pluginData: p.dataDir });
    }
  };
  const dotMcp = join(p.root, ".mcp.json");
  const r = safeRead(dotMcp, "plugin");
  if (r.error) out.push(r.error);
  else if (r.doc) take(r.doc, dotMcp);
  const manifest = join(p.root, ".claude-plugin", "plugin.json");
  const m = safeRead(manifest, "plugin").doc as { mcpServers?: unknown } | undefined;
  const ms = m?.mcpServers;
  if (typeof ms === "string" || Array.isArray(ms)) {
    for (const rel of [ms].flat()) {
      if (typeof rel !== "string") continue;
      const f = resolve(p.root, rel);
      const rr = safeRead(f, "plugin");
      if (rr.error) out.push(rr.error);
      else if (rr.doc) take(rr.doc, f);
    }
  } else if (ms && typeof ms === "object") take({ mcpServers: ms }, manifest);
  return out;
}

/** Reads every scope. Never throws: a broken file or entry is a failed server naming file and field. */
export function loadMcpSources(o: McpSourceOptions): McpSources {
  const dynamic = o.flagConfigs.flatMap((v, i) => flagServers(v, i, o.cwd));
  if (o.strict) return { servers: mergeScopes([dynamic]), unapproved: [] };
  const claude = safeRead(o.claudeJson, "user");
  const yoke = safeRead(yokeMcpPath(o.yokeDir), "user");
  const errors = [claude.error, yoke.error].filter((e): e is ScopedServer => !!e);
  const user = [...serversFrom(claude.doc, "user", o.claudeJson), ...serversFrom(yoke.doc, "user", yokeMcpPath(o.yokeDir))];
  const local = [
    ...serversFrom(projectEntry(claude.doc, o.cwd), "local", o.claudeJson),
    ...serversFrom(projectEntry(yoke.doc, o.cwd), "local", yokeMcpPath(o.yokeDir)),
  ];
  // Claude Code also keeps approvals in the project's entry of ~/.claude.json.
  const approvals = [...o.approvals, ...[projectEntry(claude.doc, o.cwd), projectEntry(yoke.doc, o.cwd)].filter(Boolean).map((e) => e as ApprovalKeys)];
  const dotMcp = join(o.cwd, ".mcp.json");
  const pr = safeRead(dotMcp, "project");
  if (pr.error) errors.push(pr.error);
  const unapproved: McpSources["unapproved"] = [];
  const project = serversFrom(pr.doc, "project", dotMcp).filter((s) => {
    const a = projectServerApproval(s.name, approvals);
    if (a === "approved") return true;
    unapproved.push({
      name: s.name,
      server: s,
      reason:
        a === "rejected"
          ? `project server "${s.name}" (${dotMcp}) is listed in disabledMcpjsonServers`
          : `project server "${s.name}" (${dotMcp}) is not approved: add it to enabledMcpjsonServers (or set enableAllProjectMcpServers) in .claude/settings.local.json or user settings`,
    });
    return false;
  });
  const plugin = o.plugins.flatMap(pluginServers);
  // A local entry shadows an unapproved project entry of the same name: it is the user's own.
  const shadowed = new Set([...local, ...dynamic].map((s) => s.name));
  return { servers: [...errors, ...mergeScopes([plugin, user, project, local, dynamic])], unapproved: unapproved.filter((u) => !shadowed.has(u.name)) };
}
