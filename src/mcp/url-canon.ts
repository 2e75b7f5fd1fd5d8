/**
 * One canonical form for the URLs that managed MCP policy compares (`serverUrl` entries against a server's `url`), so
 * that two spellings of the same address cannot be told apart by the policy: the WHATWG URL parser's reading (the one
 * the MCP SDK's HTTP and SSE transports connect by: scheme and host case, default ports, userinfo, dot segments
 * including `%2e`, IPv4 written in hex or as one number, `\` for `/`), plus what RFC 3986 §6.2.2 adds on top: path
 * escapes of unreserved characters decoded (`%61dmin` is `admin`), the other escapes' hex in upper case, a trailing
 * FQDN dot dropped, and an IPv4-mapped IPv6 host read as its IPv4 address. A denylist also compares a loose reading
 * (`looseForm`) where every escape is decoded, repeatedly, so a server that decodes `%2F` or a double-encoded path
 * cannot be reached by the spelling. Pure; no I/O.
 */
export type UrlForm = { scheme: string; host: string; port: string; path: string; /** `?…` with unreserved escapes decoded, or "". */ query: string };
export type PatternForm = UrlForm & { anyPort: boolean };

/** Stands for `*` while a pattern goes through the parser: letters and digits survive host and path parsing as written. */
const STAR = "yokestarq9z";

const UNRESERVED = /[A-Za-z0-9\-._~]/;

/** Path escapes of unreserved characters decoded, others in upper-case hex (RFC 3986 §6.2.2.1, §6.2.2.2). */
const canonPath = (p: string): string =>
  p.replace(/%([0-9a-fA-F]{2})/g, (_, h: string) => {
    const c = String.fromCharCode(parseInt(h, 16));
    return UNRESERVED.test(c) ? c : `%${h.toUpperCase()}`;
  });

/** RFC 3986 §5.2.4 on a path that is already a string of segments. */
function removeDotSegments(path: string): string {
  const out: string[] = [];
  const segs = path.split("/");
  segs.forEach((s, i) => {
    if (s === "..") {
      if (out.length > 1) out.pop();
      if (i === segs.length - 1) out.push("");
    } else if (s === ".") {
      if (i === segs.length - 1) out.push("");
    } else out.push(s);
  });
  return out.join("/") || "/";
}

/** `[::ffff:7f00:1]` is 127.0.0.1 to the socket; a trailing FQDN dot (or several) names the same host. */
function canonHost(hostname: string): string {
  const mapped = /^\[::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})\]$/.exec(hostname);
  if (mapped) {
    const [hi, lo] = [parseInt(mapped[1]!, 16), parseInt(mapped[2]!, 16)];
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  return hostname.toLowerCase().replace(/\.+$/, "");
}

const formOf = (u: URL): UrlForm => ({ scheme: u.protocol, host: canonHost(u.hostname), port: u.port, path: removeDotSegments(canonPath(u.pathname)), query: canonPath(u.search) });

/** The canonical form of a URL, or null when the WHATWG parser refuses it (then nothing can connect to it either). */
export function canonicalUrl(url: string): UrlForm | null {
  const u = URL.parse(url);
  return u ? formOf(u) : null;
}

/**
 * A path as a lenient server may read it: every escape decoded until none is left (a few rounds, for double and
 * triple encoding), `\` as `/`, runs of `/` as one, dot segments removed. For denylists only: it widens what a
 * pattern blocks, never what one admits.
 */
export function loosePath(path: string): string {
  let p = path;
  for (let i = 0; i < 8; i++) {
    const next = p.replace(/%([0-9a-fA-F]{2})/g, (whole, h: string) => {
      const n = parseInt(h, 16);
      return n < 0x80 ? String.fromCharCode(n) : whole.toUpperCase();
    });
    if (next === p) break;
    p = next;
  }
  return removeDotSegments(p.replace(/\\/g, "/").replace(/\/{2,}/g, "/"));
}

/**
 * A `serverUrl` pattern in the same canonical form, its `*`s kept (Claude Code 2.1.332's reading, observed: the pattern
 * goes through the URL parser with its wildcards standing in; `*` in the port, or a host with a `*` and no port, takes
 * any port). The fragment is dropped. Null when the parser refuses it, or when a `*` would not survive the
 * parse unchanged (inside a label IDNA rewrites): the caller then matches the pattern's text.
 */
export function canonicalPattern(pattern: string): PatternForm | null {
  const bare = pattern.replace(/#.*$/, "");
  let text = bare.replaceAll("*", STAR);
  const anyScheme = text.startsWith(`${STAR}://`);
  if (anyScheme) text = `https${text.slice(STAR.length)}`;
  let u = URL.parse(text);
  let starPort = false;
  if (!u) {
    const portless = text.replace(new RegExp(`:${STAR}(?=[/?]|$)`), ":0");
    if (portless !== text) {
      u = URL.parse(portless);
      starPort = true;
    }
  }
  if (!u) return null;
  const f = formOf(u);
  const stars = (s: string) => s.split(STAR).length - 1;
  if (stars(f.scheme) + stars(f.host) + stars(f.path) + stars(f.query) + (anyScheme ? 1 : 0) + (starPort ? 1 : 0) !== bare.split("*").length - 1) return null;
  const back = (s: string) => s.replaceAll(STAR, "*");
  return {
    scheme: anyScheme ? "*" : back(f.scheme),
    host: back(f.host),
    port: starPort ? "*" : f.port,
    path: back(f.path),
    query: back(f.query),
    anyPort: starPort || (f.port === "" && f.host.includes(STAR)),
  };
}

/** `*` matches any run of characters (a host `*` spans `a.b`, a path `*` spans `/`); everything else literally. */
export const globRe = (pattern: string, flags = ""): RegExp =>
  new RegExp(`^${pattern.split("*").map((x) => x.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`, flags);

/**
 * Whether a canonical URL matches a canonical pattern: scheme, host and port as Claude Code compares them, then the
 * path — none (or `/`) takes any path, and a trailing slash on either side does not matter. Paths are compared as
 * written canonically and as `loosePath` reads them: a denylist blocks when either reading matches, an allowlist
 * admits only when both do (`/api/..%2Fadmin` is not under `/api/` to a server that decodes `%2F`). Pure.
 */
export function formMatches(p: PatternForm, u: UrlForm, list: "deny" | "allow"): boolean {
  if (p.scheme !== "*" && !globRe(p.scheme).test(u.scheme)) return false;
  if (!globRe(p.host).test(u.host)) return false;
  if (!p.anyPort && p.port !== u.port) return false;
  // A pattern's query narrows an allowlist entry to URLs with that query (Claude Code 2.1.332 compares path and query);
  // a denylist entry blocks the path whatever the query (wider than Claude Code, never narrower).
  if (list === "allow" && p.query !== "" && !globRe(p.query).test(u.query)) return false;
  return pathMatches(p.path, u.path, list);
}

/** The path part of `formMatches`, also for patterns matched as text. */
export function pathMatches(pattern: string, path: string, list: "deny" | "allow"): boolean {
  if (pattern === "" || pattern === "/") return true;
  const trim = (x: string) => x.replace(/\/+$/, "") || "/";
  const exact = globRe(trim(pattern)).test(trim(path));
  // deny: either reading; allow: both.
  if (list === "deny" ? exact : !exact) return exact;
  return globRe(trim(loosePath(pattern))).test(trim(loosePath(path)));
}
