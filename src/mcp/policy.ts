import type { LoadedSettings } from "../config/load.ts";
import { expandServer, expandVars, isRemote, isStdio, type ScopedServer } from "./config.ts";
import { canonicalPattern, canonicalUrl, formMatches, globRe, pathMatches } from "./url-canon.ts";

/**
 * The organization's MCP server policy: `allowedMcpServers` / `deniedMcpServers` (contracts §2.2; Claude Code's
 * "Control MCP server access" docs and its settings schema, observed in 2.1.332). It governs every server a user or
 * a checkout configures: user, project and local scope, `--mcp-config`, plugins' servers and agents' inline servers.
 * Plain data and pure functions; the wiring applies it before anything is spawned.
 */
export type McpPolicyEntry = { serverName: string } | { serverCommand: string[] } | { serverUrl: string };

export type McpPolicy = {
  /** Undefined: no allowlist (everything not denied may run). Empty: nothing may run. */
  allowed?: McpPolicyEntry[];
  denied: McpPolicyEntry[];
  /**
   * Denylist entries found only in a checkout's own settings (.claude/settings.json, settings.local.json): they do not
   * apply to a server the organization provides (managed-mcp.json, managedMcpServers, a plugin managed settings
   * enable), as Claude Code's schema says.
   */
  deniedByCheckout: McpPolicyEntry[];
  /** Where each list came from, for the messages. */
  allowedFrom: string[];
  deniedFrom: string[];
  /** Bad fields and entries, each naming the settings file and field. */
  problems: string[];
};

/** One entry, or why it is not one. Exactly one of the three keys (as Claude Code's schema requires). */
function readEntry(raw: unknown): McpPolicyEntry | string {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return "must be an object with serverName, serverCommand or serverUrl";
  const r = raw as Record<string, unknown>;
  const keys = ["serverName", "serverCommand", "serverUrl"].filter((k) => r[k] !== undefined);
  if (keys.length !== 1) return 'must have exactly one of "serverName", "serverCommand" or "serverUrl"';
  if (r.serverName !== undefined) return typeof r.serverName === "string" && r.serverName ? { serverName: r.serverName } : "serverName must be a non-empty string";
  if (r.serverUrl !== undefined) return typeof r.serverUrl === "string" && r.serverUrl ? { serverUrl: r.serverUrl } : "serverUrl must be a non-empty string";
  const c = r.serverCommand;
  return Array.isArray(c) && c.length > 0 && c.every((x) => typeof x === "string") ? { serverCommand: c as string[] } : "serverCommand must be a non-empty array of strings";
}

/**
 * The policy in force. `deniedMcpServers` is merged from every settings file; `allowedMcpServers` too, unless a
 * managed file sets `allowManagedMcpServersOnly`, when only managed files count. An allowlist that is not an array
 * is enforced as empty (nothing runs until it is fixed), as Claude Code does; a bad entry of either list is left out,
 * and every problem is named. Pure.
 */
export function readMcpPolicy(settings: Pick<LoadedSettings, "sources">, startEnv: Record<string, string | undefined> = process.env): McpPolicy {
  const p: McpPolicy = { denied: [], deniedByCheckout: [], allowedFrom: [], deniedFrom: [], problems: [] };
  const envOf = (level: string) => Object.assign({}, ...settings.sources.filter((s) => s.level === level).map((s) => (s.settings as { env?: Record<string, string> }).env ?? {}));
  // Entries expand from a pinned environment, so a checkout's settings cannot change what one means (Claude Code's
  // "How policy entries expand"): an allowlist entry from the start-up environment plus managed settings' env; a
  // denylist entry also fills a variable the start-up environment lacks from user or managed settings (that only
  // widens what it blocks). Both keep their written form as well.
  const allowEnv = { ...startEnv, ...envOf("managed") };
  const denyEnv = { ...envOf("user"), ...envOf("managed"), ...Object.fromEntries(Object.entries(startEnv).filter(([, v]) => v)) };
  const managedOnly = settings.sources.some((s) => s.level === "managed" && (s.settings as Record<string, unknown>).allowManagedMcpServersOnly === true);
  for (const s of settings.sources) {
    const doc = s.settings as Record<string, unknown>;
    for (const key of ["allowedMcpServers", "deniedMcpServers"] as const) {
      const raw = doc[key];
      if (raw === undefined) continue;
      const allow = key === "allowedMcpServers";
      if (allow && managedOnly && s.level !== "managed") continue;
      // What a checkout ships cannot widen the list (Claude Code: a project's entry "can't keep one out" and admits
      // only servers the organization provides, which skip the allowlist anyway): its allowlist is not read at all.
      if (allow && (s.level === "project" || s.level === "local")) {
        p.problems.push(`${s.path}: field "${key}" is read only from user, --settings and managed settings; ignored here`);
        continue;
      }
      const entries: McpPolicyEntry[] = [];
      if (!Array.isArray(raw))
        p.problems.push(`${s.path}: field "${key}" must be an array${allow ? "; no MCP server is allowed until it is fixed" : "; its entries are not enforced"}`);
      else
        raw.forEach((e, i) => {
          const r = readEntry(e);
          if (typeof r === "string") p.problems.push(`${s.path}: field "${key}[${i}]" ${r}; the entry is left out`);
          else entries.push(r);
        });
      if (allow) {
        p.allowed = [
          ...(p.allowed ?? []),
          ...entries.flatMap((e) => {
            const x = expandEntry(e, allowEnv);
            // A variable that would move an allowlist URL to another scheme or host, or widen it, voids the entry.
            if ("serverUrl" in e && "serverUrl" in x && x.serverUrl !== e.serverUrl && (originOf(x.serverUrl) !== originOf(e.serverUrl) || (x.serverUrl.match(/\*/g)?.length ?? 0) > (e.serverUrl.match(/\*/g)?.length ?? 0))) {
              p.problems.push(`${s.path}: field "${key}" entry ${JSON.stringify(e.serverUrl)} expands to ${JSON.stringify(x.serverUrl)}, another scheme, host or scope; the entry is left out`);
              return [];
            }
            return [x];
          }),
        ];
        p.allowedFrom.push(s.path);
      } else {
        const both = entries.flatMap((e) => {
          const x = expandEntry(e, denyEnv);
          return JSON.stringify(x) === JSON.stringify(e) ? [e] : [e, x];
        });
        (s.level === "project" || s.level === "local" ? p.deniedByCheckout : p.denied).push(...both);
        if (entries.length) p.deniedFrom.push(s.path);
      }
    }
  }
  return p;
}

/** `${VAR}` and `${VAR:-default}` expanded in a command or URL entry (a name is literal); an unset one stays written. */
function expandEntry(e: McpPolicyEntry, env: Record<string, string | undefined>): McpPolicyEntry {
  const x = (t: string) => expandVars(t, env, new Set());
  if ("serverCommand" in e) return { serverCommand: e.serverCommand.map(x) };
  if ("serverUrl" in e) return { serverUrl: x(e.serverUrl) };
  return e;
}

const originOf = (url: string) => splitUrl(url).origin;

/**
 * A URL pattern split where its path starts, for a pattern the URL parser cannot read (url-canon.ts reads the rest):
 * the scheme and host part lowercased, IDN labels in their ASCII form, without a trailing FQDN dot or the scheme's
 * default port, and the path (query and fragment dropped) as written. A `*` may stand anywhere.
 */
function splitUrl(url: string): { origin: string; path: string } {
  const bare = url.replace(/[?#].*$/, "");
  const start = bare.indexOf("://");
  const slash = bare.indexOf("/", start < 0 ? 0 : start + 3);
  const written = (slash < 0 ? bare : bare.slice(0, slash)).toLowerCase();
  const m = /^([^:]*:\/\/)(.*?)(:[^:\]]*)?$/.exec(written);
  let origin = written;
  if (m) {
    // node:url loads here, for a pattern the URL parser cannot read: its import costs a start ~0.5 ms (issue 21).
    const host = (require("node:url") as typeof import("node:url")).domainToASCII(m[2]!) || m[2]!;
    const port = m[3] === ":443" && m[1] === "https://" ? "" : m[3] === ":80" && m[1] === "http://" ? "" : (m[3] ?? "");
    origin = `${m[1]}${host.replace(/\.$/, "")}${port}`;
  }
  return { origin, path: slash < 0 ? "" : bare.slice(slash) };
}

/**
 * Claude Code's `serverUrl` match ("Control MCP server access" docs; `*` semantics observed in 2.1.332): `*` anywhere,
 * the scheme and host case-insensitive and blind to a trailing FQDN dot, the path case-sensitive; a pattern with no
 * path matches any path; a trailing slash on either side does not matter. Both sides are compared in one canonical
 * form (url-canon.ts), so another spelling of the same address (escapes, dot segments, default port, userinfo, IPv4
 * forms) matches as the address does. A denylist (`list`) also blocks on the paths read with every escape decoded; an allowlist admits only when that reading matches too. A URL
 * the parser refuses is compared as written (it cannot connect; mcpPolicyBlock fails closed on it). Pure.
 */
export function urlMatches(pattern: string, url: string, list: "deny" | "allow" = "allow"): boolean {
  if (pattern === "*") return true;
  const u = canonicalUrl(url);
  const p = canonicalPattern(pattern);
  if (u && p) return formMatches(p, u, list);
  const sp = splitUrl(pattern);
  const su = splitUrl(u ? `${u.scheme}//${u.host}${u.port ? `:${u.port}` : ""}${u.path}` : url);
  if (!globRe(sp.origin).test(su.origin)) return false;
  return pathMatches(sp.path, su.path, list);
}

type Facts = { names: string[]; command?: string[]; url?: string; missing?: string[] };

/** What the policy compares: the names, and the command or URL as it would run (variables expanded). */
function factsOf(s: ScopedServer, env: Record<string, string | undefined>): Facts[] {
  // A plugin's server answers to its full name and to the name its plugin gave it.
  const names = [s.name, ...(s.scope === "plugin" ? [s.name.replace(/^plugin:[^:]+:/, "")] : [])];
  const vars = { ...env, ...(s.pluginRoot ? { CLAUDE_PLUGIN_ROOT: s.pluginRoot } : {}), ...(s.pluginData ? { CLAUDE_PLUGIN_DATA: s.pluginData } : {}) };
  if (s.problem) return [{ names, ...writtenFacts(s.written, vars) }];
  const { config, missing, errors } = expandServer(s.config, vars);
  const forms = [s.config, config];
  return forms.map((c, i) => ({
    names,
    ...(isStdio(c) ? { command: [c.command, ...(c.args ?? [])] } : {}),
    ...(isRemote(c) ? { url: c.url } : {}),
    // A url still holding an unexpanded or malformed `${` fails for that, not as unparsable.
    ...(i === 1 ? { missing: [...missing, ...errors] } : {}),
  }));
}

/**
 * The command or url of an entry that does not parse, as far as it can be read (the policy's facts, expanded as a
 * spawn would expand them). A field of the wrong type is left out: then only the name and what is readable count.
 */
function writtenFacts(raw: unknown, vars: Record<string, string | undefined>): Omit<Facts, "names"> {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return {};
  const r = raw as Record<string, unknown>;
  const missing = new Set<string>();
  const x = (t: string) => expandVars(t, vars, missing);
  const args = Array.isArray(r.args) && r.args.every((a) => typeof a === "string") ? (r.args as string[]) : r.args === undefined ? [] : undefined;
  return {
    ...(typeof r.command === "string" && args ? { command: [r.command, ...args].map(x) } : {}),
    ...(typeof r.url === "string" ? { url: x(r.url) } : {}),
    missing: [...missing],
  };
}

const matches = (e: McpPolicyEntry, f: Facts, strictName: boolean, list: "deny" | "allow"): boolean => {
  if ("serverName" in e) return strictName ? f.names[0] === e.serverName : f.names.includes(e.serverName);
  if ("serverCommand" in e) return !!f.command && f.command.length === e.serverCommand.length && f.command.every((x, i) => x === e.serverCommand[i]);
  return !!f.url && urlMatches(e.serverUrl, f.url, list);
};

/**
 * Why this server may not run under the policy, or null. A denylist match wins over everything, on the name, the
 * command or the URL, as configured or as expanded. Else, with an allowlist: a stdio server must match a
 * `serverCommand` entry when the list has any (else a `serverName` entry), a remote server a `serverUrl` entry when
 * the list has any (else a `serverName` entry) — a name alone is the user's choice, so it counts only where the list
 * pins nothing stricter (Claude Code's rule). Pure.
 */
export function mcpPolicyBlock(s: ScopedServer, p: McpPolicy, env: Record<string, string | undefined>): string | null {
  const org = s.scope === "enterprise" || s.scope === "managed" || s.orgPlugin === true;
  const denied = org ? p.denied : [...p.denied, ...p.deniedByCheckout];
  if (!denied.length && p.allowed === undefined) return null;
  const facts = factsOf(s, env);
  if (denied.some((e) => facts.some((f) => matches(e, f, false, "deny")))) return `is blocked by deniedMcpServers (${p.deniedFrom.join(", ")})`;
  // Fail closed: a URL the parser cannot read cannot be checked against the serverUrl entries. (One still waiting on a
  // missing variable fails for that instead; it is never contacted.)
  const contacted = facts[facts.length - 1]!;
  const unreadable = contacted.url !== undefined && !contacted.missing?.length && !canonicalUrl(contacted.url);
  if (unreadable && denied.some((e) => "serverUrl" in e))
    return `is blocked by deniedMcpServers: its url ${JSON.stringify(contacted.url)} is not a valid URL, so the serverUrl entries cannot be checked against it (${p.deniedFrom.join(", ")})`;
  if (p.allowed === undefined) return null;
  // The organization's own servers skip the allowlist: every provided one, and a managed-mcp.json one unless `${VAR}`
  // makes its config the user's (managed-mcp.ts).
  if (s.scope === "managed" || (s.scope === "enterprise" && !JSON.stringify(s.config).includes("${"))) return null;
  const allowed = p.allowed;
  const why = `is not in allowedMcpServers (${p.allowedFrom.join(", ") || "managed settings"})`;
  if (!allowed.length) return why;
  const expanded = facts[facts.length - 1]!;
  const w = s.problem && s.written && typeof s.written === "object" ? (s.written as Record<string, unknown>) : undefined;
  const kind = w ? (w.url !== undefined ? "serverUrl" : w.command !== undefined ? "serverCommand" : null) : isStdio(s.config) ? "serverCommand" : isRemote(s.config) ? "serverUrl" : null;
  const pinned = kind !== null && allowed.some((e) => kind in e);
  const ok = allowed.some((e) => (pinned ? kind! in e : "serverName" in e) && !("serverUrl" in e && unreadable) && matches(e, expanded, true, "allow"));
  return ok ? null : why;
}

/** Splits servers into those the policy lets run and those it blocks (with the message to say once). Pure. */
export function applyMcpPolicy(
  servers: ScopedServer[],
  p: McpPolicy,
  env: Record<string, string | undefined>,
): { allowed: ScopedServer[]; blocked: Array<{ server: ScopedServer; reason: string }> } {
  const allowed: ScopedServer[] = [];
  const blocked: Array<{ server: ScopedServer; reason: string }> = [];
  for (const s of servers) {
    // Policy decides first: a server's entry that does not parse is judged too (by what can be read of it); only a
    // problem that is no server's (a file that cannot be read, no `written` entry) is left to be listed as failed.
    const why = s.problem && s.written === undefined ? null : mcpPolicyBlock(s, p, env);
    if (why) blocked.push({ server: s, reason: `server "${s.name}" (${s.source}) ${why}` });
    else allowed.push(s);
  }
  return { allowed, blocked };
}
