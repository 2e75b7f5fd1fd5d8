import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sanitizePath } from "../../src/config/paths.ts";
import { loadMemoryIndex, memoryIndexFile, memoryPathProblem, resolveAutoMemory, truncateMemoryIndex } from "../../src/context/auto-memory.ts";
import { envFor, noSettings, settingsOf, tempRoot, writeTree } from "./helpers.ts";

describe("resolveAutoMemory: on/off (internals §2.1)", () => {
  test("default directory is <yokeDir>/projects/<sanitized git root>/memory/", () => {
    const R = tempRoot();
    writeTree(R, { "repo/.git/HEAD": "ref: refs/heads/main\n" });
    mkdirSync(join(R, "repo/sub"), { recursive: true });
    const r = resolveAutoMemory({ cwd: join(R, "repo/sub"), env: envFor(R), settings: noSettings() });
    expect(r).toEqual({ enabled: true, dir: `${join(R, "home/.yoke/projects", sanitizePath(join(R, "repo")), "memory")}/` });
  });

  test("without git the cwd is the project; a linked worktree shares its main repo's directory", () => {
    const R = tempRoot();
    mkdirSync(join(R, "plain"));
    expect(resolveAutoMemory({ cwd: join(R, "plain"), env: envFor(R), settings: noSettings() }).dir).toContain(sanitizePath(join(R, "plain")));
    writeTree(R, {
      "main/.git/worktrees/wt/commondir": "../..\n",
      "wt/.git": `gitdir: ${join(R, "main/.git/worktrees/wt")}\n`,
    });
    expect(resolveAutoMemory({ cwd: join(R, "wt"), env: envFor(R), settings: noSettings() }).dir).toContain(`${sanitizePath(join(R, "main"))}/memory/`);
  });

  test.each([
    [{ CLAUDE_CODE_DISABLE_AUTO_MEMORY: "1" }, {}, false, "CLAUDE_CODE_DISABLE_AUTO_MEMORY is set"],
    [{}, { bare: true }, false, "bare mode"],
    [{ CLAUDE_CODE_SIMPLE: "1" }, {}, false, "bare mode"],
    [{ CLAUDE_CODE_DISABLE_AUTO_MEMORY: "0" }, { bare: true }, true, undefined],
  ] as const)("env %j, opts %j → enabled %p", (env, extra, enabled, reason) => {
    const R = tempRoot();
    const r = resolveAutoMemory({ cwd: R, env: { ...envFor(R), ...env }, settings: noSettings(), ...extra });
    expect(r.enabled).toBe(enabled);
    expect(r.reason).toBe(reason);
    if (!enabled) expect(r.dir).toBeNull();
  });

  test("autoMemoryEnabled: false turns it off and names the settings file", () => {
    const R = tempRoot();
    const r = resolveAutoMemory({ cwd: R, env: envFor(R), settings: settingsOf({ level: "project", path: "/p/.claude/settings.json", settings: { autoMemoryEnabled: false } }) });
    expect(r).toEqual({ enabled: false, dir: null, reason: "autoMemoryEnabled is false in /p/.claude/settings.json" });
  });
});

describe("resolveAutoMemory: autoMemoryDirectory sources (internals §2.1)", () => {
  test("project settings are never honoured", () => {
    const R = tempRoot();
    const r = resolveAutoMemory({ cwd: R, env: envFor(R), settings: settingsOf({ level: "project", settings: { autoMemoryDirectory: "/tmp/evil" } }) });
    expect(r.dir).toContain("/home/.yoke/projects/");
  });

  test("precedence: managed, then flag, then local, then user; ~/ expands", () => {
    const R = tempRoot();
    const env = envFor(R);
    const all = [
      { level: "user" as const, settings: { autoMemoryDirectory: "~/mem-user" } },
      { level: "local" as const, settings: { autoMemoryDirectory: "/srv/mem-local" } },
      { level: "managed" as const, settings: { autoMemoryDirectory: "/srv/mem-managed" } },
    ];
    expect(resolveAutoMemory({ cwd: R, env, settings: settingsOf(...all) }).dir).toBe("/srv/mem-managed/");
    expect(resolveAutoMemory({ cwd: R, env, settings: settingsOf(all[0]!, all[1]!), flagDir: "/srv/flag" }).dir).toBe("/srv/flag/");
    expect(resolveAutoMemory({ cwd: R, env, settings: settingsOf(all[0]!, all[1]!) }).dir).toBe("/srv/mem-local/");
    expect(resolveAutoMemory({ cwd: R, env, settings: settingsOf(all[0]!) }).dir).toBe(`${join(R, "home/mem-user")}/`);
  });

  test("a refused path falls through to the next source and the reason explains why", () => {
    const R = tempRoot();
    const r = resolveAutoMemory({
      cwd: R,
      env: envFor(R),
      settings: settingsOf({ level: "user", path: "/u/settings.json", settings: { autoMemoryDirectory: "/srv/ok" } }, { level: "local", path: "/l/settings.local.json", settings: { autoMemoryDirectory: "relative/dir" } }),
    });
    expect(r.dir).toBe("/srv/ok/");
    expect(r.reason).toBe('autoMemoryDirectory in /l/settings.local.json ignored ("relative/dir"): it is relative; use an absolute path (or ~/… in settings)');
  });

  test.each([
    ["relative/x", "relative"],
    ["/", "filesystem root"],
    ["/a", "filesystem root"],
    ["C:\\", "drive root"],
    ["\\\\server\\share", "UNC"],
    ["//server/share", "UNC"],
    ["/tmp/a\0b", "NUL"],
    ["~", "bare ~"],
    ["~/", "home directory"],
    ["~/.", "home directory"],
    ["~/..", "home directory"],
    ["~/x/../..", "home directory"],
  ])("memoryPathProblem(%j) mentions %j", (p, word) => {
    expect(memoryPathProblem(p, true)).toContain(word);
  });
  test.each(["/srv/memory", "~/notes/memory", "/tmp/x/"])("memoryPathProblem(%j) is null", (p) => {
    expect(memoryPathProblem(p, true)).toBeNull();
  });
});

describe("MEMORY.md limits (internals §2.2, contracts §8)", () => {
  test("under the limits: loaded whole, no warning", () => {
    expect(truncateMemoryIndex("- [a](a.md) — x\n")).toEqual({ text: "- [a](a.md) — x" });
  });
  test("250 lines: first 200 kept, warning names the line limit", () => {
    const r = truncateMemoryIndex(Array.from({ length: 250 }, (_, i) => `- line ${i}`).join("\n"));
    expect(r.text.split("\n").slice(0, 200).at(-1)).toBe("- line 199");
    expect(r.text).not.toContain("- line 200");
    expect(r.warning).toContain("MEMORY.md is 250 lines (limit: 200)");
  });
  test("too long: cut at a line boundary before 25,000 characters, warning names the size limit", () => {
    const line = `- ${"y".repeat(998)}`;
    const r = truncateMemoryIndex(Array.from({ length: 30 }, () => line).join("\n"));
    const body = r.text.slice(0, r.text.indexOf("\n\n> WARNING"));
    expect(body.length).toBeLessThanOrEqual(25_000);
    expect(body.split("\n").every((l) => l === line)).toBe(true);
    expect(r.warning).toContain("29.3KB (limit: 24.4KB)");
  });
  test("both limits: warning names lines and size", () => {
    const r = truncateMemoryIndex(Array.from({ length: 300 }, () => "z".repeat(200)).join("\n"));
    expect(r.warning).toMatch(/MEMORY\.md is 300 lines and \d+(\.\d)?KB/);
  });
  test("loadMemoryIndex and memoryIndexFile read <dir>/MEMORY.md; missing or empty gives null", () => {
    const R = tempRoot();
    expect(loadMemoryIndex(R)).toBeNull();
    writeFileSync(join(R, "MEMORY.md"), "  \n");
    expect(loadMemoryIndex(R)).toBeNull();
    writeFileSync(join(R, "MEMORY.md"), "- [Role](user_role.md) — backend dev\n");
    expect(loadMemoryIndex(R)).toEqual({ text: "- [Role](user_role.md) — backend dev" });
    const f = memoryIndexFile(R);
    expect(f?.layer).toBe("memory");
    expect(f?.status).toBe("included");
    expect(f?.path).toBe(join(R, "MEMORY.md"));
  });
});
