// serverUrl policy entries and a server's url are compared in one canonical form (contracts §2.2; Claude Code's
// "Control MCP server access" docs; RFC 3986 §6.2.2): the WHATWG parser's reading plus unreserved escapes decoded, so
// a path-based deny cannot be sidestepped by spelling the same address another way, and a URL that cannot be parsed
// is refused (fail closed). `*` keeps Claude Code 2.1.332's semantics (observed: the pattern goes through the URL
// parser with its wildcards standing in; a host `*` with no port takes any port).
import { describe, expect, test } from "bun:test";
import type { ScopedServer } from "../../src/mcp/config.ts";
import { mcpPolicyBlock, readMcpPolicy, urlMatches } from "../../src/mcp/policy.ts";

const http = (url: string): ScopedServer => ({ name: "s", scope: "user", source: "/src/s", config: { type: "http", url } });
const managed = (s: Record<string, unknown>) => ({ sources: [{ level: "managed" as const, path: "/managed/settings.json", ruleRoot: "/", settings: s as never }] });
const denied = (pattern: string, url: string) => mcpPolicyBlock(http(url), readMcpPolicy(managed({ deniedMcpServers: [{ serverUrl: pattern }] }), {}), {});
const allowed = (pattern: string, url: string) => mcpPolicyBlock(http(url), readMcpPolicy(managed({ allowedMcpServers: [{ serverUrl: pattern }] }), {}), {});

// Every URL here reaches /admin on h.example (or what a server that decodes escapes reads as /admin).
const toAdmin = [
  "https://h.example/%61dmin",
  "https://h.example/%61%64%6D%69%6E",
  "https://h.example/%61%64%6d%69%6e/",
  "https://h.example/x/../admin",
  "https://h.example/x/%2e%2E/admin",
  "https://h.example/./admin",
  "https://h.example/x/.%2E/%61dmin",
  "https://h.example//admin",
  "https://h.example/%2Fadmin",
  "https://h.example/%5Cadmin",
  "https://h.example/%2561dmin",
  "https://h.example/%252561dmin",
  "https://h.example/x/%252e%252e/admin",
  "HTTPS://H.EXAMPLE/admin",
  "https://H.Example:443/admin",
  "https://h.example./admin",
  "https://h.example../admin",
  "https://user:pw@h.example/admin",
  "https://h.example/admin?x=1",
  "https://h.example/admin#frag",
];

describe("a path-based deny holds for every spelling of the same path", () => {
  for (const url of toAdmin)
    test(url, () => {
      expect(denied("https://h.example/admin", url)).toContain("deniedMcpServers");
      expect(denied("https://h.example/admin/*", `${url.replace(/[?#].*$/, "").replace(/\/$/, "")}/tools`)).toContain("deniedMcpServers");
      expect(denied("https://*.example/adm*", url)).toContain("deniedMcpServers");
    });
  test("the pattern may itself be written in any spelling", () => {
    for (const pattern of ["https://h.example/%61dmin", "https://h.example/x/../admin", "HTTPS://H.EXAMPLE:443/admin", "https://h.example./admin/"])
      expect(denied(pattern, "https://h.example/admin")).toContain("deniedMcpServers");
  });
  test("a path under the denied one, spelled with %2F", () => {
    expect(denied("https://h.example/api/admin", "https://h.example/api%2Fadmin")).toContain("deniedMcpServers");
    expect(denied("https://h.example/api/admin/*", "https://h.example/api%2fadmin%2Fx")).toContain("deniedMcpServers");
  });
  test("other paths stay allowed (no false refusals)", () => {
    for (const url of ["https://h.example/administer", "https://h.example/ADMIN", "https://h.example/public", "https://h.example/x/admin", "https://other.example/admin"])
      expect(denied("https://h.example/admin", url)).toBeNull();
  });
});

describe("IPv4 and IPv6 spellings of one host", () => {
  const forms = ["http://127.0.0.1:8080/admin", "http://2130706433:8080/admin", "http://0x7f.1:8080/admin", "http://127.1:8080/%61dmin", "http://0177.0.0.1:8080/admin", "http://[::ffff:127.0.0.1]:8080/admin", "http://[0:0:0:0:0:ffff:7f00:1]:8080/admin"];
  for (const url of forms)
    test(url, () => {
      expect(denied("http://127.0.0.1:8080/admin", url)).toContain("deniedMcpServers");
      expect(denied("http://[::ffff:7f00:1]:8080/admin", url)).toContain("deniedMcpServers");
    });
  test("IPv6 written long or short", () => {
    expect(denied("http://[::1]/admin", "http://[0:0:0:0:0:0:0:1]/%61dmin")).toContain("deniedMcpServers");
    expect(denied("http://[0000::1]/admin", "http://[::1]/admin")).toContain("deniedMcpServers");
  });
});

describe("a URL that cannot be parsed is refused when serverUrl entries apply (fail closed)", () => {
  for (const url of ["https://h.example:99999/admin", "http://[::1/admin", "https://h ex/admin", "http://h.example:80a/admin"])
    test(url, () => {
      expect(URL.canParse(url)).toBe(false);
      expect(denied("https://h.example/admin", url)).toContain("not a valid URL");
      expect(denied("https://elsewhere.example/*", url)).toContain("not a valid URL");
      expect(allowed("https://h.example/*", url)).toContain("allowedMcpServers");
    });
  test("a URL still waiting on a missing variable is left to fail for that", () => {
    expect(denied("https://h.example/admin", "${NOT_SET_ANYWHERE}/mcp")).toBeNull();
  });
});

describe("allowedMcpServers admits only what both readings put under the pattern", () => {
  test("a canonical spelling of an allowed path is admitted", () => {
    for (const url of ["https://h.example/%61pi/x", "HTTPS://H.EXAMPLE:443/api/./x", "https://me@h.example./api/x"]) expect(allowed("https://h.example/api/*", url)).toBeNull();
  });
  test("a path that leaves the allowed prefix for a server that decodes %2F is not admitted", () => {
    for (const url of ["https://h.example/api/..%2Fadmin", "https://h.example/api/%2e%2e%2Fadmin", "https://h.example/api/..%252Fadmin", "https://h.example/api/..%5Cadmin"])
      expect(allowed("https://h.example/api/*", url)).toContain("allowedMcpServers");
  });
});

describe("`*` as Claude Code 2.1.332 reads it", () => {
  const cases: Array<[string, string, boolean]> = [
    ["https://*.example.com/*", "https://a.b.example.com/x", true],
    ["https://*.example.com/*", "https://a.example.com:8443/x", true],
    ["https://h.example.com/*", "https://h.example.com:8443/x", false],
    ["https://h.example.com:*/*", "https://h.example.com:8443/x", true],
    ["*://h.example.com/*", "http://h.example.com/x", true],
    ["https://h.example.com/a*c", "https://h.example.com/a/b/c", true],
    ["https://h.example.com/a*c", "https://h.example.com/a%62c", true],
    ["*", "https://anything.example/x", true],
  ];
  for (const [pattern, url, match] of cases) test(`${pattern} ${match ? "matches" : "does not match"} ${url}`, () => expect(urlMatches(pattern, url)).toBe(match));
});

test("a url with malformed ${…} is left to fail for that, not refused as unparsable", () => {
  expect(denied("https://h.example/admin", "${:-x}/mcp")).toBeNull();
  expect(denied("https://h.example/admin", "${:-https://h.example}/admin")).toBeNull();
});

describe("a pattern's query (Claude Code 2.1.332 compares path and query)", () => {
  test("an allowlist entry with a query admits only that query, in any spelling", () => {
    expect(allowed("https://h.example/mcp?tenant=a", "https://h.example/mcp?tenant=a")).toBeNull();
    expect(allowed("https://h.example/mcp?tenant=a", "https://h.example/mcp?tenant=%61")).toBeNull();
    expect(allowed("https://h.example/mcp?tenant=*", "https://h.example/mcp?tenant=b")).toBeNull();
    expect(allowed("https://h.example:*?tenant=a", "https://h.example:8443/x?tenant=a")).toBeNull();
    for (const url of ["https://h.example/mcp?tenant=b", "https://h.example/mcp", "https://h.example/mcp?tenant=ab"]) expect(allowed("https://h.example/mcp?tenant=a", url)).toContain("allowedMcpServers");
  });
  test("a denylist entry with a query blocks the path whatever the query (never narrower)", () => {
    for (const url of ["https://h.example/mcp?x=1", "https://h.example/mcp?y=2", "https://h.example/mcp"]) expect(denied("https://h.example/mcp?x=1", url)).toContain("deniedMcpServers");
  });
});
