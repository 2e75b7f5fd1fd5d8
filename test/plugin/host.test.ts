// PluginHost pieces without the runtime: JSON-Schema tools (host.tools.define) and hook registration naming.
import { createDiagnostics } from "../../src/util/diagnostics.ts";
import { describe, expect, test } from "bun:test";
import { createBackgroundTasks, createPluginHost, setupPlugin, type HostDeps } from "../../src/plugin/host.ts";
import { jsonTool } from "../../src/tool/json-tool.ts";
import type { Plugin, PluginHost } from "../../src/plugin/types.ts";
import { createFileState } from "../../src/tool/file-state.ts";
import type { Tool, ToolContext } from "../../src/tool/types.ts";
import { tempDir } from "../helpers/tmp.ts";

const ctx = (): ToolContext => {
  const cwd = tempDir();
  return {
    cwd,
    projectDir: cwd,
    workingDirectories: [cwd],
    sessionId: "s",
    signal: new AbortController().signal,
    env: {},
    fileState: createFileState(),
    session: { cwd, todos: [], envFiles: [] },
    toolUseId: "toolu_1",
  };
};

const schema = { type: "object", properties: { name: { type: "string" }, n: { type: "integer" } }, required: ["name"] };

describe("jsonTool (PluginHost.tools.define)", () => {
  test("validates against the JSON Schema, sends the schema as written, runs execute", async () => {
    const t = jsonTool({ name: "Greet", description: "hi", inputSchema: schema, readOnly: true, execute: (i) => `Hello, ${i.name}` });
    expect(t.jsonSchema).toBe(schema);
    expect(t.readOnly).toBe(true);
    expect(await t.run({ name: "Ada" }, ctx())).toMatchObject({ content: "Hello, Ada" });
    const bad = await t.run({ n: "x" }, ctx());
    expect(bad.isError).toBe(true);
    expect(String(bad.content)).toContain("Greet was called with invalid input");
    expect(t.parse({ name: 1 }).ok).toBe(false);
  });

  test("a throw in execute is an is_error result; a ToolResult passes through; an unreadable schema throws naming the tool", async () => {
    const boom = jsonTool({ name: "Boom", description: "x", inputSchema: schema, execute: () => { throw new Error("kaput"); } });
    const r = await boom.run({ name: "a" }, ctx());
    expect(r.isError).toBe(true);
    expect(String(r.content)).toContain("kaput");
    const full = jsonTool({ name: "Full", description: "x", inputSchema: schema, execute: () => ({ content: "c", details: { d: 1 } }) });
    expect(await full.run({ name: "a" }, ctx())).toMatchObject({ content: "c", details: { d: 1 } });
    expect(() => jsonTool({ name: "Weird", description: "x", inputSchema: { type: "no-such-type" }, execute: () => "" })).toThrow(/tool Weird: inputSchema/);
  });
});

test("host registers hooks under the plain plugin name and tools through define", () => {
  const hooks: Array<{ event: string; source: string }> = [];
  const tools: Tool[] = [];
  const deps = {
    registerHook: (event: string, _h: unknown, o: { source: string }) => {
      hooks.push({ event, source: o.source });
      return () => {};
    },
    registerTool: (t: Tool) => void tools.push(t),
    sections: [],
    yokeDir: tempDir(),
    background: createBackgroundTasks(() => {}),
    summaryProviders: [],
    log: createDiagnostics(),
  } as unknown as HostDeps;
  const host = createPluginHost("guard", deps);
  host.hooks.on("PreToolUse", () => {});
  host.tools.define({ name: "T", description: "t", inputSchema: schema, execute: () => "ok" });
  expect(hooks).toEqual([{ event: "PreToolUse", source: "guard" }]);
  expect(tools.map((t) => t.name)).toEqual(["T"]);
});

describe("setupPlugin: registrations stand only when setup succeeds", () => {
  const depsWith = () => {
    const live: string[] = [];
    const tools: Tool[] = [];
    const deps = {
      registerHook: (event: string) => {
        live.push(event);
        return () => live.splice(live.indexOf(event), 1);
      },
      registerTool: (t: Tool) => void tools.push(t),
      sections: [{ plugin: "earlier", name: "s", text: "kept" }],
      yokeDir: tempDir(),
      background: createBackgroundTasks(() => {}),
      summaryProviders: [],
      log: createDiagnostics(),
    } as unknown as HostDeps;
    return { deps, live, tools };
  };

  test("a setup that throws after registering leaves nothing behind (a half-set-up guard must not block every tool)", async () => {
    const { deps, live, tools } = depsWith();
    const bad: Plugin = {
      name: "half",
      version: "1",
      async setup(host) {
        host.hooks.on("PreToolUse", () => ({ decision: "block", reason: "not ready" }));
        host.tools.define({ name: "T", description: "t", inputSchema: schema, execute: () => "ok" });
        host.systemPrompt.addSection("s", "half-section");
        host.compaction.provideSummary(async () => null);
        throw new Error("config missing");
      },
    };
    await expect(setupPlugin(bad, deps)).rejects.toThrow("config missing");
    expect(live).toEqual([]);
    expect(tools).toEqual([]);
    expect(deps.sections.map((s) => s.text)).toEqual(["kept"]);
    expect(deps.summaryProviders).toEqual([]);
  });

  test("a setup that succeeds keeps its hooks, tools and sections; later registrations go straight through", async () => {
    const { deps, live, tools } = depsWith();
    let later: PluginHost | undefined;
    await setupPlugin({ name: "ok", version: "1", setup(host) { later = host; host.hooks.on("Stop", () => {}); host.tools.define({ name: "T", description: "t", inputSchema: schema, execute: () => "ok" }); host.systemPrompt.addSection("s", "x"); } }, deps);
    expect(live).toEqual(["Stop"]);
    expect(tools.map((t) => t.name)).toEqual(["T"]);
    later!.tools.define({ name: "U", description: "u", inputSchema: schema, execute: () => "ok" });
    expect(tools.map((t) => t.name)).toEqual(["T", "U"]);
    expect(deps.sections).toHaveLength(2);
  });
});
