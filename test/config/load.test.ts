import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { loadSettings, mergeSettings, SettingsError } from "../../src/config/load.ts";
import { locateJsonError } from "../../src/util/json-error.ts";
import { tempDir, writeTree } from "../helpers/tmp.ts";

const envFor = (home: string, managed: string) => ({ HOME: home, CLAUDE_CONFIG_DIR: join(home, ".claude"), YOKE_MANAGED_DIR: managed });

describe("settings (contracts §2.1)", () => {
  test("precedence user < project < local < flag < managed; arrays concatenate without duplicates; env merges", () => {
    const home = tempDir();
    const cwd = tempDir();
    const managed = tempDir();
    writeTree(home, { ".claude/settings.json": JSON.stringify({ model: "user", env: { A: "1", B: "u" }, permissions: { allow: ["Read"] } }) });
    writeTree(cwd, {
      ".claude/settings.json": JSON.stringify({ model: "project", permissions: { allow: ["Read", "Bash(ls)"] }, custom: 5 }),
      ".claude/settings.local.json": JSON.stringify({ model: "local", env: { B: "l" } }),
    });
    writeTree(managed, { "managed-settings.json": JSON.stringify({ permissions: { deny: ["WebFetch"] } }), "managed-settings.d/10-x.json": JSON.stringify({ env: { C: "m" } }) });
    const s = loadSettings({ cwd, env: envFor(home, managed), flagSettings: '{"model":"flag"}' });
    expect(s.merged.model).toBe("flag");
    expect(s.merged.env).toEqual({ A: "1", B: "l", C: "m" });
    expect(s.merged.permissions?.allow).toEqual(["Read", "Bash(ls)"]);
    expect(s.merged.permissions?.deny).toEqual(["WebFetch"]);
    expect((s.merged as any).custom).toBe(5);
    expect(s.sources.map((x) => x.level)).toEqual(["user", "project", "local", "flag", "managed", "managed"]);
  });
  test("--setting-sources limits the files; flag settings from a file", () => {
    const home = tempDir();
    const cwd = tempDir();
    writeTree(cwd, { ".claude/settings.json": JSON.stringify({ model: "project" }), "extra.json": JSON.stringify({ model: "file" }) });
    const s = loadSettings({ cwd, env: envFor(home, tempDir()), settingSources: ["user"], flagSettings: "extra.json" });
    expect(s.merged.model).toBe("file");
    expect(s.sources.find((x) => x.level === "flag")!.ruleRoot).toBe(cwd);
  });
  test("bad JSON names file, line and column; a bad field names the field", () => {
    const cwd = tempDir();
    writeTree(cwd, { ".claude/settings.json": '{\n  "a": 1,\n  "b": tru\n}' });
    expect(() => loadSettings({ cwd, env: envFor(tempDir(), tempDir()) })).toThrow(/settings\.json:3:8: invalid JSON/);
    writeTree(cwd, { ".claude/settings.json": JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: "nope" }] }] } }) });
    try {
      loadSettings({ cwd, env: envFor(tempDir(), tempDir()) });
      throw new Error("should throw");
    } catch (e) {
      expect(e).toBeInstanceOf(SettingsError);
      expect((e as Error).message).toContain('field "hooks.Stop.0.hooks.0.type"');
    }
  });
  test("a UTF-8 byte-order mark at the start of a settings file is ignored", () => {
    const cwd = tempDir();
    writeTree(cwd, { ".claude/settings.json": `\uFEFF${JSON.stringify({ model: "bom" })}` });
    expect(loadSettings({ cwd, env: envFor(tempDir(), tempDir()) }).merged.model).toBe("bom");
  });
  test("json error locator", () => {
    expect(locateJsonError('{"a":1}')).toBeNull();
    expect(locateJsonError('{"a":1,}')).toMatchObject({ line: 1, column: 8 });
    expect(locateJsonError('[1,\n2\n')).toMatchObject({ line: 3, message: "expected ',' or ']'" });
  });
  test("merge: scalars replaced, nested merged", () => {
    expect(mergeSettings({ a: 1, o: { x: 1, y: 1 } }, { a: 2, o: { y: 2 } })).toEqual({ a: 2, o: { x: 1, y: 2 } });
  });
});
