// Issue 4 items 4–6 end to end: user TypeScript plugins, Claude Code plugin folders and the attribution plugin in the compiled binary.
import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { toolResultsOf } from "../helpers/fake-anthropic.ts";
import { yokeBin } from "../helpers/binary.ts";
import { tempDir, writeTree } from "../helpers/tmp.ts";
import { bashCall, project, runWith, say, systemText } from "./hooks-helpers.ts";

beforeAll(() => {
  yokeBin();
});

// A plugin as a user writes it: TypeScript syntax, `import type` from a module that is not installed
// (erased at load), a relative helper import, no node_modules anywhere.
const GREETER = {
  ".yoke/plugins/greeter/index.ts": `
import type { Plugin, PluginHost } from "yoke";
import { greeting } from "./lib/greet.ts";

interface Counter { calls: number }
const state: Counter = { calls: 0 };

const plugin = {
  name: "greeter",
  version: "2.0.1",
  description: "says hello",
  setup(host: PluginHost) {
    host.systemPrompt.addSection("greeter", "GREETER-SECTION: greet people by name.");
    host.tools.define({
      name: "Greet",
      description: "Greets someone by name.",
      inputSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
      readOnly: true,
      execute: (input: { name?: unknown }) => { state.calls++; return greeting(String(input.name)) + " #" + state.calls; },
    });
    host.hooks.on("PreToolUse", (p: any) => {
      if (String(p.tool_input?.command ?? "").includes("forbidden"))
        return { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "greeter forbids this" } };
    }, { matcher: "Bash" });
  },
} satisfies Plugin;
export default plugin;
`,
  ".yoke/plugins/greeter/lib/greet.ts": `export const greeting = (n: string): string => \`Hello, \${n}!\`;\n`,
};

describe("user TypeScript plugins load into the binary with no build step (issue 4 item 4)", () => {
  test("a project plugin registers a tool the model calls, a system-prompt section, and a PreToolUse handler that blocks", async () => {
    const cwd = project();
    writeTree(cwd, GREETER);
    const r = await runWith(
      cwd,
      [{ content: [{ type: "tool_use", name: "Greet", input: { name: "Ada" } }] }, bashCall("echo forbidden > f.txt"), say("done")],
      ["--output-format", "json", "--allowedTools", "Bash", "--exit-code-on-denial"],
    );
    expect(r.stderr).toBe("");
    expect(r.code).toBe(3); // --exit-code-on-denial: the model stopped right after a denial (README: exit codes)
    expect(systemText(r.requests[0]!)).toContain("GREETER-SECTION: greet people by name.");
    const greet = r.requests[0]!.body.tools.find((t: any) => t.name === "Greet");
    expect(greet).toMatchObject({ description: "Greets someone by name.", input_schema: { type: "object", required: ["name"] } });
    expect(toolResultsOf(r.requests[1]!)[0]).toMatchObject({ text: "Hello, Ada! #1", is_error: false });
    expect(toolResultsOf(r.requests[2]!)[0]).toMatchObject({ text: "PreToolUse:Bash hook error: greeter forbids this", is_error: true });
    expect(existsSync(join(cwd, "f.txt"))).toBe(false);
    expect(r.json.permission_denials).toHaveLength(1);
  });

  test("--plugin-dir: a throwing PreToolUse handler fails closed, a throw elsewhere is logged with the plugin's name, a broken file is named and skipped", async () => {
    const cwd = project();
    const dir = tempDir("yoke-plugdir-");
    writeTree(dir, {
      "audit.ts": `
export default {
  name: "audit",
  version: "1.0.0",
  setup(host: any) {
    host.hooks.on("PostToolUse", (p: any) => {
      require("node:fs").appendFileSync(host.storageDir() + "/audit.log", p.tool_name + "\\n");
    });
    host.hooks.on("UserPromptSubmit", () => { throw new Error("audit exploded on the prompt"); });
  },
};
`,
      "strict.ts": `
export default {
  name: "strict",
  version: "0.1.0",
  setup(host: any) {
    host.hooks.on("PreToolUse", () => { throw new Error("policy server unreachable"); }, { matcher: "Write" });
  },
};
`,
      "broken.ts": "export default { name: 'broken', setup( {{{ \n",
    });
    const env = { YOKE_CONFIG_DIR: join(tempDir("yoke-cfg-"), ".yoke") };
    const r = await runWith(
      cwd,
      [bashCall("echo hi"), { content: [{ type: "tool_use", name: "Write", input: { file_path: join(cwd, "w.txt"), content: "w" } }] }, say("done")],
      ["--output-format", "json", "--allowedTools", "Bash Write", "--plugin-dir", dir, "--exit-code-on-denial"],
      { env },
    );
    expect(r.code).toBe(3); // --exit-code-on-denial: the model stopped right after a denial (README: exit codes)
    expect(r.json.result).toBe("done");
    // broken.ts: named, the run went on
    expect(r.stderr).toContain(`plugin ${join(dir, "broken.ts")} failed to load: syntax error: line 1:`);
    // audit: its UserPromptSubmit throw is logged with its name and skipped; its PostToolUse handler still ran
    expect(r.stderr).toContain('UserPromptSubmit hook of plugin "audit" failed: audit exploded on the prompt');
    expect(readFileSync(join(env.YOKE_CONFIG_DIR, "plugins-data", "audit", "audit.log"), "utf8")).toBe("Bash\n");
    // strict: throwing in PreToolUse blocks the Write
    const w = toolResultsOf(r.requests[2]!)[0]!;
    expect(w.is_error).toBe(true);
    expect(w.text).toContain('PreToolUse hook of plugin "strict" failed (policy server unreachable)');
    expect(existsSync(join(cwd, "w.txt"))).toBe(false);
  });
});

/** A Claude Code plugin folder whose PreToolUse hook (via ${CLAUDE_PLUGIN_ROOT}) blocks `touch`. */
function claudePlugin(root: string, name: string): void {
  writeTree(root, {
    ".claude-plugin/plugin.json": JSON.stringify({ name, version: "3.1.4", description: "a Claude Code plugin" }),
    "hooks/hooks.json": JSON.stringify({
      hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "${CLAUDE_PLUGIN_ROOT}/scripts/guard.sh" }] }] },
    }),
    "scripts/guard.sh": `#!/usr/bin/env bash
p=$(cat)
echo "root=$CLAUDE_PLUGIN_ROOT" > "$CLAUDE_PROJECT_DIR/plugin-hook.txt"
echo seen >> "$CLAUDE_PLUGIN_DATA/seen.log"
if printf '%s' "$p" | grep -q touch; then echo "${name} says no touching" >&2; exit 2; fi
exit 0
`,
    "commands/deploy.md": "Deploy it.\n",
    "agents/reviewer.md": "---\nname: reviewer\n---\nReview.\n",
    "skills/pdf/SKILL.md": "---\nname: pdf\n---\nPDF.\n",
  });
  Bun.spawnSync(["chmod", "+x", join(root, "scripts/guard.sh")]);
}

describe("Claude Code plugin folders (issue 4 item 5)", () => {
  test("via --plugin-dir: hooks.json runs with ${CLAUDE_PLUGIN_ROOT}", async () => {
    const cwd = project();
    const root = join(tempDir("yoke-ccplug-"), "no-touch");
    claudePlugin(root, "no-touch");
    const r = await runWith(cwd, [bashCall("touch marker"), say("ok")], ["--output-format", "json", "--allowedTools", "Bash", "--plugin-dir", root]);
    expect(r.code).toBe(0); // a denial ends in success, as in Claude Code (exit 3 only with --exit-code-on-denial)
    expect(existsSync(join(cwd, "marker"))).toBe(false);
    // contracts §1.7; observed in 2.1.332: a plugin hook's bracket shows the command with ${CLAUDE_PLUGIN_ROOT} expanded,
    // and the block names the plugin (issue 17.5).
    expect(toolResultsOf(r.requests[1]!)[0]!.text).toBe(
      `PreToolUse:Bash hook error: [${root}/scripts/guard.sh]: no-touch says no touching\n\nThis hook comes from the no-touch@inline plugin.`,
    );
    expect(readFileSync(join(cwd, "plugin-hook.txt"), "utf8")).toBe(`root=${root}\n`);
    // ${CLAUDE_PLUGIN_DATA} exists before the first hook writes into it.
    expect(readFileSync(join(r.env.YOKE_CONFIG_DIR!, "plugins-data", "no-touch", "seen.log"), "utf8")).toBe("seen\n");
  });

  test("via enabledPlugins, installed under $CLAUDE_CONFIG_DIR/plugins/cache/<market>/<name>/<version>/", async () => {
    const home = tempDir("yoke-home-");
    const claudeDir = join(home, ".claude");
    const root = join(claudeDir, "plugins", "cache", "acme-market", "no-touch", "3.1.4");
    claudePlugin(root, "no-touch");
    const cwd = project({ enabledPlugins: { "no-touch@acme-market": true } });
    const r = await runWith(cwd, [bashCall("touch marker"), say("ok")], ["--output-format", "json", "--allowedTools", "Bash"], { env: { HOME: home } });
    expect(r.code).toBe(0); // a denial ends in success, as in Claude Code (exit 3 only with --exit-code-on-denial)
    expect(existsSync(join(cwd, "marker"))).toBe(false);
    // An installed plugin is named by its enabledPlugins key (observed in 2.1.332: `name@marketplace`).
    expect(toolResultsOf(r.requests[1]!)[0]!.text).toEndWith("no-touch says no touching\n\nThis hook comes from the no-touch@acme-market plugin.");
    expect(r.json.permission_denials).toHaveLength(1);
  });
});

describe("attribution plugin (issue 4 item 6, internals §7)", () => {
  const trailer = "Co-Authored-By: Claude";
  const sys = async (cwd: string, env: Record<string, string> = {}) => {
    const r = await runWith(cwd, [say("ok")], [], { env });
    expect(r.code).toBe(0);
    return systemText(r.requests[0]!);
  };

  test("its commit trailer is in the system prompt by default", async () => {
    const s = await sys(project());
    expect(s).toContain(trailer);
    expect(s).toContain("Generated with yoke");
  });

  test("disappears with plugins.attribution=false, YOKE_DISABLE_PLUGINS=attribution; attribution.commit='' drops the trailer only", async () => {
    expect(await sys(project({ plugins: { attribution: false } }))).not.toContain("# Commits and pull requests");
    expect(await sys(project(), { YOKE_DISABLE_PLUGINS: "attribution" })).not.toContain("# Commits and pull requests");
    const s = await sys(project({ attribution: { commit: "" } }));
    expect(s).toContain("# Commits and pull requests");
    expect(s).not.toContain(trailer);
    expect(s).toContain("Generated with yoke");
  });

  test("a user plugin named attribution replaces the built-in one", async () => {
    const cwd = project();
    writeTree(cwd, {
      ".yoke/plugins/attribution.ts": `export default { name: "attribution", version: "9.9.9", setup(h: any) { h.systemPrompt.addSection("git", "MY-OWN-ATTRIBUTION"); } };\n`,
    });
    const s = await sys(cwd);
    expect(s).toContain("MY-OWN-ATTRIBUTION");
    expect(s).not.toContain(trailer);
  });
});
