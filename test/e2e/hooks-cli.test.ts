// `yoke hooks list|run` and `yoke plugins list` (issue 4 item 7) from the compiled binary, with no credentials.
import { beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { isolatedEnv, repoRoot, runYoke, yokeBin, TRUST_WORKSPACE } from "../helpers/binary.ts";
import { tempDir, writeTree } from "../helpers/tmp.ts";
import { hook, project } from "./hooks-helpers.ts";

beforeAll(() => {
  yokeBin();
});

const guard = join(repoRoot(), "hooks", "examples", "bash-guard.sh");

/** A project with settings hooks at two levels, a TS plugin with a handler and a Claude Code plugin folder. */
function fixture() {
  const cwd = project({
    hooks: {
      // The guard runs in `hooks run` below: 30 s leaves a busy machine time to start it (5 s was the example's).
      PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: guard, timeout: 30, if: "Bash(rm *)" }] }],
      PostToolUse: [{ matcher: "Write|Edit", hooks: [{ type: "command", command: "echo formatted" }] }],
    },
  });
  const env = isolatedEnv({ ...TRUST_WORKSPACE });
  writeFileSync(join(env.CLAUDE_CONFIG_DIR!, "settings.json"), JSON.stringify({ hooks: hook("Stop", "echo user-stop") }));
  writeTree(cwd, {
    ".yoke/plugins/watch.ts": `export default { name: "watch", version: "0.2.0", setup(h: any) { h.hooks.on("PreToolUse", () => {}, { matcher: "Write" }); } };\n`,
  });
  const cc = join(tempDir("yoke-cc-"), "ccplug");
  writeTree(cc, {
    ".claude-plugin/plugin.json": JSON.stringify({ name: "ccplug", version: "1.0.0" }),
    "hooks/hooks.json": JSON.stringify({ hooks: { SessionStart: [{ matcher: "startup", hooks: [{ type: "command", command: "${CLAUDE_PLUGIN_ROOT}/start.sh" }] }] } }),
    "commands/ship.md": "Ship.\n",
    "agents/critic.md": "---\nname: critic\ndescription: Critiques a change.\n---\nCritic.\n",
    "skills/charts/SKILL.md": "Charts.\n",
  });
  return { cwd, env, cc };
}

describe("yoke hooks list", () => {
  test("every hook with event, matcher and source: settings files, Claude Code plugin hooks, in-process plugin handlers", async () => {
    const { cwd, env, cc } = fixture();
    const r = await runYoke(["hooks", "list", "--plugin-dir", cc], { cwd, env });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const lines = r.stdout.split("\n");
    expect(lines[0]).toMatch(/^EVENT\s+MATCHER\s+TYPE\s+COMMAND\s+SOURCE$/);
    const row = (needle: string) => lines.find((l) => l.includes(needle)) ?? "";
    expect(row(guard)).toMatch(new RegExp(`^PreToolUse\\s+Bash\\s+command\\s+.*${join(cwd, ".claude/settings.json").replaceAll("/", "\\/")}$`));
    expect(r.stdout).toContain("if: Bash(rm *)  timeout: 30s");
    expect(row("echo formatted")).toMatch(/^PostToolUse\s+Write\|Edit\s+command/);
    expect(row("echo user-stop")).toContain(join(env.CLAUDE_CONFIG_DIR!, "settings.json"));
    expect(row("start.sh")).toMatch(/^SessionStart\s+startup\s+command/);
    expect(row("start.sh")).toContain(`plugin: ccplug (${join(cc, "hooks", "hooks.json")})`);
    expect(row("plugin: watch")).toMatch(/^PreToolUse\s+Write\s+in-process\s+\(function\)\s+plugin: watch$/);

    const j = await runYoke(["hooks", "list", "--json", "--plugin-dir", cc], { cwd, env });
    const rows = JSON.parse(j.stdout);
    expect(rows).toContainEqual(expect.objectContaining({ event: "PreToolUse", matcher: "Bash", command: guard, timeoutSec: 30, if: "Bash(rm *)", level: "project" }));
    expect(rows).toContainEqual({ event: "PreToolUse", matcher: "Write", type: "in-process", command: "(function)", source: "plugin: watch" });
  });

  test("disableAllHooks shows as a note on each hook; no hooks prints a clear line", async () => {
    const cwd = project({ disableAllHooks: true, hooks: hook("Stop", "echo x") });
    const r = await runYoke(["hooks", "list", "--json"], { cwd, env: TRUST_WORKSPACE });
    expect(JSON.parse(r.stdout)[0]).toMatchObject({ event: "Stop", note: "disabled by disableAllHooks" });
    const empty = await runYoke(["hooks", "list", "--bare"], { cwd: project() });
    expect(empty.stdout).toBe("No hooks configured.\n");
  });
});

describe("yoke hooks run", () => {
  test("runs the matching hooks on a synthetic payload; prints output, exit, duration, merged decision; exit 2 when it blocks", async () => {
    const { cwd, env } = fixture();
    const r = await runYoke(["hooks", "run", "PreToolUse", "--tool", "Bash", "--input", '{"command":"rm -rf /"}'], { cwd, env });
    expect(r.code).toBe(2);
    expect(r.stdout).toContain(`● command: ${guard} (${join(cwd, ".claude/settings.json")})`);
    expect(r.stdout).toMatch(/hook: PreToolUse:Bash {2}exit: 2 {2}outcome: blocking {2}duration: \d+\.\d ms/);
    expect(r.stdout).toContain("bash-guard: recursive forced delete of the root or home directory. Command: rm -rf /");
    expect(r.stdout).toContain("Merged result:\n  decision: deny\n  reason: [");

    // `if: Bash(rm *)` does not match `ls`: the guard is skipped, nothing blocks.
    const ok = await runYoke(["hooks", "run", "PreToolUse", "--tool", "Bash", "--input", '{"command":"ls"}'], { cwd, env });
    expect(ok.code).toBe(0);
    expect(ok.stdout).toBe("No PreToolUse hooks matched.\n\nMerged result:\n  decision: none (normal permission flow)\n");
  });

  test("--payload FILE and --json; in-process plugin handlers run too", async () => {
    const { cwd, env } = fixture();
    const payloadFile = join(cwd, "payload.json");
    writeFileSync(payloadFile, JSON.stringify({ tool_name: "Write", tool_input: { file_path: "/tmp/x.ts", content: "x" }, tool_response: { type: "create" } }));
    const r = await runYoke(["hooks", "run", "PostToolUse", "--payload", payloadFile, "--json"], { cwd, env });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.payload).toMatchObject({ hook_event_name: "PostToolUse", tool_name: "Write", tool_input: { file_path: "/tmp/x.ts" }, cwd });
    expect(out.hooks).toHaveLength(1);
    expect(out.hooks[0]).toMatchObject({ exitCode: 0, stdout: "formatted\n", outcome: "success" });
    expect(out.blocks).toBe(false);

    const pre = JSON.parse((await runYoke(["hooks", "run", "PreToolUse", "--tool", "Write", "--json"], { cwd, env })).stdout);
    expect(pre.hooks.map((h: any) => h.source)).toEqual(["plugin: watch"]);
  });

  test("Stop hook that blocks → exit 2 with the reason; usage errors → exit 1", async () => {
    const cwd = project({ hooks: hook("Stop", `cat >/dev/null; echo '{"decision":"block","reason":"tests fail"}'`) });
    const r = await runYoke(["hooks", "run", "Stop"], { cwd, env: TRUST_WORKSPACE });
    expect(r.code).toBe(2);
    expect(r.stdout).toContain("  decision: block\n  reason: tests fail\n");
    const bad = await runYoke(["hooks", "run", "PreToolUzе"], { cwd });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("unknown hook event 'PreToolUzе'");
    const badJson = await runYoke(["hooks", "run", "PreToolUse", "--input", "{nope"], { cwd });
    expect(badJson.code).toBe(1);
    expect(badJson.stderr).toContain("--input is not valid JSON");
  });
});

describe("yoke plugins list", () => {
  test("name, version, origin, path, enabled/disabled and why, load errors, Claude Code plugin contents", async () => {
    const { cwd, env, cc } = fixture();
    writeTree(cwd, {
      ".yoke/plugins/broken.ts": "export default {{{\n",
      ".yoke/plugins/quiet.ts": `export default { name: "quiet", version: "1.0.0", setup() {} };\n`,
      ".claude/settings.local.json": JSON.stringify({ plugins: { quiet: false } }),
    });
    const r = await runYoke(["plugins", "list", "--plugin-dir", cc], { cwd, env: { ...env, YOKE_DISABLE_PLUGINS: "attribution" } });
    expect(r.code).toBe(0);
    const out = r.stdout;
    expect(out).toContain("attribution 1.0.0  [yoke plugin, bundled]  disabled (disabled: YOKE_DISABLE_PLUGINS lists attribution)");
    expect(out).toContain(`watch 0.2.0  [yoke plugin, project]  enabled\n    path: ${join(cwd, ".yoke/plugins/watch.ts")}`);
    expect(out).toContain("quiet 1.0.0  [yoke plugin, project]  disabled (disabled: settings: plugins.quiet is false)");
    // Each part with its state (issue 14 point 3).
    expect(out).toContain(
      `ccplug 1.0.0  [Claude Code plugin, flag]  enabled\n    path: ${cc}\n    hooks loaded: SessionStart (1 handler from ${join(cc, "hooks/hooks.json")})\n` +
        `    skills loaded: ccplug:charts\n    commands loaded: ccplug:ship\n    agents loaded: ccplug:critic`,
    );
    expect(out).toContain(`(failed to load)  [yoke plugin, -]  error (`);
    expect(out).toContain(`path: ${join(cwd, ".yoke/plugins/broken.ts")}`);

    const j = JSON.parse((await runYoke(["plugins", "list", "--json"], { cwd, env })).stdout);
    expect(j.find((p: any) => p.name === "attribution")).toMatchObject({ status: "enabled", origin: "bundled", version: "1.0.0" });
    expect(j.find((p: any) => p.status === "error").path).toBe(join(cwd, ".yoke/plugins/broken.ts"));
  });

  test("a user plugin named attribution shows the built-in one as replaced", async () => {
    const cwd = project();
    writeTree(cwd, { ".yoke/plugins/attribution.ts": `export default { name: "attribution", version: "9.0.0", setup() {} };\n` });
    const j = JSON.parse((await runYoke(["plugins", "list", "--json"], { cwd, env: TRUST_WORKSPACE })).stdout);
    expect(j).toContainEqual(expect.objectContaining({ name: "attribution", origin: "project", status: "enabled", version: "9.0.0" }));
    expect(j).toContainEqual(
      expect.objectContaining({ name: "attribution", origin: "bundled", status: "disabled", reason: `replaced by ${join(cwd, ".yoke/plugins/attribution.ts")}` }),
    );
  });
});
