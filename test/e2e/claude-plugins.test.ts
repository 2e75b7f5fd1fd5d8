// Issue 14 points 3 and 6: published Claude Code plugins (test/fixtures/claude-plugins, Apache-2.0, see SOURCE.md)
// loaded whole by the compiled binary against the fake API: commands with arguments, `!` blocks under
// allowed-tools with ${CLAUDE_PLUGIN_ROOT}, skills, agents as `plugin:agent`, hooks, and `.mcp.json`.
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { toolResultsOf, type LoggedRequest } from "../helpers/fake-anthropic.ts";
import { isolatedEnv, repoRoot, runYoke, TRUST_WORKSPACE, yokeBin } from "../helpers/binary.ts";
import { tempDir, writeTree } from "../helpers/tmp.ts";
import { bashCall, project, requestText, runWith, say, systemText } from "./hooks-helpers.ts";

// Each test runs the binary (some several times); on a loaded machine one run can take seconds.
setDefaultTimeout(60_000);

beforeAll(() => {
  yokeBin();
});

const FIX = join(repoRoot(), "test", "fixtures", "claude-plugins");
const dirs = (...names: string[]) => names.flatMap((n) => ["--plugin-dir", join(FIX, n)]);
const firstUserText = (req: LoggedRequest): string => {
  const m = req.body.messages[0];
  return typeof m.content === "string" ? m.content : m.content.map((b: any) => b.text ?? "").join("\n");
};
const tool = (name: string, input: Record<string, unknown>) => ({ content: [{ type: "tool_use" as const, name, input }] });

/** A project that is a git repository with one commit and one uncommitted change. */
function gitProject(): string {
  const cwd = project();
  writeTree(cwd, { "app.ts": "export const a = 1;\n" });
  const git = (...a: string[]) => execFileSync("git", a, { cwd, env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", HOME: cwd } });
  git("init", "-q", "-b", "main");
  git("config", "user.email", "t@example.com");
  git("config", "user.name", "T");
  git("add", "-A");
  git("commit", "-qm", "first");
  writeTree(cwd, { "app.ts": "export const a = 2;\n" });
  return cwd;
}

describe("ralph-loop: a command with arguments, a ```! block under allowed-tools with ${CLAUDE_PLUGIN_ROOT}, a Stop hook", () => {
  test("the setup script runs, its output reaches the model, the Stop hook feeds the prompt back until the promise", async () => {
    const cwd = gitProject();
    const r = await runWith(cwd, [say("working on it"), say("all done <promise>DONE</promise>")], ["--output-format", "json", ...dirs("ralph-loop")], {
      prompt: "/ralph-loop:ralph-loop Build a todo API --completion-promise DONE --max-iterations 5",
    });
    expect(r.code).toBe(0);
    const first = firstUserText(r.requests[0]!);
    expect(first).toContain("<command-name>/ralph-loop:ralph-loop</command-name>");
    expect(first).toContain("Ralph loop activated in this session!");
    expect(first).toContain("<promise>DONE</promise>");
    expect(first).not.toContain("${CLAUDE_PLUGIN_ROOT}");
    // The Stop hook blocked the first stop with the same prompt; the promise ended the loop and removed its state.
    expect(r.requests).toHaveLength(2);
    expect(requestText(r.requests[1]!)).toContain("Build a todo API");
    expect(existsSync(join(cwd, ".claude", "ralph-loop.local.md"))).toBe(false);
    expect(r.json.result).toContain("<promise>DONE</promise>");
  });

  test("the model cannot start it (hide-from-slash-command-tool): it is not listed, and Skill refuses it", async () => {
    const cwd = gitProject();
    const r = await runWith(cwd, [tool("Skill", { skill: "ralph-loop:ralph-loop", args: "x" }), say("ok")], ["--output-format", "json", ...dirs("ralph-loop")]);
    expect(systemText(r.requests[0]!)).not.toContain("ralph-loop:ralph-loop");
    expect(systemText(r.requests[0]!)).toContain("- ralph-loop:help: Explain Ralph Loop plugin and available commands");
    expect(toolResultsOf(r.requests[1]!)[0]).toMatchObject({ is_error: true });
  });
});

describe("commit-commands: !`git …` lines and allowed-tools", () => {
  test("/commit-commands:commit inlines git status, diff and branch; its allowed-tools let the model commit", async () => {
    const cwd = gitProject();
    const r = await runWith(
      cwd,
      [bashCall("git add app.ts && git commit -qm 'bump a'"), say("committed")],
      ["--output-format", "json", ...dirs("commit-commands")],
      { prompt: "/commit-commands:commit" },
    );
    expect(r.code).toBe(0);
    const first = firstUserText(r.requests[0]!);
    expect(first).toContain("- Current branch: main");
    expect(first).toMatch(/modified: +app\.ts/);
    expect(first).toContain("+export const a = 2;");
    expect(toolResultsOf(r.requests[1]!)[0]!.is_error).toBe(false);
    expect(execFileSync("git", ["log", "--oneline"], { cwd }).toString()).toContain("bump a");
  });
});

describe("feature-dev: $ARGUMENTS and agents through the Agent tool as plugin:agent", () => {
  test("the command gets its arguments; feature-dev:code-explorer runs with its own prompt and tools", async () => {
    const cwd = gitProject();
    const r = await runWith(
      cwd,
      [tool("Agent", { description: "Explore auth", prompt: "Map the auth flow", subagent_type: "feature-dev:code-explorer" }), say("EXPLORER-REPORT"), say("planned")],
      ["--output-format", "json", ...dirs("feature-dev")],
      { prompt: "/feature-dev:feature-dev add OAuth login" },
    );
    expect(r.code).toBe(0);
    expect(firstUserText(r.requests[0]!)).toContain("add OAuth login");
    const agentTool = r.requests[0]!.body.tools.find((t: any) => t.name === "Agent");
    expect(agentTool.description).toContain("feature-dev:code-explorer");
    // The subagent's request: the agent file's body as its system prompt, its tools only (no Bash, no Write).
    const sub = r.requests[1]!;
    expect(systemText(sub)).toContain("expert code analyst");
    const names = sub.body.tools.map((t: any) => t.name);
    expect(names).toContain("Read");
    expect(names).not.toContain("Bash");
    expect(toolResultsOf(r.requests[2]!)[0]!.text).toContain("EXPLORER-REPORT");
  });
});

describe("skills of plugins: frontend-design and example-plugin", () => {
  test("plugin skills are listed by plugin:name and load through Skill with their base directory", async () => {
    const cwd = gitProject();
    const r = await runWith(cwd, [tool("Skill", { skill: "frontend-design:frontend-design" }), say("designed")], ["--output-format", "json", ...dirs("frontend-design", "example-plugin")]);
    const sys = systemText(r.requests[0]!);
    expect(sys).toContain("- frontend-design:frontend-design: Guidance for distinctive, intentional visual design");
    expect(sys).toContain("- example-plugin:example-skill:");
    const res = toolResultsOf(r.requests[1]!)[0]!;
    expect(res.is_error).toBe(false);
    expect(res.text).toContain(`Base directory for this skill: ${join(FIX, "frontend-design", "skills", "frontend-design")}`);
  });
});

describe("hooks of plugins", () => {
  test("explanatory-output-style: its SessionStart hook (bash ${CLAUDE_PLUGIN_ROOT}/…) adds its context", async () => {
    const cwd = gitProject();
    const r = await runWith(cwd, [say("ok")], ["--output-format", "json", ...dirs("explanatory-output-style")]);
    expect(requestText(r.requests[0]!)).toContain("You are in 'explanatory' output style mode");
  });

  test("hookify: Python hooks that import the plugin's own modules block a Bash command its rule names", async () => {
    const cwd = gitProject();
    writeTree(cwd, { ".claude/hookify.dangerous-rm.local.md": readFileSync(join(FIX, "hookify", "examples", "dangerous-rm.local.md"), "utf8") });
    writeTree(cwd, { "junk/x.txt": "x" });
    const r = await runWith(cwd, [bashCall("rm -rf junk"), say("blocked")], ["--output-format", "json", "--allowedTools", "Bash", ...dirs("hookify")]);
    expect(r.stderr).not.toContain("import error");
    expect(toolResultsOf(r.requests[1]!)[0]!.is_error).toBe(true);
    // hookify denies with a systemMessage, which is the user's (stderr in -p).
    expect(r.stderr).toContain("Dangerous rm command detected");
    expect(existsSync(join(cwd, "junk", "x.txt"))).toBe(true);
  });
});

describe("bad input: an invalid manifest is reported once naming the file; the other plugins load", () => {
  test("broken JSON and a bad name, each named with its file, beside a working published plugin", async () => {
    const cwd = gitProject();
    const bad = tempDir("yoke-badplug-");
    writeTree(bad, {
      "broken/.claude-plugin/plugin.json": '{ "name": "broken", ',
      "broken/commands/x.md": "X\n",
      "badname/.claude-plugin/plugin.json": JSON.stringify({ name: "bad name!" }),
    });
    const r = await runWith(cwd, [say("ok")], ["--plugin-dir", join(bad, "broken"), "--plugin-dir", join(bad, "badname"), ...dirs("commit-commands")], { prompt: "/commit-commands:commit" });
    expect(r.code).toBe(0);
    const lines = r.stderr.trim().split("\n");
    expect(lines.filter((l) => l.includes(join(bad, "broken", ".claude-plugin", "plugin.json")))).toHaveLength(1);
    expect(lines.filter((l) => l.includes(join(bad, "badname", ".claude-plugin", "plugin.json")))).toHaveLength(1);
    expect(firstUserText(r.requests[0]!)).toContain("- Current branch: main");
  });
});

describe("enabledPlugins resolve through installed_plugins.json in semver order", () => {
  test("0.10.0 is taken over 0.9.0, and its command is the one that runs", async () => {
    const cwd = project({ enabledPlugins: { "p@mk": true } });
    const home = tempDir("yoke-home-");
    const cache = join(home, ".claude", "plugins", "cache", "mk", "p");
    for (const v of ["0.9.0", "0.10.0"])
      writeTree(join(cache, v), { ".claude-plugin/plugin.json": JSON.stringify({ name: "p", version: v }), "commands/which.md": `VERSION-${v}\n` });
    writeTree(home, {
      ".claude/plugins/installed_plugins.json": JSON.stringify({
        version: 2,
        plugins: { "p@mk": ["0.9.0", "0.10.0"].map((v) => ({ scope: "user", installPath: join(cache, v), version: v })) },
      }),
    });
    const r = await runWith(cwd, [say("ok")], [], { env: { HOME: home }, prompt: "/p:which" });
    expect(r.code).toBe(0);
    expect(firstUserText(r.requests[0]!)).toContain("VERSION-0.10.0");
  });
});

describe("yoke plugins list: every part with its real state", () => {
  test("loaded parts by name, a failing MCP server with why, nothing called enabled that does not run", async () => {
    const cwd = gitProject();
    const env = isolatedEnv({ ...TRUST_WORKSPACE, MCP_TIMEOUT: "3000" });
    const r = await runYoke(["plugins", "list", "--json", ...dirs("ralph-loop", "feature-dev", "example-plugin", "hookify")], { cwd, env });
    expect(r.code).toBe(0);
    const rows = JSON.parse(r.stdout) as any[];
    const row = (n: string) => rows.find((x) => x.name === n);
    const part = (n: string, p: string) => row(n).parts.find((x: any) => x.part === p);
    expect(part("ralph-loop", "hooks")).toMatchObject({ state: "loaded", items: ["Stop"] });
    expect(part("ralph-loop", "commands")).toMatchObject({ state: "loaded", items: ["ralph-loop:cancel-ralph", "ralph-loop:help", "ralph-loop:ralph-loop"] });
    expect(part("feature-dev", "agents").items).toEqual(["feature-dev:code-architect", "feature-dev:code-explorer", "feature-dev:code-reviewer"]);
    expect(part("hookify", "skills")).toMatchObject({ state: "loaded", items: ["hookify:writing-rules"] });
    // example-plugin's .mcp.json names a server that cannot be reached here: failed, and why.
    expect(part("example-plugin", "mcpServers")).toMatchObject({ state: "failed" });
    expect(part("example-plugin", "mcpServers").reason).toContain("plugin:example-plugin:example-server");
    // Its skill and command share a name: the skill wins quietly (contracts §6.2), nothing is reported.
    expect(part("example-plugin", "skills").items).toContain("example-plugin:example-command");
    expect(part("example-plugin", "commands")).toBeUndefined();
  });
});
