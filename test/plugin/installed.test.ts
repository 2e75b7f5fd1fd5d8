// Issue 14 point 3: enabledPlugins entries resolve as Claude Code resolves them.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { findInstalledPlugin, newestFirst } from "../../src/plugin/installed.ts";
import { tempDir, writeTree } from "../helpers/tmp.ts";

const plugin = (name: string, version: string) => ({ [`.claude-plugin/plugin.json`]: JSON.stringify({ name, version }) });
const at = (prefix: string, tree: Record<string, string>) => Object.fromEntries(Object.entries(tree).map(([k, v]) => [`${prefix}/${k}`, v]));

describe("semver order, not a string sort", () => {
  test("0.10.0 is newer than 0.9.0; prereleases below their release; hashes after versions", () => {
    expect(newestFirst(["0.9.0", "0.10.0", "1.0.0-beta.1", "1.0.0", "abc123def456", "0.9.1"], (x) => x)).toEqual(["1.0.0", "1.0.0-beta.1", "0.10.0", "0.9.1", "0.9.0", "abc123def456"]);
  });
});

describe("findInstalledPlugin", () => {
  test("installed_plugins.json: the newest recorded version whose folder exists", () => {
    const claude = tempDir("yoke-claude-");
    const cache = join(claude, "plugins", "cache", "mk", "p");
    writeTree(claude, { ...at("plugins/cache/mk/p/0.9.0", plugin("p", "0.9.0")), ...at("plugins/cache/mk/p/0.10.0", plugin("p", "0.10.0")) });
    writeTree(claude, {
      "plugins/installed_plugins.json": JSON.stringify({
        version: 2,
        plugins: {
          "p@mk": [
            { scope: "user", installPath: join(cache, "0.9.0"), version: "0.9.0" },
            { scope: "user", installPath: join(cache, "0.10.0"), version: "0.10.0" },
            { scope: "user", installPath: join(cache, "0.11.0"), version: "0.11.0" },
          ],
        },
      }),
    });
    const r = findInstalledPlugin("p@mk", claude);
    expect(r.root).toBe(join(cache, "0.10.0"));
    expect(r.via).toBe("installed_plugins.json");
    expect(r.notes.join("\n")).toContain("0.11.0");
  });

  test("a project-scoped install counts only in its project", () => {
    const claude = tempDir("yoke-claude-");
    const dir = join(claude, "plugins", "cache", "mk", "p", "1.0.0");
    writeTree(claude, at("plugins/cache/mk/p/1.0.0", plugin("p", "1.0.0")));
    writeTree(claude, { "plugins/installed_plugins.json": JSON.stringify({ plugins: { "p@mk": [{ scope: "project", projectPath: "/elsewhere", installPath: dir, version: "1.0.0" }] } }) });
    // Not recorded for this project: the cache folder is still found, as the last resort.
    expect(findInstalledPlugin("p@mk", claude, "/here").via).toBe("plugin cache");
    expect(findInstalledPlugin("p@mk", claude, "/elsewhere").via).toBe("installed_plugins.json");
  });

  test("no registry: the newest version folder of the cache by semver", () => {
    const claude = tempDir("yoke-claude-");
    writeTree(claude, { ...at("plugins/cache/mk/p/0.9.0", plugin("p", "0.9.0")), ...at("plugins/cache/mk/p/0.10.0", plugin("p", "0.10.0")) });
    expect(findInstalledPlugin("p@mk", claude).root).toBe(join(claude, "plugins", "cache", "mk", "p", "0.10.0"));
  });

  test("a local-directory marketplace: the plugin loads from its source folder, not the cached copy", () => {
    const claude = tempDir("yoke-claude-");
    const market = tempDir("yoke-market-");
    writeTree(market, {
      ".claude-plugin/marketplace.json": JSON.stringify({ name: "local", owner: { name: "me" }, plugins: [{ name: "p", source: "./plugins/p" }] }),
      ...at("plugins/p", plugin("p", "2.0.0")),
    });
    writeTree(claude, {
      "plugins/known_marketplaces.json": JSON.stringify({ local: { source: { source: "directory", path: market }, installLocation: market } }),
      ...at("plugins/cache/local/p/1.0.0", plugin("p", "1.0.0")),
      "plugins/installed_plugins.json": JSON.stringify({ plugins: { "p@local": [{ scope: "user", installPath: join(claude, "plugins/cache/local/p/1.0.0"), version: "1.0.0" }] } }),
    });
    expect(findInstalledPlugin("p@local", claude)).toMatchObject({ root: join(market, "plugins", "p"), via: "local-directory marketplace" });
  });

  test("a broken registry is named and skipped; an unknown plugin is not found", () => {
    const claude = tempDir("yoke-claude-");
    writeTree(claude, { "plugins/installed_plugins.json": "{ nope" });
    const r = findInstalledPlugin("q@mk", claude);
    expect(r.root).toBeNull();
    expect(r.notes[0]).toContain(join(claude, "plugins", "installed_plugins.json"));
  });
});
