// Issue 21 point 3: in the binary the MCP SDK's types.js makes each protocol schema on its first use
// (build-mcp-schemas.ts). The stand-ins must parse exactly as the SDK's own schemas do, and importing makes none.
// The e2e MCP tests run the compiled binary, which carries the transformed module.
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { lazySchemas, mcpLazySchemas } from "../../build-mcp-schemas.ts";
import { repoRoot } from "../helpers/binary.ts";
import { tempDir } from "../helpers/tmp.ts";

const root = repoRoot();
const typesJs = join(root, "node_modules/@modelcontextprotocol/sdk/dist/esm/types.js");
const zodV4 = join(root, "node_modules/zod/v4/index.js");

/** The transformed types.js written where it can be imported, with the same zod the SDK's own uses. */
function lazyTypesFile(): string {
  const file = join(tempDir("yoke-mcp-lazy-"), "types.mjs");
  writeFileSync(file, lazySchemas(readFileSync(typesJs, "utf8")).replace("from 'zod/v4'", `from ${JSON.stringify(zodV4)}`));
  return file;
}

// Messages a client meets: valid ones, and ones each schema refuses (issues compared path and message).
const SAMPLES: Array<[string, unknown]> = [
  ["InitializeResultSchema", { protocolVersion: "2025-06-18", capabilities: { tools: { listChanged: true }, prompts: {} }, serverInfo: { name: "s", version: "1", icons: [{ src: "https://x/i.png" }] } }],
  ["InitializeResultSchema", { protocolVersion: 3, capabilities: [], serverInfo: {} }],
  ["ListToolsResultSchema", { tools: [{ name: "add", inputSchema: { type: "object", properties: { a: { type: "number" } } }, annotations: { readOnlyHint: true }, outputSchema: { type: "object" } }], nextCursor: "c" }],
  ["ListToolsResultSchema", { tools: [{ name: 5, inputSchema: { type: "string" } }] }],
  ["CallToolResultSchema", { content: [{ type: "text", text: "hi" }, { type: "image", data: "aGk=", mimeType: "image/png" }, { type: "resource", resource: { uri: "file:///a", text: "t" } }], structuredContent: { n: 1 }, isError: false }],
  ["CallToolResultSchema", { content: [{ type: "audio" }] }],
  ["CallToolResultSchema", {}],
  ["ListPromptsResultSchema", { prompts: [{ name: "p", arguments: [{ name: "a", required: true }] }] }],
  ["ReadResourceResultSchema", { contents: [{ uri: "u", blob: "!!" }] }],
  ["JSONRPCMessageSchema", { jsonrpc: "2.0", id: 1, method: "tools/list" }],
  ["JSONRPCMessageSchema", { jsonrpc: "1.0", id: {}, result: 1 }],
  ["ToolListChangedNotificationSchema", { method: "notifications/tools/list_changed" }],
  ["ServerNotificationSchema", { method: "notifications/message", params: { level: "info", data: "x" } }],
  ["ServerRequestSchema", { method: "elicitation/create", params: { message: "m", requestedSchema: { type: "object", properties: {} } } }],
  ["CreateMessageRequestSchema", { method: "sampling/createMessage", params: { messages: [], maxTokens: "many" } }],
];

describe("the MCP SDK's schemas made on first use (build-mcp-schemas.ts)", () => {
  test("each sample parses exactly as with the SDK's own types.js: success, data, issues", async () => {
    const own = (await import(typesJs)) as Record<string, { safeParse(v: unknown): { success: boolean; data?: unknown; error?: { issues: unknown[] } } }>;
    const lazy = (await import(lazyTypesFile())) as typeof own;
    for (const [name, value] of SAMPLES) {
      const a = own[name]!.safeParse(value);
      const b = lazy[name]!.safeParse(value);
      expect({ name, success: b.success, data: b.data, issues: b.error?.issues }).toEqual({ name, success: a.success, data: a.data, issues: a.error?.issues });
    }
    // Constants and helpers are left as they are; the stand-ins answer instanceof, `in` and property reads.
    expect(lazy.LATEST_PROTOCOL_VERSION).toBe(own.LATEST_PROTOCOL_VERSION as never);
    const { ZodType } = await import(zodV4);
    expect(lazy.CallToolResultSchema instanceof ZodType).toBe(true);
    expect("shape" in (lazy.ToolListChangedNotificationSchema as object)).toBe(true);
    expect((lazy.ToolListChangedNotificationSchema as unknown as { shape: { method: { value: string } } }).shape.method.value).toBe("notifications/tools/list_changed");
  });

  test("importing makes no schema; parsing one result makes only what it needs", async () => {
    const script = `
      const { config } = await import(${JSON.stringify(zodV4)});
      let made = 0;
      config({ postProcessor: () => void made++ });
      const t = await import(${JSON.stringify(lazyTypesFile())});
      const atImport = made;
      t.ListToolsResultSchema.safeParse({ tools: [] });
      const one = made;
      for (const [k, v] of Object.entries(t)) if (k.endsWith("Schema")) v.safeParse?.({});
      console.log(JSON.stringify({ atImport, one, all: made }));`;
    const p = Bun.spawn([process.execPath, "-e", script], { cwd: root, stdout: "pipe", stderr: "pipe" });
    const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text()]);
    expect({ code: await p.exited, err }).toEqual({ code: 0, err: "" });
    const r = JSON.parse(out) as { atImport: number; one: number; all: number };
    expect(r.atImport).toBe(0);
    expect(r.one).toBeGreaterThan(0);
    expect(r.all).toBeGreaterThan(3 * r.one);
  });

  test("the plugin applies to the SDK's types.js in a bundle", async () => {
    const entry = join(tempDir("yoke-mcp-lazy-entry-"), "entry.ts");
    writeFileSync(entry, `import { CallToolResultSchema } from ${JSON.stringify(typesJs)};\nconsole.log(CallToolResultSchema.safeParse({ content: [] }).success);\n`);
    const r = await Bun.build({ entrypoints: [entry], target: "bun", plugins: [mcpLazySchemas()] });
    expect(r.success).toBe(true);
    const text = await r.outputs[0]!.text();
    expect(text).toContain("__yokeLazySchema");
    const out = join(tempDir("yoke-mcp-lazy-out-"), "out.js");
    writeFileSync(out, text);
    const run = Bun.spawnSync([process.execPath, out], { cwd: root });
    expect(run.stdout.toString().trim()).toBe("true");
  });
});
