import { describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import type { LoadedSettings } from "../../src/config/load.ts";
import type { Settings } from "../../src/config/schema.ts";
import { forkPermissions } from "../../src/cli/plugin-wiring.ts";
import { builtinTools } from "../../src/cli/builtin-tools.ts";
import { createToolRegistry } from "../../src/tool/registry.ts";
import { tempDir } from "../helpers/tmp.ts";

/** issue 8 §2: a memory fork may write only inside its memory dir and run only read-only Bash, whatever the user's allow rules say. */
function setup(allow: string[]) {
  const root = tempDir("yoke-fork-perm-");
  const cwd = join(root, "project");
  const mem = join(root, "home", ".yoke", "projects", "p", "memory");
  mkdirSync(cwd, { recursive: true });
  mkdirSync(mem, { recursive: true });
  const s: Settings = { permissions: { allow } };
  const settings: LoadedSettings = { merged: s, sources: [{ level: "user", path: join(root, "settings.json"), ruleRoot: root, settings: s }] };
  const tools = createToolRegistry(builtinTools());
  const ev = forkPermissions({ settings, cwd, env: { HOME: join(root, "home"), PATH: "/usr/bin:/bin" } }, { writeDirs: [mem], readOnlyBash: true }, tools);
  const decide = (toolName: string, input: Record<string, unknown>) => ev.decide({ toolName, input, readOnly: ["Read", "Grep", "Glob"].includes(toolName), cwd }).behavior;
  return { root, cwd, mem, decide };
}

describe("forkPermissions: the fork's write and Bash limits hold against the user's allow rules", () => {
  test("a write inside the memory dir is allowed", () => {
    const { mem, decide } = setup([]);
    expect(decide("Write", { file_path: join(mem, "user_pref.md"), content: "x" })).toBe("allow");
  });

  test("`..` cannot walk out of the memory dir, even when Edit is allowed by rule", () => {
    const { mem, cwd, decide } = setup(["Edit", "Write"]);
    expect(decide("Write", { file_path: `${mem}/../../../../../project/src.ts`, content: "x" })).toBe("deny");
    expect(decide("Edit", { file_path: `${mem}/../evil.md`, old_string: "a", new_string: "b" })).toBe("deny");
    expect(decide("Write", { file_path: join(cwd, "src.ts"), content: "x" })).toBe("deny");
  });

  test("a symlink inside the memory dir pointing out of it does not open a way out", () => {
    const { mem, cwd, decide } = setup(["Edit", "Write"]);
    symlinkSync(cwd, join(mem, "escape"));
    expect(decide("Write", { file_path: join(mem, "escape", "src.ts"), content: "x" })).toBe("deny");
  });

  test("a sibling folder sharing the memory dir's name as a prefix is outside", () => {
    const { mem, decide } = setup(["Edit", "Write"]);
    expect(decide("Write", { file_path: `${mem}-other/x.md`, content: "x" })).toBe("deny");
  });

  test("read-only Bash passes; a writing command is denied even when the user allows all Bash", () => {
    const { decide } = setup(["Bash"]);
    expect(decide("Bash", { command: "ls -la" })).toBe("allow");
    expect(decide("Bash", { command: "git log --oneline -5" })).toBe("allow");
    expect(decide("Bash", { command: "touch /tmp/x" })).toBe("deny");
    expect(decide("Bash", { command: "rm -rf src" })).toBe("deny");
    expect(decide("Bash", { command: "echo hi > notes.txt" })).toBe("deny");
  });

  test("a Bash prefix allow rule does not make a writing command read-only", () => {
    const { decide } = setup(["Bash(npm run:*)"]);
    expect(decide("Bash", { command: "npm run build" })).toBe("deny");
  });

  test("without readOnlyBash the fork may not run Bash at all", () => {
    const { root } = setup([]);
    const s: Settings = {};
    const settings: LoadedSettings = { merged: s, sources: [] };
    const ev = forkPermissions({ settings, cwd: root, env: { HOME: root } }, { writeDirs: [] }, createToolRegistry(builtinTools()));
    expect(ev.decide({ toolName: "Bash", input: { command: "ls" }, readOnly: false, cwd: root }).behavior).toBe("deny");
  });
});
