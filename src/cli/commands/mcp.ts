import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { managedDir, yokeDir } from "../../config/paths.ts";
import { ADD_REFUSED, readManagedMcp } from "../../mcp/managed-mcp.ts";
import { isRemote, isStdio, type McpServerConfig, parseServerConfig } from "../../mcp/config.ts";
import type { McpServerState } from "../../mcp/manager.ts";
import { policyEnv } from "../../mcp/session-servers.ts";
import { yokeMcpPath } from "../../mcp/sources.ts";
import { defineCommand } from "citty";
import { repinOwnWrite } from "../../trust/workspace.ts";
import { parseArgv, UsageError } from "../args.ts";
import { runFlagArgs } from "../command-tree.ts";
import { builtinTools } from "../builtin-tools.ts";
import { compose } from "../compose.ts";
import { writeErr, writeOut } from "../../util/output.ts";
import { addPolicyRefusal, mcpView, orgServerRefusal, shownConfig, viewEntries } from "./mcp-view.ts";

/**
 * `yoke mcp list|get|add|add-json|remove` (issue 13 point 6), Claude Code's `claude mcp` with its options. yoke writes
 * its own user and local scopes to ~/.yoke/mcp.json and the project scope to ./.mcp.json; Claude Code's
 * ~/.claude.json is read, never written.
 */
const USAGE = `Usage:
  yoke mcp list [--json]                       servers of every scope, with status, tool count and last error
  yoke mcp get NAME [--json]                   one server: scope, source, config, tools
  yoke mcp add [-s local|user|project] [-e KEY=VALUE]... NAME -- COMMAND [ARGS...]
  yoke mcp add -t http|sse [-s SCOPE] [-H "Name: value"]... NAME URL
  yoke mcp add-json [-s SCOPE] NAME JSON
  yoke mcp remove [-s SCOPE] NAME
  yoke mcp login NAME [--no-browser]           OAuth sign-in of an HTTP/SSE server (paste the redirect URL when headless)
  yoke mcp logout NAME                         forget a server's stored OAuth tokens
list and get take the run options too (--mcp-config, --strict-mcp-config, --settings, --plugin-dir).`;

type Scope = "local" | "user" | "project";

export type McpRow = {
  name: string;
  scope: string;
  source: string;
  status: string;
  transport: string;
  target: string;
  tools: number;
  error?: string;
  toolNames?: string[];
};

const describeTarget = (c: McpServerConfig | undefined): { transport: string; target: string } => {
  if (!c) return { transport: "-", target: "-" };
  if (isRemote(c)) return { transport: c.type, target: c.url };
  if (isStdio(c)) return { transport: "stdio", target: [c.command, ...(c.args ?? [])].join(" ") };
  return { transport: "sdk", target: "-" };
};

/** Rows for `list`/`get` from the run's servers and their configs. Pure. */
export function mcpRows(states: McpServerState[], configs: Map<string, McpServerConfig>): McpRow[] {
  return states.map((s) => ({
    name: s.name,
    scope: s.scope,
    source: s.source,
    status: s.status,
    ...describeTarget(shownConfig(s, configs.get(s.name))),
    tools: s.tools.length,
    ...(s.error ? { error: s.error } : {}),
    toolNames: s.tools.map((t) => t.name),
  }));
}

function readDoc(path: string): Record<string, any> {
  if (!existsSync(path)) return {};
  try {
    const d = JSON.parse(readFileSync(path, "utf8"));
    if (d && typeof d === "object" && !Array.isArray(d)) return d;
  } catch (e) {
    throw new UsageError(`${path} is not valid JSON (${(e as Error).message}); fix or remove it first`);
  }
  throw new UsageError(`${path} must hold a JSON object`);
}

function writeDoc(path: string, doc: Record<string, unknown>): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(doc, null, 2)}\n`);
  renameSync(tmp, path);
  // A project .mcp.json the user edits through yoke stays trusted if the folder was (src/trust pins it).
  if (basename(path) === ".mcp.json") repinOwnWrite(dirname(path), path);
}

/** The file and the `mcpServers` object of a scope, for writing. */
function scopeTarget(scope: Scope, cwd: string, env: Record<string, string | undefined>): { file: string; doc: Record<string, any>; servers: Record<string, unknown> } {
  const file = scope === "project" ? join(cwd, ".mcp.json") : yokeMcpPath(yokeDir(env));
  const doc = readDoc(file);
  let holder: Record<string, any> = doc;
  if (scope === "local") {
    doc.projects ??= {};
    holder = doc.projects[cwd] ??= {};
  }
  holder.mcpServers ??= {};
  return { file, doc, servers: holder.mcpServers };
}

function parseScope(v: string | undefined): Scope {
  const s = v ?? "local";
  if (s !== "local" && s !== "user" && s !== "project") throw new UsageError(`--scope must be local, user or project (got '${s}')`);
  return s;
}

function addServer(name: string, config: McpServerConfig, scope: Scope, cwd: string): string {
  const managed = readManagedMcp(managedDir(process.env));
  if (managed) throw new UsageError(`${ADD_REFUSED} (${managed.path})`);
  if (!/^[A-Za-z0-9_.-]+$/.test(name)) throw new UsageError(`server name '${name}' may hold only letters, digits, '_', '-' and '.'`);
  // The organization's policy refuses what a session would never start (Claude Code's words, then the policy's files).
  const view = mcpView(cwd);
  // Judged as the run will judge it: with ${CLAUDE_PROJECT_DIR} expanded as the spawn expands it.
  const refused = addPolicyRefusal(name, config, scope, view, policyEnv(process.env, cwd));
  if (refused) throw new UsageError(refused);
  const t = scopeTarget(scope, cwd, process.env);
  const existed = name in t.servers;
  t.servers[name] = config;
  writeDoc(t.file, t.doc);
  const provided = view.servers.find((s) => s.name === name && s.scope === "managed");
  return `${existed ? "Replaced" : "Added"} ${describeTarget(config).transport} MCP server ${name} in ${scope} scope (${t.file})${scope === "project" ? "\nProject servers start once approved: add it to enabledMcpjsonServers in .claude/settings.local.json." : ""}\n${provided ? `Note: your organization provides a server named ${name} (managed settings, ${provided.source}); yours is saved but not used while that one is there.\n` : ""}`;
}

/** Options of `add`: -s/--scope, -t/--transport, -e/--env KEY=VALUE, -H/--header "Name: value"; the rest positional. */
function parseAddOptions(argv: string[]) {
  const dash = argv.indexOf("--");
  const head = dash >= 0 ? argv.slice(0, dash) : argv;
  const command = dash >= 0 ? argv.slice(dash + 1) : [];
  const o: { scope?: string; transport?: string; env: Record<string, string>; headers: Record<string, string>; positional: string[] } = { env: {}, headers: {}, positional: [] };
  for (let i = 0; i < head.length; i++) {
    const a = head[i]!;
    const value = () => {
      const v = head[++i];
      if (v === undefined) throw new UsageError(`option '${a}' needs a value`);
      return v;
    };
    if (a === "-s" || a === "--scope") o.scope = value();
    else if (a === "-t" || a === "--transport") o.transport = value();
    else if (a === "-e" || a === "--env") {
      const kv = value();
      const eq = kv.indexOf("=");
      if (eq <= 0) throw new UsageError(`--env needs KEY=VALUE (got '${kv}')`);
      o.env[kv.slice(0, eq)] = kv.slice(eq + 1);
    } else if (a === "-H" || a === "--header") {
      const h = value();
      const colon = h.indexOf(":");
      if (colon <= 0) throw new UsageError(`--header needs "Name: value" (got '${h}')`);
      o.headers[h.slice(0, colon).trim()] = h.slice(colon + 1).trim();
    } else if (a.startsWith("-")) throw new UsageError(`unknown option '${a}'\n${USAGE}`);
    else o.positional.push(a);
  }
  return { ...o, command };
}

async function listOrGet(sub: "list" | "get", tail: string[]): Promise<number> {
  const json = tail.includes("--json");
  const args = parseArgv(tail.filter((a) => a !== "--json"));
  const name = sub === "get" ? args.positionals[0] : undefined;
  if (sub === "get" && !name) throw new UsageError(`get needs a server name\n${USAGE}`);
  const rt = await compose({ args: { ...args, positionals: [] }, cwd: process.cwd(), builtinTools: builtinTools(), requireCredentials: false, reportMcpErrors: false });
  // A report shows each server as it ends up, not as it was when a first request would have left.
  await rt.mcp.settled();
  try {
    const configs = new Map(rt.mcp.configs().map((s) => [s.name, s.config] as const));
    let rows = mcpRows(rt.mcp.servers(), configs);
    if (name) {
      rows = rows.filter((r) => r.name === name);
      if (!rows.length) {
        writeErr(`yoke mcp: no MCP server named '${name}'. Servers: ${mcpRows(rt.mcp.servers(), configs).map((r) => r.name).join(", ") || "(none)"}\n`);
        return 1;
      }
    }
    if (json) writeOut(`${JSON.stringify(name ? { ...rows[0], config: shownConfig(rows[0]!, configs.get(name)) } : rows.map(({ toolNames: _t, ...r }) => r), null, 2)}\n`);
    else if (!rows.length) writeOut("No MCP servers configured. Add one with: yoke mcp add NAME -- COMMAND [ARGS...]\n");
    else
      for (const r of rows) {
        const mark = r.status === "connected" ? "✓ connected" : r.status === "disabled" ? "disabled" : r.status === "needs-auth" ? "! needs authentication" : `✗ ${r.status}`;
        writeOut(`${r.name}: ${r.target} (${r.transport}, ${r.scope}) - ${mark}, ${r.tools} tool${r.tools === 1 ? "" : "s"}\n`);
        if (r.error) writeOut(`    ${r.error}\n`);
        if (name) {
          writeOut(`    source: ${r.source || "-"}\n`);
          const headers = (shownConfig(r, configs.get(name)) as { headers?: Record<string, string> } | undefined)?.headers;
          if (headers) writeOut(`    headers: ${r.scope === "managed" ? Object.keys(headers).join(", ") : Object.entries(headers).map(([k, v]) => `${k}: ${v}`).join(", ")}\n`);
          for (const t of r.toolNames ?? []) writeOut(`    tool: ${t}\n`);
        }
      }
    return 0;
  } finally {
    await rt.shutdown();
  }
}

async function mcpCommand(sub: string, tail: string[]): Promise<number> {
  const cwd = process.cwd();
  switch (sub) {
    case "list":
    case "get":
      return listOrGet(sub, tail);
    case "add": {
      const o = parseAddOptions(tail);
      const scope = parseScope(o.scope);
      const transport = o.transport ?? "stdio";
      const [name, ...rest] = o.positional;
      if (!name) throw new UsageError(`add needs a server name\n${USAGE}`);
      let config: McpServerConfig;
      if (transport === "http" || transport === "sse") {
        const url = rest[0] ?? o.command[0];
        if (!url) throw new UsageError(`add -t ${transport} needs a URL after the name`);
        config = { type: transport, url, ...(Object.keys(o.headers).length ? { headers: o.headers } : {}) };
      } else if (transport === "stdio") {
        const cmd = [...rest, ...o.command];
        if (!cmd.length) throw new UsageError(`add needs the server command: yoke mcp add ${name} -- COMMAND [ARGS...]`);
        config = { command: cmd[0]!, ...(cmd.length > 1 ? { args: cmd.slice(1) } : {}), ...(Object.keys(o.env).length ? { env: o.env } : {}) };
      } else throw new UsageError(`--transport must be stdio, http or sse (got '${transport}')`);
      writeOut(addServer(name, config, scope, cwd));
      return 0;
    }
    case "add-json": {
      const o = parseAddOptions(tail);
      const [name, json] = o.positional;
      if (!name || !json) throw new UsageError(`add-json needs NAME and JSON\n${USAGE}`);
      let raw: unknown;
      try {
        raw = JSON.parse(json);
      } catch (e) {
        throw new UsageError(`the JSON for '${name}' does not parse: ${(e as Error).message}`);
      }
      const config = parseServerConfig(raw);
      if (typeof config === "string") throw new UsageError(`the JSON for '${name}': ${config}`);
      writeOut(addServer(name, raw as McpServerConfig, parseScope(o.scope), cwd));
      return 0;
    }
    case "remove": {
      const o = parseAddOptions(tail);
      const [name] = o.positional;
      if (!name) throw new UsageError(`remove needs a server name\n${USAGE}`);
      const scopes: Scope[] = o.scope ? [parseScope(o.scope)] : ["local", "project", "user"];
      for (const scope of scopes) {
        const t = scopeTarget(scope, cwd, process.env);
        if (!(name in t.servers)) continue;
        delete t.servers[name];
        writeDoc(t.file, t.doc);
        writeOut(`Removed MCP server ${name} from ${scope} scope (${t.file})\n`);
        return 0;
      }
      // Not in yoke's files: the organization's own server cannot be removed here (Claude Code's words, naming the file).
      const hit = viewEntries(mcpView(cwd)).find((e) => e.server.name === name);
      const org = hit && orgServerRefusal(hit.server);
      if (org) {
        writeErr(`yoke mcp: ${org}\n`);
        return 1;
      }
      writeErr(
        `yoke mcp: no MCP server named '${name}' in ${scopes.join(", ")} scope of yoke's files (${yokeMcpPath(yokeDir(process.env))}, ${join(cwd, ".mcp.json")}); Claude Code's ~/.claude.json is not edited by yoke\n`,
      );
      return 1;
    }
    case "login":
    case "logout": {
      const noBrowser = tail.includes("--no-browser");
      const [name, extra] = tail.filter((a) => a !== "--no-browser");
      if (!name || name.startsWith("-") || extra !== undefined) throw new UsageError(`${sub} needs one server name\n${USAGE}`);
      const { mcpLogin, mcpLogout } = await import("./mcp-login.ts");
      return sub === "login" ? mcpLogin(name, noBrowser) : mcpLogout(name);
    }
    default:
      throw new UsageError(`unknown subcommand '${sub}'\n${USAGE}`);
  }
}

const json = { type: "boolean", description: "Print JSON" } as const;
const scope = { type: "string", alias: "s", valueHint: "local|user|project", description: "Where the server is written (default local)" } as const;
const listFlags = { json, ...runFlagArgs(["settings", "setting-sources", "trust-workspace", "plugin-dir", "bare"]), "mcp-config": { type: "string", valueHint: "FILE|JSON", description: "Servers from a file or JSON (repeatable)" }, "strict-mcp-config": { type: "boolean", description: "Only the --mcp-config servers" } } as const;

export const command = defineCommand({
  meta: { name: "mcp", description: "MCP servers: list, inspect, add and remove them (Claude Code's `claude mcp`)" },
  subCommands: {
    list: defineCommand({
      meta: { name: "list", description: "Servers of every scope, with status, tool count and last error" },
      args: listFlags,
      run: ({ rawArgs }) => mcpCommand("list", rawArgs),
    }),
    get: defineCommand({
      meta: { name: "get", description: "One server: scope, source, config, tools" },
      args: { name: { type: "positional", required: false, description: "Server name" }, ...listFlags },
      run: ({ rawArgs }) => mcpCommand("get", rawArgs),
    }),
    add: defineCommand({
      meta: { name: "add", description: "Add a server: NAME -- COMMAND [ARGS...] (stdio), or -t http|sse NAME URL" },
      args: {
        name: { type: "positional", required: false, description: "Server name" },
        scope,
        transport: { type: "string", alias: "t", valueHint: "stdio|http|sse", description: "Transport (default stdio)" },
        env: { type: "string", alias: "e", valueHint: "KEY=VALUE", description: "Environment for a stdio server (repeatable)" },
        header: { type: "string", alias: "H", valueHint: "Name: value", description: "HTTP header for http/sse (repeatable)" },
      },
      run: ({ rawArgs }) => mcpCommand("add", rawArgs),
    }),
    "add-json": defineCommand({
      meta: { name: "add-json", description: "Add a server from its JSON config" },
      args: { name: { type: "positional", required: false, description: "Server name" }, json: { type: "positional", required: false, description: "The server's config as JSON" }, scope },
      run: ({ rawArgs }) => mcpCommand("add-json", rawArgs),
    }),
    login: defineCommand({
      meta: { name: "login", description: "Sign in to an HTTP/SSE server with OAuth (Claude Code's `claude mcp login`)" },
      args: { name: { type: "positional", required: false, description: "Server name" }, "no-browser": { type: "boolean", description: "Print the URL only; paste the redirect URL back" } },
      run: ({ rawArgs }) => mcpCommand("login", rawArgs),
    }),
    logout: defineCommand({
      meta: { name: "logout", description: "Forget a server's stored OAuth tokens" },
      args: { name: { type: "positional", required: false, description: "Server name" } },
      run: ({ rawArgs }) => mcpCommand("logout", rawArgs),
    }),
    remove: defineCommand({
      meta: { name: "remove", description: "Remove a server from yoke's files (all scopes unless -s)" },
      args: { name: { type: "positional", required: false, description: "Server name" }, scope },
      run: ({ rawArgs }) => mcpCommand("remove", rawArgs),
    }),
  },
});
