import type { z } from "zod";
import { checkJson, type JsonSchemaNode, NOT_SURE } from "../util/json-check.ts";
import { expandText } from "./expand-vars.ts";
import SERVER_JSON_SCHEMAS from "./server-schemas.json" with { type: "json" };

/**
 * MCP server configuration as Claude Code writes it (contracts §6.6): stdio, streamable HTTP, SSE, and the Agent
 * SDK's in-process servers (`sdk`), which travel over the stream-json control channel. This file loads no MCP code:
 * it only reads and checks JSON, so a run with no server configured never imports the SDK. Nor does it load zod for
 * an entry that is plainly right: the JSON Schemas zod makes of these (server-schemas.json, `bun run schemas`)
 * answer first, and zod, with its message naming the field, only for an entry they do not accept (issue 21: the
 * servers are spawned before zod is loaded).
 */
type ServerSchemas = typeof import("./config-schemas.ts").serverZodSchemas;
let schemas: ServerSchemas | undefined;
/** The zod schemas of a server entry, made on first use (require, not import: parseServerConfig is synchronous). */
export const serverSchemas = (): ServerSchemas => (schemas ??= (require("./config-schemas.ts") as typeof import("./config-schemas.ts")).serverZodSchemas);

// One shape: the types are the schemas' (unknown keys kept, as Claude Code keeps them), never spelled twice.
export type StdioServerConfig = z.infer<ServerSchemas["stdio"]>;
export type RemoteServerConfig = z.infer<ServerSchemas["remote"]>;
export type SdkServerConfig = z.infer<ServerSchemas["sdk"]>;
export type McpServerConfig = StdioServerConfig | RemoteServerConfig | SdkServerConfig;

export const isRemote = (c: McpServerConfig): c is RemoteServerConfig => c.type === "http" || c.type === "sse";
export const isStdio = (c: McpServerConfig): c is StdioServerConfig => c.type === undefined || c.type === "stdio";

/** Where a server was configured, lowest precedence first (a later scope's server of the same name wins). */
export type McpScope =
  | "plugin"
  | "user"
  | "project"
  | "local"
  | "dynamic"
  | "sdk"
  | /** managed-mcp.json: replaces the others */ "enterprise"
  | /** managedMcpServers in managed settings: beside the others (src/mcp/provided-servers.ts) */ "managed";

export type ScopedServer = {
  name: string;
  scope: McpScope;
  /** The file (or flag) the entry came from, for error messages and `yoke mcp get`. */
  source: string;
  config: McpServerConfig;
  /** Set when the entry cannot be used: it is listed as failed with this reason and never started. */
  problem?: string;
  /**
   * The entry as written, when it does not parse (`problem` set): policy still judges its name, and its command or url
   * where they can be read, since policy decides before anything else about a server. Absent on a problem that is no
   * server's (a file that cannot be read), which policy cannot judge.
   */
  written?: unknown;
  /** Set when policy (allowedMcpServers / deniedMcpServers) keeps it off: never started nor listed (only `yoke plugins list` shows it, with this reason). */
  blocked?: string;
  /** A plugin's server whose plugin managed settings enable: the organization's, for a checkout's own denylist. */
  orgPlugin?: true;
  /** Plugin servers: `${CLAUDE_PLUGIN_ROOT}` and `${CLAUDE_PLUGIN_DATA}` expand to these. */
  pluginRoot?: string;
  pluginData?: string;
};

/** Parses one `mcpServers` entry. Returns the config or a message naming the field that is wrong. Never throws. */
export function parseServerConfig(raw: unknown): McpServerConfig | string {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return "must be an object";
  const r = raw as Record<string, unknown>;
  const type = r.type ?? (typeof r.url === "string" && r.command === undefined ? "http" : "stdio");
  // Claude Code writes "streamable-http" in some places for the same transport.
  const t = type === "streamable-http" ? "http" : type;
  const kind = t === "stdio" ? "stdio" : t === "http" || t === "sse" ? "remote" : t === "sdk" ? "sdk" : null;
  if (!kind) return `field "type": must be one of stdio, http, sse (got ${JSON.stringify(type)})`;
  const entry = { ...r, type: t === "stdio" && r.type === undefined ? undefined : t };
  // What the JSON Schema accepts, zod accepts unchanged (test/mcp/server-config-check.test.ts); else zod says why.
  const sure = checkJson((SERVER_JSON_SCHEMAS as Record<string, JsonSchemaNode>)[kind]!, entry.type === undefined ? r : entry);
  if (sure !== NOT_SURE) return (entry.type === undefined ? { type: undefined, ...(sure as object) } : sure) as McpServerConfig;
  const p = serverSchemas()[kind].safeParse(entry);
  if (p.success) return p.data;
  const i = p.error.issues[0]!;
  return `field "${i.path.join(".") || "(entry)"}": ${i.message}`;
}

/**
 * Reads `{"mcpServers": {...}}` (or a bare map of servers) into scoped entries. An entry that does not parse is kept
 * with a `problem` naming file and field, so the run lists it as failed instead of dropping it silently.
 */
export function serversFrom(doc: unknown, scope: McpScope, source: string): ScopedServer[] {
  if (!doc || typeof doc !== "object") return [];
  const map = (doc as Record<string, unknown>).mcpServers;
  if (map === undefined) return [];
  if (!map || typeof map !== "object" || Array.isArray(map)) {
    return [{ name: "(mcpServers)", scope, source, config: { type: "sdk" }, problem: `${source}: "mcpServers" must be an object` }];
  }
  return Object.entries(map as Record<string, unknown>).map(([name, raw]) => {
    const c = parseServerConfig(raw);
    return typeof c === "string"
      ? { name, scope, source, config: { type: "sdk" }, problem: `${source}: mcpServers.${name}: ${c}`, written: raw }
      : { name, scope, source, config: c };
  });
}

/**
 * `${VAR}` and `${VAR:-default}` in a string (expand-vars.ts), as Claude Code expands them in command, args, env, url
 * and headers. Variables that are unset and have no default are collected in `missing`; malformed text stays as written.
 */
export function expandVars(text: string, env: Record<string, string | undefined>, missing: Set<string>): string {
  const r = expandText(text, env);
  for (const m of r.missing) missing.add(m);
  return r.text;
}

/**
 * The config with every variable expanded; the names of the variables that are missing, and where; and what is
 * malformed, each as `field "args[2]": why`. Pure.
 */
export function expandServer(
  config: McpServerConfig,
  env: Record<string, string | undefined>,
): { config: McpServerConfig; missing: string[]; missingIn: string[]; errors: string[] } {
  const missing = new Set<string>();
  const missingIn: string[] = [];
  const errors: string[] = [];
  const x = (field: string) => (t: string) => {
    const r = expandText(t, env);
    if (r.error) errors.push(`field "${field}": ${r.error}`);
    if (r.missing.length) missingIn.push(field);
    for (const m of r.missing) missing.add(m);
    return r.text;
  };
  const map = (field: string, m: Record<string, string> | undefined) => (m ? Object.fromEntries(Object.entries(m).map(([k, v]) => [k, x(`${field}.${k}`)(v)])) : undefined);
  let out: McpServerConfig;
  if (isRemote(config)) out = { ...config, url: x("url")(config.url), headers: map("headers", config.headers) };
  else if (!isStdio(config)) out = config;
  else out = { ...config, command: x("command")(config.command), args: config.args?.map((a, i) => x(`args[${i}]`)(a)), env: map("env", config.env), cwd: config.cwd && x("cwd")(config.cwd) };
  return { config: out, missing: [...missing], missingIn, errors };
}

/** Why an expanded entry cannot start (malformed text, then missing variables), naming file, server and field; or undefined. */
export function expansionProblem(source: string, name: string, e: { missing: string[]; missingIn: string[]; errors: string[] }): string | undefined {
  if (e.errors.length) return `${source}: mcpServers.${name}: ${e.errors.join("; ")}`;
  if (e.missing.length) return `${source}: mcpServers.${name}: missing environment variables: ${e.missing.join(", ")} (in ${e.missingIn.map((f) => `"${f}"`).join(", ")}; no default given)`;
  return undefined;
}

/** Claude Code's name rule: characters outside A-Z a-z 0-9 _ - become `_`. */
export const normalizeMcpName = (name: string): string => name.replace(/[^A-Za-z0-9_-]/g, "_");

/** `mcp__<server>__<tool>`, the name the model, permission rules and hook matchers see. */
export const mcpToolName = (server: string, tool: string): string => `mcp__${normalizeMcpName(server)}__${normalizeMcpName(tool)}`;

/** Project `.mcp.json` approval as Claude Code keeps it in settings (contracts §2.2). */
export type ApprovalKeys = { enableAllProjectMcpServers?: boolean; enabledMcpjsonServers?: string[]; disabledMcpjsonServers?: string[] };

/** Whether a project server may start: disabled wins, then enable-all, then the enabled list. Pure. */
export function projectServerApproval(name: string, keys: ApprovalKeys[]): "approved" | "rejected" | "unapproved" {
  if (keys.some((k) => k.disabledMcpjsonServers?.includes(name))) return "rejected";
  if (keys.some((k) => k.enableAllProjectMcpServers === true || k.enabledMcpjsonServers?.includes(name))) return "approved";
  return "unapproved";
}

/** Merges scoped lists: the last entry of a name wins (callers pass the scopes lowest precedence first). */
export function mergeScopes(lists: ScopedServer[][]): ScopedServer[] {
  const byName = new Map<string, ScopedServer>();
  for (const list of lists) for (const s of list) {
    byName.delete(s.name);
    byName.set(s.name, s);
  }
  return [...byName.values()];
}
