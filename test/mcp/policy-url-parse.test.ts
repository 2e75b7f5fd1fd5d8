// The serverUrl policy must judge the host the client will contact, which is what the WHATWG URL parser (used by the
// MCP SDK's HTTP and SSE transports) reads from the configured URL — not a text split of it. Red-team cases of the
// class "the policy reads one host, the transport connects to another": userinfo, a backslash (a path separator for
// http/https), tabs and newlines (removed by the parser), IDN, a default port, percent-encoded host (contracts §2.2;
// Claude Code's "Control MCP server access" docs: scheme and host case-insensitive, trailing dot ignored).
import { describe, expect, test } from "bun:test";
import type { ScopedServer } from "../../src/mcp/config.ts";
import { mcpPolicyBlock, readMcpPolicy, urlMatches } from "../../src/mcp/policy.ts";

const http = (url: string): ScopedServer => ({ name: "s", scope: "user", source: "/src/s", config: { type: "http", url } });
const managed = (s: Record<string, unknown>) => ({ sources: [{ level: "managed" as const, path: "/managed/settings.json", ruleRoot: "/", settings: s as never }] });
const denied = (pattern: string, url: string) => mcpPolicyBlock(http(url), readMcpPolicy(managed({ deniedMcpServers: [{ serverUrl: pattern }] }), {}), {});
const allowed = (pattern: string, url: string) => mcpPolicyBlock(http(url), readMcpPolicy(managed({ allowedMcpServers: [{ serverUrl: pattern }] }), {}), {});

// Each URL below connects to evil.example (new URL(url).hostname), whatever its text looks like.
const toEvil = [
  "https://user@evil.example/mcp",
  "https://allowed.example@evil.example/mcp",
  "https://allowed.example:pw@evil.example/mcp",
  "https://evil.example\\.allowed.example/mcp",
  "https://evil.example\\@allowed.example/mcp",
  "https://ev\til.example/mcp",
  "https://evil.ex\nample/mcp",
  " https://evil.example/mcp",
  "https://evil.example:443/mcp",
  "https://%65vil.example/mcp",
  "https://EVIL.example./mcp",
  "HTTPS://evil.example/mcp",
];

describe("deniedMcpServers serverUrl: a URL that connects to the denied host is denied however it is written", () => {
  for (const url of toEvil) {
    test(JSON.stringify(url), () => {
      expect(new URL(url).hostname.replace(/\.$/, "")).toBe("evil.example");
      expect(denied("https://evil.example/*", url)).toContain("deniedMcpServers");
      expect(denied("https://evil.example", url)).toContain("deniedMcpServers");
    });
  }
});

describe("allowedMcpServers serverUrl: a URL that connects elsewhere is not admitted by the allowed host's pattern", () => {
  for (const url of ["https://evil.example\\.allowed.example/mcp", "https://evil.example\\@allowed.example/mcp", "https://evil.example\\allowed.example/mcp"])
    test(JSON.stringify(url), () => {
      expect(new URL(url).hostname).toBe("evil.example");
      expect(allowed("https://*.allowed.example/*", url)).toContain("allowedMcpServers");
      expect(allowed("https://*allowed.example", url)).toContain("allowedMcpServers");
    });
  test("userinfo does not change which host is allowed", () => {
    expect(allowed("https://allowed.example/*", "https://me@allowed.example/mcp")).toBeNull();
    expect(allowed("https://allowed.example*", "https://allowed.example@evil.example/mcp")).toContain("allowedMcpServers");
  });
});

describe("what the parser normalizes still matches (no false refusals)", () => {
  const cases: Array<[string, string, boolean]> = [
    ["https://allowed.example/*", "https://allowed.example:443/mcp", true],
    ["https://allowed.example:443/*", "https://allowed.example/mcp", true],
    ["http://localhost:*/*", "http://localhost:8080/mcp", true],
    ["https://xn--bcher-kva.example/*", "https://bücher.example/mcp", true],
    ["https://bücher.example/*", "https://xn--bcher-kva.example/mcp", true],
    ["https://allowed.example/api/*", "https://allowed.example/api/x", true],
    ["https://allowed.example/api/*", "https://allowed.example/API/x", false],
  ];
  for (const [pattern, url, match] of cases)
    test(`${pattern} ${match ? "matches" : "does not match"} ${url}`, () => expect(urlMatches(pattern, url)).toBe(match));
});
