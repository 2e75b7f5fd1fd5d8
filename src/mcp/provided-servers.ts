import type { LoadedSettings } from "../config/load.ts";
import { parseServerConfig, type ScopedServer } from "./config.ts";

/**
 * `managedMcpServers`, the managed setting (Claude Code 2.1.259 and later; its "Control MCP server access" docs,
 * "Provide servers through managed settings"; observed in the 2.1.332 binary's settings schema): remote servers the
 * organization gives every user beside their own, scope "managed". Read only from managed settings files (the key is
 * dropped with a notice anywhere else). Each entry must be an `http`/`sse` server (`streamable-http` is an alias) with an
 * `https://` URL, name no program (`command`, `args`, `env`, `headersHelper`), hold no `${VAR}` (never expanded here) and
 * no control or invisible characters, under a name of letters, digits, `-` and `_`; an entry that fails is dropped
 * with a notice naming the file and the entry, and the others load. A later managed file's entry of a name replaces an
 * earlier one whole (drop-ins after managed-settings.json, as the settings merge orders them).
 */
export type ProvidedServers = { servers: ScopedServer[]; problems: string[] };

const NAME = /^[A-Za-z0-9_-]+$/;
// C0/C1 controls, and invisible format characters (zero-width, bidi controls, BOM, soft hyphen).
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]/;
const NO_PROGRAM = ["command", "args", "env", "headersHelper"];

/** Every key and string value in the entry, with its dotted path. */
function* strings(v: unknown, path: string): Generator<[string, string, boolean]> {
  if (typeof v === "string") yield [path, v, false];
  else if (v && typeof v === "object")
    for (const [k, x] of Object.entries(v)) {
      const p = path ? `${path}.${k}` : k;
      yield [p, k, true];
      yield* strings(x, p);
    }
}

/** Why this entry may not be delivered through managed settings, or its server. Pure. */
function readEntry(name: string, raw: unknown, source: string): ScopedServer | string {
  if (!NAME.test(name)) return "its name may hold only letters, digits, '-' and '_'";
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return "must be an object (the .mcp.json server shape)";
  const r = raw as Record<string, unknown>;
  for (const k of NO_PROGRAM)
    if (Object.hasOwn(r, k)) return `"${k}" is not allowed in managed settings: only http/sse URL servers can be delivered this way, and a managed settings document must not name a program to run`;
  const type = r.type === "streamable-http" ? "http" : r.type;
  if (type !== "http" && type !== "sse") return 'type: managed settings can only deliver "http" or "sse" servers';
  if (typeof r.url !== "string" || !/^https:\/\/[^/\s]/i.test(r.url)) return "url: managed settings servers must use a valid https:// url";
  for (const [path, s, isKey] of strings(r, ""))
    if (INVISIBLE.test(s)) return `${path}: contains control or invisible format characters (in a key or a value)`;
    else if (!isKey && /\$\{[^}]*\}/.test(s)) return `${path}: \${VAR} references are not expanded in managed settings; use a literal value`;
  const config = parseServerConfig({ ...r, type });
  if (typeof config === "string") return config;
  return { name, scope: "managed", source, config };
}

/** The provided servers from the managed settings files, and a notice for each thing dropped. Pure. */
export function readProvidedServers(settings: Pick<LoadedSettings, "sources">): ProvidedServers {
  const byName = new Map<string, ScopedServer>();
  const problems: string[] = [];
  for (const s of settings.sources) {
    const raw = (s.settings as Record<string, unknown>).managedMcpServers;
    if (raw === undefined) continue;
    if (s.level !== "managed") {
      problems.push(`${s.path}: field "managedMcpServers" is read only from managed settings; ignored here`);
      continue;
    }
    if (!raw || typeof raw !== "object" || Array.isArray(raw)) {
      problems.push(
        `${s.path}: field "managedMcpServers" must be an object keyed by server name (the .mcp.json mcpServers shape; Claude Desktop's array form is not accepted here). No managed MCP servers are installed from it until it is fixed.`,
      );
      continue;
    }
    for (const [name, entry] of Object.entries(raw as Record<string, unknown>)) {
      const r = readEntry(name, entry, s.path);
      if (typeof r === "string") problems.push(`${s.path}: managedMcpServers.${NAME.test(name) ? name : JSON.stringify(name)}: Managed MCP server was ignored: ${r}`);
      else byName.set(name, r);
    }
  }
  return { servers: [...byName.values()], problems };
}

/** The URL of a remote server without a trailing slash, for "points at the same URL". */
export const sameUrlKey = (url: string): string => url.replace(/\/+$/, "").toLowerCase();

/** `https://host/…`: how `yoke mcp get` and list show a provided server's URL (Claude Code shows only its host). */
export function hostOnly(url: string): string {
  const m = /^([a-z][a-z0-9+.-]*:\/\/[^/?#]+)/i.exec(url);
  return m ? `${m[1]}/…` : "…";
}
