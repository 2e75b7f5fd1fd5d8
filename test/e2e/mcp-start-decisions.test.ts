// Which stdio MCP servers a run starts, and when it starts none (red team of issue 21 point 2, written against the
// MCP prelaunch that main since removed; kept because they pin the run's own decision): each settings level and flag
// that can take a server away, a settings file that does not parse, env expansion from settings, a bad --mcp-config,
// and runs refused by their flags or while composing (none may start, or leave running, a server). The probe server
// logs one line per process.
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot, yokeBin } from "../helpers/binary.ts";
import { tempDir, writeTree } from "../helpers/tmp.ts";
import { waitFor } from "../helpers/wait-for.ts";
import { alive } from "../helpers/process-alive.ts";
import { adminBwrap } from "../helpers/managed.ts";
import { runWith, say } from "./hooks-helpers.ts";

setDefaultTimeout(90_000);
beforeAll(() => void yokeBin());

const PROBE = join(repoRoot(), "test", "fixtures", "mcp", "probe-server.mjs");

function project(local: Record<string, unknown> | null, server?: Record<string, unknown>): { cwd: string; logs: string; home: string } {
  const cwd = tempDir("yoke-prevar-");
  const logs = tempDir("yoke-prevar-logs-");
  const home = tempDir("yoke-prevar-home-");
  const probe = server ?? { command: "node", args: [PROBE, join(logs, "probe.jsonl")] };
  writeFileSync(join(cwd, ".mcp.json"), JSON.stringify({ mcpServers: { probe } }, null, 2));
  mkdirSync(join(cwd, ".claude"), { recursive: true });
  if (local) writeFileSync(join(cwd, ".claude", "settings.local.json"), JSON.stringify(local, null, 2));
  return { cwd, logs, home };
}
const starts = (logs: string): Array<{ pid: number; argv: string[]; env: Record<string, string> }> => {
  const f = join(logs, "probe.jsonl");
  return existsSync(f) ? readFileSync(f, "utf8").trim().split("\n").map((l) => JSON.parse(l)) : [];
};
const json = ["--output-format", "stream-json", "--verbose"];
const initOf = (lines: any[] | undefined) => lines?.find((l) => l.subtype === "init");

describe("a settings level or flag that takes the server away: never started", () => {
  test("--setting-sources without the local level that approves it", async () => {
    const { cwd, logs, home } = project({ enableAllProjectMcpServers: true });
    const r = await runWith(cwd, [say("ok")], [...json, "--setting-sources", "user,project"], { env: { HOME: home } });
    expect(r.code).toBe(0);
    expect(starts(logs)).toHaveLength(0);
    expect(initOf(r.lines).mcp_servers).toEqual([{ name: "probe", status: "disabled" }]);
  });

  test("--settings (JSON and a file) with disabledMcpjsonServers over a local approval", async () => {
    const flagFile = join(tempDir("yoke-prevar-flag-"), "s.json");
    writeFileSync(flagFile, JSON.stringify({ disabledMcpjsonServers: ["probe"] }));
    for (const value of [JSON.stringify({ disabledMcpjsonServers: ["probe"] }), flagFile]) {
      const { cwd, logs, home } = project({ enableAllProjectMcpServers: true });
      const r = await runWith(cwd, [say("ok")], [...json, "--settings", value], { env: { HOME: home } });
      expect(r.code).toBe(0);
      expect(starts(logs)).toHaveLength(0);
    }
  });

  test("the user's settings disable it; the user's settings are a link to that file", async () => {
    for (const link of [false, true]) {
      const { cwd, logs, home } = project({ enableAllProjectMcpServers: true });
      mkdirSync(join(home, ".claude"), { recursive: true });
      const real = join(tempDir("yoke-prevar-real-"), "settings.json");
      writeFileSync(real, JSON.stringify({ disabledMcpjsonServers: ["probe"] }));
      if (link) symlinkSync(real, join(home, ".claude", "settings.json"));
      else writeFileSync(join(home, ".claude", "settings.json"), readFileSync(real));
      const r = await runWith(cwd, [say("ok")], json, { env: { HOME: home } });
      expect(r.code).toBe(0);
      expect(starts(logs)).toHaveLength(0);
    }
  });

  test("a user settings file that does not parse: said once by the run, nothing starts", async () => {
    const { cwd, logs, home } = project({ enableAllProjectMcpServers: true });
    mkdirSync(join(home, ".claude"), { recursive: true });
    writeFileSync(join(home, ".claude", "settings.json"), '{ "env": { "A": 1 ');
    const r = await runWith(cwd, [say("ok")], [], { env: { HOME: home } });
    expect(r.code).toBe(1);
    expect(r.stderr.match(/settings\.json/g)?.length).toBe(1);
    expect(starts(logs)).toHaveLength(0);
  });

  test("managed allowManagedMcpServersOnly with an allowlist in user settings only", async () => {
    const { cwd, logs, home } = project({ enableAllProjectMcpServers: true });
    const managed = tempDir("yoke-prevar-managed-");
    writeFileSync(join(managed, "managed-settings.json"), JSON.stringify({ allowManagedMcpServersOnly: true, allowedMcpServers: [{ serverName: "other" }] }));
    mkdirSync(join(home, ".claude"), { recursive: true });
    writeFileSync(join(home, ".claude", "settings.json"), JSON.stringify({ allowedMcpServers: [{ serverName: "probe" }] }));
    const r = await runWith(cwd, [say("ok")], json, { env: { HOME: home, YOKE_MANAGED_DIR: managed } });
    expect(r.code).toBe(0);
    expect(starts(logs)).toHaveLength(0);
  });
});

describe("what the run starts, it starts once and as the run decides", () => {
  test("${VAR} in the server's arguments, VAR set by the settings' env: one process, the expanded path", async () => {
    const logs0 = tempDir("yoke-prevar-expand-");
    const { cwd, home } = project({ enableAllProjectMcpServers: true, env: { PROBE_LOG: join(logs0, "probe.jsonl") } }, { command: "node", args: [PROBE, "${PROBE_LOG}"] });
    const r = await runWith(cwd, [say("ok")], json, { env: { HOME: home } });
    expect(r.code).toBe(0);
    const s = starts(logs0);
    expect(s).toHaveLength(1);
    expect(s[0]!.argv[0]).toBe(join(logs0, "probe.jsonl"));
    expect(initOf(r.lines).mcp_servers).toEqual([{ name: "probe", status: "connected" }]);
  });

  test("--mcp-config that is not JSON: the run says so, and whatever started early is not left running", async () => {
    const { cwd, logs, home } = project({ enableAllProjectMcpServers: true });
    const r = await runWith(cwd, [say("ok")], [...json, "--mcp-config", "{not json"], { env: { HOME: home } });
    expect(r.stderr).toContain("--mcp-config");
    for (const s of starts(logs)) await waitFor(() => !alive(s.pid), `probe server ${s.pid} to end`);
    // Each start the run made is the run's: at most one process.
    expect(starts(logs).length).toBeLessThanOrEqual(1);
  });
});

describe("a run refused while composing leaves no server running", () => {
  const refused: Array<[string, string[], string | undefined]> = [
    ["an unknown --permission-mode", ["--permission-mode", "sideways"], undefined],
    ["--input-format stream-json whose stdin ends before initialize", ["--input-format", "stream-json", "--output-format", "stream-json", "--verbose"], ""],
    ["--permission-prompt-tool that is not stdio", ["--permission-prompt-tool", "mcp__x__y"], undefined],
    // A plugin's agent (`plugin:agent`) is known only once plugins load, after the spawn (run-prelude.ts), when a
    // plugin may load (here a --plugin-dir whose plugin has no such agent).
    ["--agent naming a plugin agent the loaded plugin lacks", ["--agent", "kit:nobody", "--plugin-dir", "kit"], undefined],
  ];
  for (const [name, args, stdin] of refused)
    test(name, async () => {
      const { cwd, logs, home } = project({ enableAllProjectMcpServers: true });
      writeTree(cwd, { "kit/.claude-plugin/plugin.json": JSON.stringify({ name: "kit", version: "1.0.0" }), "kit/agents/helper.md": "---\nname: helper\ndescription: Helps\n---\nHELP\n" });
      await runWith(cwd, [say("ok")], args, { env: { HOME: home }, ...(stdin !== undefined ? { stdin } : {}) });
      for (const s of starts(logs)) await waitFor(() => !alive(s.pid), `probe server ${s.pid} to end`);
    });
});

describe("a run its flags refuse starts no server at all (Claude Code checks them first)", () => {
  const refused: Array<[string, string[], RegExp]> = [
    ["--output-format yaml", ["--output-format", "yaml"], /--output-format must be/],
    ["stream-json output without --verbose", ["--output-format=stream-json"], /requires --verbose/],
    ["stream-json input with text output", ["--input-format", "stream-json"], /requires --output-format=stream-json/],
    ["--permission-prompt-tool that is not stdio", ["--permission-prompt-tool", "mcp__x__y"], /supports only "stdio"/],
    ["--permission-prompt-tool stdio without stream-json input", ["--permission-prompt-tool", "stdio"], /needs --input-format stream-json/],
    ["an unknown --permission-mode", ["--permission-mode", "sideways"], /--permission-mode must be one of/],
  ];
  for (const [name, args, said] of refused)
    test(name, async () => {
      // A shell writes its line within a millisecond of the spawn (node takes ~50 ms: it could be stopped first).
      const logs0 = tempDir("yoke-prevar-sh-");
      const log = join(logs0, "probe.jsonl");
      const { cwd, home } = project({ enableAllProjectMcpServers: true }, { command: "sh", args: ["-c", `echo "{\\"pid\\":$$}" >> '${log}'; exec sleep 30`] });
      const logs = logs0;
      const r = await runWith(cwd, [say("ok")], args, { env: { HOME: home } });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(said);
      expect(starts(logs)).toHaveLength(0);
    });
});

// Managed strictPluginOnlyCustomization with the "mcp" surface (observed in 2.1.332: a locked surface skips user-level
// and project-level sources; managed and plugin sources always load): the approved project server and a user server
// in ~/.claude.json never start; a plugin's server does; a list without "mcp" locks no server.
describe("managed strictPluginOnlyCustomization and MCP servers", () => {
  const setup = (value: unknown) => {
    const { cwd, logs, home } = project({ enableAllProjectMcpServers: true });
    mkdirSync(join(home, ".claude"), { recursive: true });
    writeFileSync(join(home, ".claude", ".claude.json"), JSON.stringify({ mcpServers: { mine: { command: "node", args: [PROBE, join(logs, "user.jsonl")] } } }));
    const managed = tempDir("yoke-prevar-managed-");
    writeFileSync(join(managed, "managed-settings.json"), JSON.stringify({ strictPluginOnlyCustomization: value }));
    const plug = tempDir("yoke-prevar-plug-");
    mkdirSync(join(plug, ".claude-plugin"), { recursive: true });
    writeFileSync(join(plug, ".claude-plugin", "plugin.json"), JSON.stringify({ name: "kit" }));
    writeFileSync(join(plug, ".mcp.json"), JSON.stringify({ mcpServers: { kitsrv: { command: "node", args: [PROBE, join(logs, "plugin.jsonl")] } } }));
    const run = () => runWith(cwd, [say("ok")], [...json, "--plugin-dir", plug], { env: { HOME: home, YOKE_MANAGED_DIR: managed } });
    const count = (f: string) => (existsSync(join(logs, f)) ? readFileSync(join(logs, f), "utf8").trim().split("\n").length : 0);
    return { run, logs, count };
  };

  for (const value of [["mcp"], true, ["skills", "mcp"]] as unknown[]) {
    test(`${JSON.stringify(value)}: project and user servers never start, the plugin's does`, async () => {
      const { run, logs, count } = setup(value);
      const r = await run();
      expect(r.code).toBe(0);
      expect(starts(logs)).toHaveLength(0);
      expect(count("user.jsonl")).toBe(0);
      expect(count("plugin.jsonl")).toBe(1);
      const servers = initOf(r.lines).mcp_servers as Array<{ name: string; status: string }>;
      expect(servers.find((s) => s.name === "probe")?.status).toBe("disabled");
      expect(servers.find((s) => s.name === "mine")?.status).toBe("disabled");
      expect(r.stderr).toContain("strictPluginOnlyCustomization");
    });
  }

  test('["skills"]: MCP servers are not locked', async () => {
    const { run, logs, count } = setup(["skills"]);
    const r = await run();
    expect(r.code).toBe(0);
    expect(starts(logs)).toHaveLength(1);
    expect(count("user.jsonl")).toBe(1);
    expect(count("plugin.jsonl")).toBe(1);
  });
});

// Issue 21: `yoke -p` spawns its stdio MCP servers in its prelude, before the rest of yoke loads (src/cli/run-prelude.ts).
// Every check of the run's flags, settings and credentials that can refuse it comes first: a shell server (which writes
// its line within a millisecond of its spawn) never starts for any of them.
describe("a run its flags, settings or credentials refuse, at any step before composing: no server ever started", () => {
  const shellProject = (local: Record<string, unknown> = {}) => {
    const logs = tempDir("yoke-prevar-sh-");
    const log = join(logs, "probe.jsonl");
    const { cwd, home } = project({ enableAllProjectMcpServers: true, ...local }, { command: "sh", args: ["-c", `echo "{\\"pid\\":$$}" >> '${log}'; exec sleep 30`] });
    return { cwd, home, logs };
  };
  // env: a function where it makes a folder, so the folder is made in the test that uses it (tempDir's cleanup).
  const refused: Array<[string, string[], RegExp, Record<string, unknown>?, (Record<string, string | undefined> | (() => Record<string, string | undefined>))?]> = [
    ["--max-turns that is not a whole number", ["--max-turns", "two"], /--max-turns must be a positive whole number/],
    ["--max-budget-usd that is not positive", ["--max-budget-usd", "-1"], /--max-budget-usd must be a positive number/],
    ["--agents that is not JSON", ["--agents", "{nope"], /--agents/],
    ["--agents that is a JSON list", ["--agents", "[]"], /--agents: expected a JSON object/],
    ["--json-schema that is not JSON", ["--json-schema", "{nope"], /--json-schema/],
    ["--json-schema naming no file", ["--json-schema", "missing-schema.json"], /--json-schema: cannot read/],
    // What zod's JSON Schema reader refuses (run-prelude.ts loads it only when the flag is given).
    ["--json-schema with a type zod does not know", ["--json-schema", '{"type":"object","properties":{"a":{"type":"nope"}}}'], /--json-schema: .*Unsupported type: nope/],
    ["--json-schema with a $ref to nothing", ["--json-schema", '{"type":"object","properties":{"a":{"$ref":"#/$defs/none"}}}'], /--json-schema: .*Reference not found/],
    ["--json-schema of a non-object type zod does not know", ["--json-schema", '{"type":"strng"}'], /--json-schema: .*Unsupported type: strng/],
    // Thinking and effort values (cli/model-wiring.ts checkModelFlags), from a flag, the env or settings.
    ["--effort that is no level", ["--effort", "galactic"], /--effort must be one of low, medium, high/],
    ["--thinking that is no mode", ["--thinking", "weird"], /--thinking must be adaptive, enabled or disabled/],
    ["--max-thinking-tokens that is not a number", ["--max-thinking-tokens", "abc"], /--max-thinking-tokens must be a whole number/],
    ["CLAUDE_CODE_EFFORT_LEVEL that is no level", [], /CLAUDE_CODE_EFFORT_LEVEL must be one of/, {}, { CLAUDE_CODE_EFFORT_LEVEL: "x" }],
    ["MAX_THINKING_TOKENS that is not a number", [], /MAX_THINKING_TOKENS must be a whole number/, {}, { MAX_THINKING_TOKENS: "x" }],
    ["CLAUDE_CODE_MAX_OUTPUT_TOKENS that is not a number", [], /CLAUDE_CODE_MAX_OUTPUT_TOKENS must be a positive whole number/, {}, { CLAUDE_CODE_MAX_OUTPUT_TOKENS: "abc" }],
    ["settings effortLevel that is no level", [], /settings "effortLevel" must be one of/, { effortLevel: "x" }],
    // A required sandbox whose program is missing (src/sandbox/deps.ts); bwrapPath is the organization's (managed) to set.
    ["sandbox.enabled with a managed bwrapPath that is no file", [], /the Bash sandbox was required \(sandbox settings\) but cannot start: sandbox\.bwrapPath \/nonexistent\/bwrap is not an executable file/, { sandbox: { enabled: true } }, () => ({ YOKE_SANDBOX: "", ...adminBwrap("/nonexistent/bwrap") })],
    ["YOKE_SANDBOX=1 with a managed bwrapPath that is a folder", [], /the Bash sandbox was required \(YOKE_SANDBOX=1\) but cannot start: sandbox\.bwrapPath \/ is not/, {}, () => ({ YOKE_SANDBOX: "1", ...adminBwrap("/") })],
    ["--agent naming a plugin agent when no plugin can load", ["--agent", "kit:nobody"], /--agent: no agent named "kit:nobody"/],
    ["--agent naming a plugin agent under --bare", ["--bare", "--agent", "kit:nobody"], /--agent: no agent named "kit:nobody"/],
    ["--agent naming no agent", ["--agent", "nobody"], /--agent: no agent named "nobody" \(known: .*general-purpose/],
    ["--agent naming an --agents entry that is skipped as broken", ["--agents", '{"half":{"description":"d"}}', "--agent", "half"], /--agent: no agent named "half"/],
    ["--agent naming an agent file that does not parse", ["--agent", "broken"], /--agent: no agent named "broken"/, { __agentFile: "broken" }],
    ["--system-prompt-file naming no file", ["--system-prompt-file", "missing-prompt.txt"], /--system-prompt-file: cannot read/],
    ["--append-system-prompt-file naming no file", ["--append-system-prompt-file", "missing-prompt.txt"], /--append-system-prompt-file: cannot read/],
    ["--fallback-model equal to the model", ["--model", "claude-sonnet-4-5", "--fallback-model", "claude-sonnet-4-5"], /--fallback-model must differ/],
    ["--session-id that is not a UUID", ["--session-id", "abc"], /--session-id must be a UUID/],
    ["--resume naming no session", ["--resume", "no-such-session"], /--resume/],
    ["--fork-session without --resume", ["--fork-session"], /--fork-session needs --resume/],
    ["--name that is empty", ["--name", " "], /--name needs a non-empty title/],
    ["auto mode that settings disable", ["--permission-mode", "auto"], /auto mode is disabled by settings/, { permissions: { disableAutoMode: "disable" } }],
    ["a settings file with a field of the wrong type", [], /invalid settings\n {2}field "permissions\.allow"/, { permissions: { allow: "Bash" } }],
    ["a hook handler of an unknown type", [], /invalid settings/, { hooks: { Stop: [{ hooks: [{ type: "shell", command: "x" }] }] } }],
    ["no credentials and no base URL", [], /no credentials/, {}, { ANTHROPIC_API_KEY: undefined, ANTHROPIC_AUTH_TOKEN: undefined, ANTHROPIC_BASE_URL: undefined }],
    ["an apiKeyHelper that fails", [], /apiKeyHelper failed/, { apiKeyHelper: "exit 3" }, { ANTHROPIC_API_KEY: undefined, ANTHROPIC_AUTH_TOKEN: undefined }],
    ["an ANTHROPIC_API_KEY that cannot be sent in a header", [], /ANTHROPIC_API_KEY contains/, {}, { ANTHROPIC_API_KEY: "sk-ant-…" }],
    ["an ANTHROPIC_BASE_URL that is not a URL", [], /ANTHROPIC_BASE_URL .* is not a URL/, {}, { ANTHROPIC_BASE_URL: "not a url" }],
  ];
  for (const [name, args, said, settings, env] of refused)
    test(name, async () => {
      const { __agentFile, ...rest } = settings ?? {};
      const { cwd, home, logs } = shellProject(rest);
      if (__agentFile) writeTree(cwd, { [`.claude/agents/${__agentFile}.md`]: "---\nname: broken\n---\nno description\n" });
      const r = await runWith(cwd, [say("ok")], args, { env: { HOME: home, ...(typeof env === "function" ? env() : env) } });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(said);
      expect(starts(logs)).toHaveLength(0);
    });

  test("the same flags and settings, once right: the server starts (the class above is not refused for another reason)", async () => {
    const { cwd, logs, home } = project({ enableAllProjectMcpServers: true, permissions: { allow: ["Bash"] }, hooks: { Stop: [{ hooks: [{ type: "command", command: "true" }] }] } });
    const r = await runWith(cwd, [say("ok")], ["--max-turns", "2", "--max-budget-usd", "1", "--agents", "{}", "--fallback-model", "claude-haiku-4-5", "--effort", "high", "--thinking", "enabled", "--max-thinking-tokens", "2000"], { env: { HOME: home } });
    expect(r.code).toBe(0);
    expect(starts(logs)).toHaveLength(1);
  });
});

describe("--agent and --json-schema checked before the spawn still let a right run start its server", () => {
  const agentProject = () => {
    const { cwd, logs, home } = project({ enableAllProjectMcpServers: true });
    writeTree(cwd, { ".claude/agents/rev.md": "---\nname: rev\ndescription: Reviews\n---\nREV-PROMPT\n" });
    writeTree(home, { ".claude/agents/mine.md": "---\nname: mine\ndescription: Mine\n---\nMINE-PROMPT\n" });
    writeTree(cwd, { "kit/.claude-plugin/plugin.json": JSON.stringify({ name: "kit", version: "1.0.0" }), "kit/agents/helper.md": "---\nname: helper\ndescription: Helps\n---\nHELP-PROMPT\n" });
    return { cwd, logs, home };
  };
  const right: Array<[string, string[], string?]> = [
    ["a project agent file", ["--agent", "rev"], "REV-PROMPT"],
    ["a user agent file, named in another case", ["--agent", "MINE"], "MINE-PROMPT"],
    ["a built-in agent", ["--agent", "general-purpose"]],
    ["an --agents entry", ["--agents", '{"flagged":{"description":"d","prompt":"FLAGGED-PROMPT"}}', "--agent", "flagged"], "FLAGGED-PROMPT"],
    // Plugins' agents join before compose looks the name up (it used to look before they joined and refuse them).
    ["a plugin's agent (plugin:name), checked once plugins load", ["--plugin-dir", "kit", "--agent", "kit:helper"], "HELP-PROMPT"],
  ];
  for (const [what, args, prompt] of right)
    test(what, async () => {
      const { cwd, logs, home } = agentProject();
      const r = await runWith(cwd, [say("ok")], args, { env: { HOME: home } });
      expect(r.code).toBe(0);
      expect(starts(logs)).toHaveLength(1);
      if (prompt) expect(JSON.stringify(r.requests[0]!.body.system)).toContain(prompt);
    });
  test("a --json-schema zod reads: the server starts and the StructuredOutput tool is offered", async () => {
    const { cwd, logs, home } = agentProject();
    const r = await runWith(cwd, [{ content: [{ type: "tool_use", name: "StructuredOutput", input: { a: "x" } }] }, say("ok")], ["--json-schema", '{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}'], { env: { HOME: home } });
    expect(r.code).toBe(0);
    expect(starts(logs)).toHaveLength(1);
    expect(r.requests[0]!.body.tools.map((t: { name: string }) => t.name)).toContain("StructuredOutput");
  });
});

describe("the server spawned in the prelude gets what the run decided: env, cwd and arguments", () => {
  test("session id, settings env (a coerced number too), project dir, entrypoint, expanded args and its own cwd", async () => {
    const logs = tempDir("yoke-prevar-env-");
    const sub = tempDir("yoke-prevar-sub-");
    const { cwd, home } = project(
      { enableAllProjectMcpServers: true, env: { FROM_SETTINGS: "yes", NUMERIC: 7, LOG_DIR: logs } },
      { command: "node", args: [PROBE, "${LOG_DIR}/probe.jsonl"], env: { OWN: "${FROM_SETTINGS}-1" }, cwd: sub },
    );
    const r = await runWith(cwd, [say("ok")], json, { env: { HOME: home } });
    expect(r.code).toBe(0);
    const s = starts(logs);
    expect(s).toHaveLength(1);
    const init = initOf(r.lines);
    expect(init.mcp_servers).toEqual([{ name: "probe", status: "connected" }]);
    expect(s[0]!.argv).toEqual([join(logs, "probe.jsonl")]);
    expect((s[0] as unknown as { cwd: string }).cwd).toBe(sub);
    expect(s[0]!.env).toMatchObject({
      CLAUDE_CODE_SESSION_ID: init.session_id,
      FROM_SETTINGS: "yes",
      NUMERIC: "7",
      OWN: "yes-1",
      CLAUDECODE: "1",
      CLAUDE_CODE_ENTRYPOINT: "sdk-cli",
      CLAUDE_PROJECT_DIR: cwd,
    });
  });
});

// Red team of the prelude (e761b8b): runs refused after compose used to spawn the server first. No prompt at all (the
// prompt is read before the prelude now) and a --rewind-files that cannot be done (checked in the prelude).
describe("a run without a prompt, or with a --rewind-files that cannot be done: no server ever started", () => {
  const shellProject = () => {
    const logs = tempDir("yoke-prevar-sh-");
    const log = join(logs, "probe.jsonl");
    const { cwd, home } = project({ enableAllProjectMcpServers: true }, { command: "sh", args: ["-c", `echo "{\\"pid\\":$$}" >> '${log}'; exec sleep 30`] });
    return { cwd, home, logs };
  };
  const refused: Array<[string, string[], RegExp, { prompt?: string; stdin?: string }]> = [
    ["an empty prompt and an empty stdin", [], /Input must be provided/, { prompt: "", stdin: "" }],
    ["an empty prompt and a stdin of blanks", [], /Input must be provided/, { prompt: "", stdin: " \n\t\n" }],
    ["--rewind-files without --resume", ["--rewind-files", "2f1b2c4e-0000-4000-8000-000000000000"], /--rewind-files needs --resume/, {}],
    ["--rewind-files with --continue and no session persistence", ["--rewind-files", "2f1b2c4e-0000-4000-8000-000000000000", "--continue", "--no-session-persistence"], /--rewind-files/, {}],
  ];
  for (const [name, args, said, o] of refused)
    test(name, async () => {
      const { cwd, home, logs } = shellProject();
      const r = await runWith(cwd, [say("ok")], args, { env: { HOME: home }, ...o });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(said);
      expect(starts(logs)).toHaveLength(0);
    });

  test("--resume of a real session with --rewind-files naming no turn of it", async () => {
    const { cwd, home, logs } = project({ enableAllProjectMcpServers: true });
    const first = await runWith(cwd, [say("ok")], json, { env: { HOME: home } });
    expect(first.code).toBe(0);
    const id = initOf(first.lines).session_id as string;
    const shell = shellProject();
    writeFileSync(join(cwd, ".mcp.json"), readFileSync(join(shell.cwd, ".mcp.json")));
    const r = await runWith(cwd, [say("ok")], ["--resume", id, "--rewind-files", "2f1b2c4e-0000-4000-8000-000000000000"], { env: { HOME: home } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("no checkpoint for user message 2f1b2c4e-0000-4000-8000-000000000000");
    expect(starts(shell.logs)).toHaveLength(0);
    expect(starts(logs)).toHaveLength(1);
  });

  test("the prompt on stdin, once there: the run answers and the server starts", async () => {
    const { cwd, home, logs } = project({ enableAllProjectMcpServers: true });
    const r = await runWith(cwd, [say("from stdin")], [], { env: { HOME: home }, prompt: "", stdin: "hello\n" });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("from stdin");
    expect(JSON.stringify(r.requests[0]?.body?.messages)).toContain("hello");
    expect(starts(logs)).toHaveLength(1);
  });
});
