// discoverPlugins (issue 4 items 4–6): where plugins come from, what is skipped and why, and load errors as data.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { disabledReason, discoverPlugins, type DiscoverOptions } from "../../src/plugin/loader.ts";
import type { Plugin } from "../../src/plugin/types.ts";
import { tempDir, writeTree } from "../helpers/tmp.ts";

const bundled: Plugin = { name: "attribution", version: "1.0.0", setup() {} };

function opts(over: Partial<DiscoverOptions> = {}): DiscoverOptions {
  const home = tempDir("yoke-loader-");
  return { cwd: tempDir("yoke-proj-"), yokeDir: join(home, ".yoke"), claudeDir: join(home, ".claude"), pluginDirs: [], settings: {}, env: {}, bundled: [bundled], bare: false, ...over };
}
const names = (r: Awaited<ReturnType<typeof discoverPlugins>>) => r.plugins.map((p) => (p.kind === "yoke" ? p.plugin.name : p.info.name));

describe("discoverPlugins", () => {
  test("bundled + user + project TypeScript plugins; a broken file is an error naming it, the rest load", async () => {
    const o = opts();
    writeTree(o.yokeDir, { "plugins/u.ts": `export default { name: "u", setup() {} };\n` });
    writeTree(o.cwd, {
      ".yoke/plugins/p/index.ts": `import type { X } from "nowhere"; const v: number = 1; export default { name: "p", version: "2.0.0", setup() {} };\n`,
      ".yoke/plugins/bad.ts": "export default {{{\n",
      ".yoke/plugins/noexport.ts": "export const x = 1;\n",
    });
    const r = await discoverPlugins(o);
    expect(names(r)).toEqual(["attribution", "u", "p"]);
    expect(r.plugins.find((p) => p.kind === "yoke" && p.plugin.name === "u")).toMatchObject({ origin: "user", plugin: { version: "0.0.0" } });
    expect(r.errors.map((e) => e.path).sort()).toEqual([join(o.cwd, ".yoke/plugins/bad.ts"), join(o.cwd, ".yoke/plugins/noexport.ts")]);
    expect(r.errors.find((e) => e.path.endsWith("noexport.ts"))!.message).toContain("default export must be { name, version, setup(host) }");
    expect(r.errors.find((e) => e.path.endsWith("bad.ts"))!.message).toMatch(/^syntax error: line 1:\d+: /);
  });

  test("disabled by settings or YOKE_DISABLE_PLUGINS, with the reason; a same-named user plugin replaces the bundled one", async () => {
    let o = opts({ settings: { plugins: { attribution: false } } as never });
    let r = await discoverPlugins(o);
    expect(names(r)).toEqual([]);
    expect(r.skipped).toEqual([{ name: "attribution", version: "1.0.0", kind: "yoke", origin: "bundled", path: "(built in) plugins/attribution", reason: "disabled: settings: plugins.attribution is false" }]);
    o = opts({ env: { YOKE_DISABLE_PLUGINS: "x, attribution" } });
    r = await discoverPlugins(o);
    expect(r.skipped.map((x) => x.name)).toEqual(["attribution"]);
    o = opts();
    writeTree(o.cwd, { ".yoke/plugins/attribution.ts": `export default { name: "attribution", version: "9.0.0", setup() {} };\n` });
    r = await discoverPlugins(o);
    expect(r.plugins).toHaveLength(1);
    expect(r.plugins[0]).toMatchObject({ origin: "project", plugin: { version: "9.0.0" } });
    expect(r.skipped[0]!.reason).toBe(`replaced by ${join(o.cwd, ".yoke/plugins/attribution.ts")}`);
    expect(disabledReason("a", {}, { YOKE_DISABLE_PLUGINS: "all" })).toBe("YOKE_DISABLE_PLUGINS=all");
    expect(disabledReason("a", {}, {})).toBeUndefined();
  });

  test("Claude Code plugin folders via --plugin-dir and enabledPlugins; commands, agents, skills are read; a missing install is an error", async () => {
    const o = opts({ settings: { enabledPlugins: { "cc@market": true, "gone@market": true, "off@market": false } } as never });
    const tree = {
      ".claude-plugin/plugin.json": JSON.stringify({ name: "cc", version: "1.2.3" }),
      "hooks/hooks.json": JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: "command", command: "true" }] }] } }),
      "commands/a.md": "a",
      "agents/b.md": "b",
      "skills/c/SKILL.md": "c",
      "skills/not-a-skill/readme.txt": "x",
    };
    writeTree(join(o.claudeDir, "plugins/cache/market/cc/1.2.3"), tree);
    const flagDir = tempDir("yoke-flag-");
    writeTree(flagDir, { ...tree, ".claude-plugin/plugin.json": JSON.stringify({ name: "cc-flag" }) });
    o.pluginDirs = [flagDir, join(flagDir, "missing")];
    const r = await discoverPlugins(o);
    const cc = r.plugins.filter((p) => p.kind === "claude");
    expect(cc.map((p) => [p.kind === "claude" && p.info.name, p.origin])).toEqual([
      ["cc-flag", "flag"],
      ["cc", "enabledPlugins"],
    ]);
    const info = cc[1]!.kind === "claude" ? cc[1]!.info : null;
    expect(info).toMatchObject({ version: "1.2.3", commands: ["a"], agents: ["b"], skills: ["c"] });
    expect(Object.keys(info!.hooks!)).toEqual(["Stop"]);
    expect(r.errors).toEqual([
      { path: join(flagDir, "missing"), message: "--plugin-dir: no such folder" },
      { path: "gone@market", message: `enabledPlugins: gone@market is not installed under ${join(o.claudeDir, "plugins")}` },
    ]);
  });

  test("a Claude Code plugin folder in .yoke/plugins keeps its origin; disabled, it is listed as a Claude Code plugin", async () => {
    const o = opts({ env: { YOKE_DISABLE_PLUGINS: "cc-off" } });
    writeTree(join(o.cwd, ".yoke/plugins/cc-on"), { ".claude-plugin/plugin.json": JSON.stringify({ name: "cc-on" }) });
    writeTree(join(o.cwd, ".yoke/plugins/cc-off"), { ".claude-plugin/plugin.json": JSON.stringify({ name: "cc-off", version: "2.0.0" }) });
    const r = await discoverPlugins(o);
    expect(r.plugins.filter((p) => p.kind === "claude").map((p) => [p.kind === "claude" && p.info.name, p.origin])).toEqual([["cc-on", "project"]]);
    expect(r.skipped.find((s) => s.name === "cc-off")).toMatchObject({ kind: "claude", origin: "project", version: "2.0.0" });
  });

  test("--bare loads nothing", async () => {
    const r = await discoverPlugins(opts({ bare: true }));
    expect(r).toEqual({ plugins: [], errors: [], skipped: [] });
  });
});
