// Issue 21: settings files and MCP server entries are read without zod when they are plainly right (util/json-check.ts
// over the JSON Schemas zod makes of our schemas), so the MCP servers can be spawned before zod loads. The check may
// only ever say what zod would: for every value it is sure of, zod accepts it and gives the same value, key order
// included (the settings merge compares hook groups by their JSON text). Values it is not sure of go to zod.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { generateCheckSchemas, serverSchemasFile, settingsSchemaFile } from "../../src/config/gen-check-schemas.ts";
import { parseSettingsText, SettingsError } from "../../src/config/load.ts";
import { settingsSchema } from "../../src/config/schema.ts";
import { parseServerConfig, serverSchemas } from "../../src/mcp/config.ts";
import { checkJson, type JsonSchemaNode, NOT_SURE } from "../../src/util/json-check.ts";

const SETTINGS = JSON.parse(readFileSync(settingsSchemaFile, "utf8")) as JsonSchemaNode;
const SERVERS = JSON.parse(readFileSync(serverSchemasFile, "utf8")) as Record<string, JsonSchemaNode>;

// Values of every JSON kind, and the edges of the schemas' bounds.
const ODD: unknown[] = [null, true, false, 0, -1, 1, 1.5, 65535, 65536, 2 ** 53, "", "x", "default", "disable", "command", [], ["a"], [1], ["a", null], {}, { a: 1 }, { a: "b" }, { type: "command" }];

/** Every value the check is sure of, zod gives the same (by JSON text, so key order counts); zod accepts nothing it refuses. */
function agrees(schema: JsonSchemaNode, zod: { safeParse(v: unknown): { success: boolean; data?: unknown } }, v: unknown): void {
  const sure = checkJson(schema, v);
  if (sure === NOT_SURE) return;
  const z = zod.safeParse(v);
  expect({ v, zodAccepts: z.success }).toEqual({ v, zodAccepts: true });
  expect(JSON.stringify(sure)).toBe(JSON.stringify(z.data));
}

/** A seeded generator, so a failure names a value that comes back. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0) / 2 ** 32);
}

const BASE = {
  $schema: "https://json.schemastore.org/claude-code-settings.json",
  zzUnknown: { kept: [1, 2] },
  model: "opus",
  fallbackModel: ["sonnet", "haiku"],
  env: { B: "2", A: "1" },
  permissions: { extra: true, deny: ["Read(.env)"], allow: ["Bash(ls:*)"], defaultMode: "acceptEdits", disableBypassPermissionsMode: "disable" },
  hooks: { SessionStart: [{ hooks: [{ command: "exit 0", type: "command", timeout: 5 }] }], PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "x", async: true, onFailure: "block" }] }] },
  sandbox: { enabled: true, network: { httpProxyPort: 8080, allowedDomains: ["a.example"] }, filesystem: { allowWrite: ["/tmp"] } },
  attribution: { commit: "c", sessionUrl: false },
  autoMode: { instructions: ["be careful"], classifierModel: "haiku" },
  enableAllProjectMcpServers: true,
  enabledMcpjsonServers: ["tiny"],
  allowedMcpServers: [{ serverName: "tiny" }],
  cleanupPeriodDays: 30,
  autoCompactWindow: 100000,
  instructionLoader: "claw-code",
};

/** Paths into BASE (and a few it lacks) whose value the variants replace. */
const PATHS = [
  ["model"], ["fallbackModel"], ["env"], ["env", "A"], ["permissions"], ["permissions", "allow"], ["permissions", "defaultMode"], ["permissions", "disableBypassPermissionsMode"],
  ["hooks"], ["hooks", "SessionStart"], ["hooks", "SessionStart", "0"], ["hooks", "SessionStart", "0", "hooks", "0", "type"], ["hooks", "SessionStart", "0", "hooks", "0", "timeout"],
  ["hooks", "PreToolUse", "0", "matcher"], ["sandbox", "network", "httpProxyPort"], ["sandbox", "enabled"], ["attribution"], ["autoMode", "instructions"], ["cleanupPeriodDays"],
  ["autoCompactWindow"], ["instructionLoader"], ["enableAllProjectMcpServers"], ["zzUnknown"], ["verbose"], ["plugins"], ["enabledPlugins"], ["claudeMdExcludes"],
];

const withValue = (base: unknown, path: string[], v: unknown): unknown => {
  const copy = structuredClone(base) as Record<string, unknown>;
  let at: Record<string, unknown> = copy;
  for (const k of path.slice(0, -1)) {
    if (at[k] === null || typeof at[k] !== "object") at[k] = {};
    at = at[k] as Record<string, unknown>;
  }
  at[path.at(-1)!] = v;
  return copy;
};

describe("the committed JSON Schemas", () => {
  test("are zod's own of the settings schema and the MCP server schemas (run `bun run schemas` after changing one)", () => {
    const g = generateCheckSchemas();
    expect(readFileSync(settingsSchemaFile, "utf8")).toBe(`${JSON.stringify(g.settings, null, 2)}\n`);
    expect(readFileSync(serverSchemasFile, "utf8")).toBe(`${JSON.stringify(g.servers, null, 2)}\n`);
  });
});

describe("settings: the check says what zod says, or nothing", () => {
  test("a realistic file with unknown keys is taken without zod, as zod gives it", () => {
    expect(checkJson(SETTINGS, BASE)).not.toBe(NOT_SURE);
    agrees(SETTINGS, settingsSchema, BASE);
  });

  test("every field set to every kind of value", () => {
    let sure = 0;
    for (const p of PATHS)
      for (const v of ODD) {
        const x = withValue(BASE, p, v);
        agrees(SETTINGS, settingsSchema, x);
        if (checkJson(SETTINGS, x) !== NOT_SURE) sure++;
      }
    // It is sure of a good share (else the fast path would be dead), and never of all (the variants hold wrong ones).
    expect(sure).toBeGreaterThan(50);
    expect(sure).toBeLessThan(PATHS.length * ODD.length);
  });

  test("2,000 random settings built from the schema's fields and odd values", () => {
    const r = rng(21);
    const pick = <T,>(xs: T[]) => xs[Math.floor(r() * xs.length)]!;
    for (let i = 0; i < 2000; i++) {
      let x: unknown = r() < 0.5 ? {} : BASE;
      const n = 1 + Math.floor(r() * 4);
      for (let j = 0; j < n; j++) x = withValue(x, pick(PATHS), r() < 0.5 ? pick(ODD) : structuredClone(pick([BASE.hooks, BASE.permissions, BASE.env, BASE.sandbox, ["a", "b"], "opus", 7])));
      agrees(SETTINGS, settingsSchema, x);
    }
  });

  test("parseSettingsText: a wrong field still fails naming the file and field (zod's message)", () => {
    expect(() => parseSettingsText(JSON.stringify({ permissions: { allow: "Bash" } }), "/p/settings.json")).toThrow(SettingsError);
    expect(() => parseSettingsText(JSON.stringify({ permissions: { allow: "Bash" } }), "/p/settings.json")).toThrow(/\/p\/settings\.json: invalid settings\n {2}field "permissions\.allow"/);
    // A value zod coerces (env numbers) is not one the check is sure of: zod gives the string.
    expect(parseSettingsText(JSON.stringify({ env: { A: 1 } }), "s.json").env).toEqual({ A: "1" });
  });
});

describe("MCP server entries: the check says what zod says, or nothing", () => {
  const BASES: Record<string, Record<string, unknown>> = {
    stdio: { command: "node", args: ["s.js", "--x"], env: { B: "1", A: "2" }, cwd: "sub", extra: { k: 1 } },
    remote: { type: "http", url: "http://127.0.0.1:1/mcp", headers: { A: "b" }, headersHelper: "echo {}" },
    sdk: { type: "sdk", name: "n" },
  };
  const KEYS = ["type", "command", "args", "env", "cwd", "url", "headers", "headersHelper", "name", "extra"];

  test("every field of each kind set to every kind of value; parseServerConfig gives zod's value", () => {
    let sure = 0;
    for (const [kind, base] of Object.entries(BASES)) {
      agrees(SERVERS[kind]!, serverSchemas()[kind as "stdio"], base);
      for (const k of KEYS)
        for (const v of [...ODD, "stdio", "sse", "streamable-http"]) {
          const x = { ...base, [k]: v };
          agrees(SERVERS[kind]!, serverSchemas()[kind as "stdio"], x);
          if (checkJson(SERVERS[kind]!, x) !== NOT_SURE) sure++;
        }
    }
    expect(sure).toBeGreaterThan(30);
  });

  test("parseServerConfig: the plain stdio entry (no type) is zod's value, type key first; a wrong one names the field", () => {
    const raw = { command: "node", args: ["s.js"], env: { A: "1" } };
    const viaZod = serverSchemas().stdio.parse({ ...raw, type: undefined });
    expect(JSON.stringify(Object.keys(parseServerConfig(raw) as object))).toBe(JSON.stringify(Object.keys(viaZod)));
    expect(parseServerConfig(raw)).toEqual(viaZod);
    expect(parseServerConfig({ command: "" })).toMatch(/^field "command": /);
    expect(parseServerConfig({ command: "node", args: "s.js" })).toMatch(/^field "args": /);
    expect(parseServerConfig({ type: "streamable-http", url: "http://127.0.0.1:1/" })).toMatchObject({ type: "http" });
  });
});
