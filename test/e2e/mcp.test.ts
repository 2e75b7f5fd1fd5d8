// Issue 13 end to end: MCP servers from .mcp.json / --mcp-config, run by the compiled binary against real servers.
import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { toolResultsOf } from "../helpers/fake-anthropic.ts";
import { yokeBin } from "../helpers/binary.ts";
import { hook, requestText, runWith, say, systemText } from "./hooks-helpers.ts";
import { call, everything, filesystem, mcpProject, tiny, toolNames } from "./mcp-helpers.ts";

// Real MCP servers (node packages) start in ~1 s alone and several seconds on a loaded 2-core machine.

beforeAll(() => {
  yokeBin();
});

const approved = (...names: string[]) => ({ enabledMcpjsonServers: names });

describe("configuration and stdio (issue 13 points 1–3)", () => {
  test("an approved .mcp.json server: its tools reach the model as mcp__server__tool, a call returns the server's answer, init lists it connected", async () => {
    const cwd = mcpProject({ everything: everything() }, approved("everything"));
    const r = await runWith(cwd, [call("mcp__everything__echo", { message: "hello mcp" }), say("done")], ["--output-format", "stream-json", "--verbose"]);
    expect(r.code).toBe(0);
    const init = r.lines!.find((l) => l.type === "system" && l.subtype === "init");
    // contracts §4.4: system/init mcp_servers is [{name, status}]
    expect(init.mcp_servers).toEqual([{ name: "everything", status: "connected" }]);
    expect(init.tools).toContain("mcp__everything__echo");
    expect(toolNames(r.requests[0]!)).toContain("mcp__everything__echo");
    const schema = r.requests[0]!.body.tools.find((t: any) => t.name === "mcp__everything__echo").input_schema;
    expect(schema.properties.message).toBeDefined();
    const [res] = toolResultsOf(r.requests[1]!);
    expect(res).toMatchObject({ is_error: false, text: "Echo: hello mcp" });
  });

  test("an unapproved project server is not started: said once on stderr, listed as disabled, its tools unknown to the model", async () => {
    const cwd = mcpProject({ everything: everything() });
    const r = await runWith(cwd, [call("mcp__everything__echo", { message: "x" }), say("ok")], ["--output-format", "stream-json", "--verbose"]);
    expect(r.code).toBe(0);
    const init = r.lines!.find((l) => l.subtype === "init");
    expect(init.mcp_servers).toEqual([{ name: "everything", status: "disabled" }]);
    expect(r.stderr.match(/project server "everything"/g)).toHaveLength(1);
    expect(r.stderr).toContain("enabledMcpjsonServers");
    expect(toolResultsOf(r.requests[1]!)[0]!.text).toContain("No such tool available: mcp__everything__echo");
  });

  test("approval keys: disabledMcpjsonServers wins over enableAllProjectMcpServers; committed project settings cannot approve their own servers", async () => {
    let cwd = mcpProject({ a: tiny("ok"), b: tiny("ok") }, { enableAllProjectMcpServers: true, disabledMcpjsonServers: ["b"] });
    let r = await runWith(cwd, [say("ok")], ["--output-format", "stream-json", "--verbose"]);
    expect(r.lines!.find((l) => l.subtype === "init").mcp_servers).toEqual([
      { name: "b", status: "disabled" },
      { name: "a", status: "connected" },
    ]);
    cwd = mcpProject({ a: tiny("ok") });
    await Bun.write(join(cwd, ".claude", "settings.json"), JSON.stringify({ enableAllProjectMcpServers: true }));
    r = await runWith(cwd, [say("ok")], ["--output-format", "stream-json", "--verbose"]);
    expect(r.lines!.find((l) => l.subtype === "init").mcp_servers).toEqual([{ name: "a", status: "disabled" }]);
  });

  test("--mcp-config (JSON and file, repeatable) with ${VAR:-default}; --strict-mcp-config drops .mcp.json and user servers", async () => {
    const cwd = mcpProject({ proj: tiny("ok") }, approved("proj"));
    const file = join(cwd, "extra.json");
    writeFileSync(file, JSON.stringify({ mcpServers: { fromfile: { command: "${NODE_BIN:-node}", args: tiny("ok").args } } }));
    const json = JSON.stringify({ mcpServers: { inline: tiny("ok") } });
    let r = await runWith(cwd, [say("ok")], ["--output-format", "stream-json", "--verbose", "--mcp-config", json, "--mcp-config", "extra.json"]);
    expect(r.lines!.find((l) => l.subtype === "init").mcp_servers.map((s: any) => `${s.name}:${s.status}`).sort()).toEqual([
      "fromfile:connected",
      "inline:connected",
      "proj:connected",
    ]);
    r = await runWith(cwd, [say("ok")], ["--output-format", "stream-json", "--verbose", "--mcp-config", json, "--strict-mcp-config"]);
    expect(r.lines!.find((l) => l.subtype === "init").mcp_servers).toEqual([{ name: "inline", status: "connected" }]);
  });

  test("a missing ${VAR} and a broken entry are named (file, field, variable) and the run goes on", async () => {
    const cwd = mcpProject({ needs: { command: "${NOPE_NOT_SET}" }, broken: { type: "http" } }, { enableAllProjectMcpServers: true });
    const r = await runWith(cwd, [say("fine")], []);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("fine\n");
    expect(r.stderr).toContain("missing environment variables: NOPE_NOT_SET");
    expect(r.stderr).toContain(`${join(cwd, ".mcp.json")}: mcpServers.broken: field "url"`);
  });

  test("user scope from yoke's mcp.json and Claude Code's ~/.claude.json (user and per-project local entries)", async () => {
    const cwd = mcpProject({});
    const r = await runWith(cwd, [say("ok")], ["--output-format", "stream-json", "--verbose"]);
    expect(r.lines!.find((l) => l.subtype === "init").mcp_servers).toEqual([]);
    const home = r.env.HOME!;
    writeFileSync(join(home, ".claude", ".claude.json"), JSON.stringify({ mcpServers: { cc: tiny("ok") }, projects: { [cwd]: { mcpServers: { cclocal: tiny("ok") } } } }));
    writeFileSync(join(home, ".yoke", "mcp.json"), JSON.stringify({ mcpServers: { mine: tiny("ok") } }));
    const r2 = await runWith(cwd, [say("ok")], ["--output-format", "stream-json", "--verbose"], { env: { HOME: home } });
    expect(r2.lines!.find((l) => l.subtype === "init").mcp_servers.map((s: any) => `${s.name}:${s.status}`)).toEqual([
      "cc:connected",
      "mine:connected",
      "cclocal:connected",
    ]);
  });
});

describe("permissions and hooks on MCP tools (issue 13 point 3)", () => {
  test("a tool without readOnlyHint is denied headless; mcp__server, mcp__server__* and the exact name allow it; a deny rule hides it", async () => {
    const cwd = mcpProject({}, approved("fs"));
    // the filesystem server is allowed into the project folder only
    writeFileSync(join(cwd, ".mcp.json"), JSON.stringify({ mcpServers: { fs: filesystem(cwd) } }));
    const target = join(cwd, "made.txt");
    const write = call("mcp__fs__write_file", { path: target, content: "via mcp" });
    let r = await runWith(cwd, [write, say("no")], ["--output-format", "json"]);
    expect(existsSync(target)).toBe(false);
    expect(r.json.permission_denials).toHaveLength(1);
    expect(r.json.permission_denials[0].tool_name).toBe("mcp__fs__write_file");
    for (const rule of ["mcp__fs", "mcp__fs__*", "mcp__fs__write_file"]) {
      r = await runWith(cwd, [write, say("yes")], ["--output-format", "json", "--allowedTools", rule]);
      expect(readFileSync(target, "utf8")).toBe("via mcp");
      expect(r.json.permission_denials).toEqual([]);
      Bun.spawnSync(["rm", "-f", target]);
    }
    r = await runWith(cwd, [say("ok")], ["--output-format", "json", "--disallowedTools", "mcp__fs__write_file"]);
    expect(toolNames(r.requests[0]!)).not.toContain("mcp__fs__write_file");
    expect(toolNames(r.requests[0]!)).toContain("mcp__fs__read_text_file");
  }, 60_000);

  test("readOnlyHint tools run without a rule (read-only for the evaluator)", async () => {
    const cwd = mcpProject({ t: tiny("ok") }, approved("t"));
    const r = await runWith(cwd, [call("mcp__t__add", { a: 2, b: 40 }), say("ok")], ["--output-format", "json"]);
    expect(toolResultsOf(r.requests[1]!)[0]).toMatchObject({ is_error: false, text: "42" });
    expect(r.json.permission_denials).toEqual([]);
  });

  test("PreToolUse matcher mcp__t__.* fires with the MCP tool name and can block; an exact mcp__t matcher matches nothing", async () => {
    const cwd = mcpProject({ t: tiny("ok") }, approved("t"));
    const log = join(cwd, "hook.log");
    const settings = {
      hooks: {
        ...hook("PreToolUse", `cat >> ${log}; echo >> ${log}; echo "no adding today" >&2; exit 2`, "mcp__t__.*"),
        PostToolUse: [{ matcher: "mcp__t", hooks: [{ type: "command", command: `echo never >> ${log}.post` }] }],
      },
    };
    await Bun.write(join(cwd, ".claude", "settings.json"), JSON.stringify(settings));
    const r = await runWith(cwd, [call("mcp__t__add", { a: 1, b: 1 }), say("blocked")], ["--output-format", "json"]);
    const payload = JSON.parse(readFileSync(log, "utf8").trim());
    expect(payload).toMatchObject({ hook_event_name: "PreToolUse", tool_name: "mcp__t__add", tool_input: { a: 1, b: 1 } });
    expect(toolResultsOf(r.requests[1]!)[0]!.text).toContain("no adding today");
    expect(existsSync(`${log}.post`)).toBe(false);
  });
});

describe("results (issue 13 point 3)", () => {
  test("images come back as image blocks, isError as is_error, long output is cut at MAX_MCP_OUTPUT_TOKENS with a note, a long-running tool finishes", async () => {
    const cwd = mcpProject({ everything: everything() }, approved("everything"));
    const r = await runWith(
      cwd,
      [
        {
          content: [
            { type: "tool_use", name: "mcp__everything__get-tiny-image", input: {} },
            { type: "tool_use", name: "mcp__everything__echo", input: { message: "x".repeat(5000) } },
            { type: "tool_use", name: "mcp__everything__get-sum", input: { a: "not a number" } },
            { type: "tool_use", name: "mcp__everything__trigger-long-running-operation", input: { duration: 0.4, steps: 2 } },
          ],
        },
        say("ok"),
      ],
      ["--output-format", "json"],
      { env: { MAX_MCP_OUTPUT_TOKENS: "500" } },
    );
    const blocks = r.requests[1]!.body.messages.at(-1).content;
    const image = blocks[0];
    expect(image.content.some((c: any) => c.type === "image" && c.source.media_type === "image/png")).toBe(true);
    const echo = toolResultsOf(r.requests[1]!)[1]!;
    expect(echo.text.length).toBeLessThan(2600);
    expect(echo.text).toContain("MAX_MCP_OUTPUT_TOKENS");
    expect(toolResultsOf(r.requests[1]!)[2]!.is_error).toBe(true);
    // a long-running tool that reports progress as it goes ends with its answer
    expect(toolResultsOf(r.requests[1]!)[3]!.text).toContain("Long running operation completed. Duration: 0.4 seconds, Steps: 2.");
  });
});

test("hostile servers: never answers initialize, exits at once, garbage on stdout, hangs in a call — the run goes on and names each", async () => {
  const cwd = mcpProject(
    { silent: tiny("never-init"), quits: tiny("exit"), noisy: tiny("garbage"), stuck: tiny("hang"), good: tiny("ok") },
    { enableAllProjectMcpServers: true },
  );
  const r = await runWith(cwd, [call("mcp__stuck__add", { a: 1, b: 2 }), call("mcp__good__add", { a: 1, b: 2 }), say("survived")], ["--output-format", "stream-json", "--verbose"], {
    // Wide enough for five node servers starting at once on a loaded machine, and for good's call to answer.
    env: { MCP_TIMEOUT: "6000", MCP_TOOL_TIMEOUT: "3000" },
  });
  expect(r.code).toBe(0);
  const statuses = Object.fromEntries(r.lines!.find((l) => l.subtype === "init").mcp_servers.map((s: any) => [s.name, s.status]));
  expect(statuses).toEqual({ silent: "failed", quits: "failed", noisy: "failed", stuck: "connected", good: "connected" });
  expect(r.stderr).toContain(`MCP server "silent" failed to connect: no answer to initialize within 6000 ms (MCP_TIMEOUT)`);
  expect(r.stderr).toContain(`MCP server "quits" failed to connect: the process exited with code 7`);
  expect(r.stderr).toContain("missing TOKEN");
  expect(r.stderr).toMatch(/MCP server "noisy" failed to connect: .*non-JSON-RPC output on stdout: "Starting server/);
  expect(toolResultsOf(r.requests[1]!)[0]).toMatchObject({ is_error: true });
  expect(toolResultsOf(r.requests[1]!)[0]!.text).toContain(`MCP server "stuck" did not answer add within 3000 ms (MCP_TOOL_TIMEOUT)`);
  expect(toolResultsOf(r.requests[2]!)[0]!.text).toBe("3");
  expect(r.lines!.at(-1)).toMatchObject({ type: "result", result: "survived" });
});

test("a server that crashes mid-session is reported and reconnected on the next call; list_changed refreshes the tools", async () => {
  const cwd = mcpProject({ t: tiny("ok") }, approved("t"));
  const r = await runWith(
    cwd,
    [call("mcp__t__crash"), call("mcp__t__add", { a: 20, b: 22 }), call("mcp__t__grow"), call("mcp__t__extra"), say("ok")],
    ["--output-format", "json", "--allowedTools", "mcp__t"],
  );
  expect(toolResultsOf(r.requests[1]!)[0]!.is_error).toBe(true);
  expect(r.stderr).toContain(`MCP server "t" the server went away (exit code 9)`);
  expect(toolResultsOf(r.requests[2]!)[0]).toMatchObject({ is_error: false, text: "42" });
  expect(toolNames(r.requests[2]!)).not.toContain("mcp__t__extra");
  // the request right after the call that changed the list already carries the new tool
  expect(toolNames(r.requests[3]!)).toContain("mcp__t__extra");
  expect(requestText(r.requests[3]!)).toContain("grown");
  expect(toolResultsOf(r.requests[4]!)[0]!.text).toBe("extra works");
  expect(systemText(r.requests[0]!)).not.toContain("Deferred tools");
});

describe("deferred schemas through ToolSearch (seed 000, issue 13 point 4)", () => {
  test("ENABLE_TOOL_SEARCH=true: names only in the system prompt, ToolSearch select: loads the schema for the next request", async () => {
    const cwd = mcpProject({ t: tiny("ok") }, approved("t"));
    const r = await runWith(
      cwd,
      [call("ToolSearch", { query: "select:mcp__t__add" }), call("mcp__t__add", { a: 1, b: 2 }), say("ok")],
      ["--output-format", "stream-json", "--verbose"],
      { env: { ENABLE_TOOL_SEARCH: "true" } },
    );
    expect(r.code).toBe(0);
    const first = toolNames(r.requests[0]!);
    expect(first).toContain("ToolSearch");
    expect(first.filter((n) => n.startsWith("mcp__"))).toEqual([]);
    expect(systemText(r.requests[0]!)).toContain("mcp__t__add");
    expect(systemText(r.requests[0]!)).toContain("mcp__t__grow");
    expect(toolResultsOf(r.requests[1]!)[0]!.text).toContain("mcp__t__add");
    expect(toolNames(r.requests[1]!)).toContain("mcp__t__add");
    expect(toolNames(r.requests[1]!)).not.toContain("mcp__t__grow");
    expect(toolResultsOf(r.requests[2]!)[0]!.text).toBe("3");
    // init still lists every tool by name (contracts §4.4 tools)
    expect(r.lines!.find((l) => l.subtype === "init").tools).toContain("mcp__t__grow");
  });

  test("keyword search finds by name and description; auto defers only past the share of the window (auto:0 always, default not for 3 tools)", async () => {
    const cwd = mcpProject({ t: tiny("ok") }, approved("t"));
    let r = await runWith(cwd, [call("ToolSearch", { query: "adds numbers" }), say("ok")], [], { env: { ENABLE_TOOL_SEARCH: "auto:0" } });
    expect(toolNames(r.requests[1]!)).toContain("mcp__t__add");
    expect(toolNames(r.requests[1]!)).not.toContain("mcp__t__crash");
    r = await runWith(cwd, [say("ok")], []);
    expect(toolNames(r.requests[0]!)).toContain("mcp__t__add");
    expect(toolNames(r.requests[0]!)).not.toContain("ToolSearch");
    r = await runWith(cwd, [say("ok")], [], { env: { ENABLE_TOOL_SEARCH: "false" } });
    expect(toolNames(r.requests[0]!)).not.toContain("ToolSearch");
  });
});

test("resources: ListMcpResourcesTool lists server-everything's resources, ReadMcpResourceTool reads one (issue 13 point 5)", async () => {
  const cwd = mcpProject({ everything: everything() }, approved("everything"));
  let uri = "";
  const r = await runWith(
    cwd,
    [
      call("ListMcpResourcesTool", {}),
      (req) => {
        const listed = JSON.parse(toolResultsOf(req)[0]!.text) as Array<{ uri: string; server: string; mimeType?: string }>;
        uri = listed.find((x) => x.mimeType?.startsWith("text/"))?.uri ?? listed[0]!.uri;
        return call("ReadMcpResourceTool", { server: "everything", uri });
      },
      say("ok"),
    ],
    ["--output-format", "json"],
  );
  expect(r.code).toBe(0);
  expect(uri).not.toBe("");
  const read = toolResultsOf(r.requests[2]!)[0]!;
  expect(read.is_error).toBe(false);
  expect(read.text.length).toBeGreaterThan(0);
  expect(r.json.permission_denials).toEqual([]);
});

test("a plugin's .mcp.json and plugin.json mcpServers start with ${CLAUDE_PLUGIN_ROOT}; tools are mcp__plugin_<plugin>_<server>__<tool>", async () => {
  const cwd = mcpProject({});
  const plug = join(cwd, "plug");
  const server = readFileSync(tiny("ok").args[0]!, "utf8");
  await Bun.write(join(plug, "bin", "server.mjs"), server);
  await Bun.write(join(plug, ".claude-plugin", "plugin.json"), JSON.stringify({ name: "myplug", mcpServers: { inline: { command: "node", args: ["${CLAUDE_PLUGIN_ROOT}/bin/server.mjs", "ok"] } } }));
  await Bun.write(join(plug, ".mcp.json"), JSON.stringify({ mcpServers: { tiny: { command: "node", args: ["${CLAUDE_PLUGIN_ROOT}/bin/server.mjs", "ok"] } } }));
  const r = await runWith(cwd, [call("mcp__plugin_myplug_tiny__add", { a: 5, b: 5 }), say("ok")], ["--output-format", "stream-json", "--verbose", "--plugin-dir", plug]);
  expect(r.code).toBe(0);
  const init = r.lines!.find((l) => l.subtype === "init");
  expect(init.mcp_servers.map((s: any) => `${s.name}:${s.status}`).sort()).toEqual(["plugin:myplug:inline:connected", "plugin:myplug:tiny:connected"]);
  expect(toolResultsOf(r.requests[1]!)[0]!.text).toBe("10");
});

describe("MCP prompts and resource mentions in -p (issue 13 point 5)", () => {
  test("/mcp__everything__args-prompt Paris sends the server's prompt; init lists the prompt commands; @server:uri attaches the resource", async () => {
    const cwd = mcpProject({ everything: everything() }, approved("everything"));
    let r = await runWith(cwd, [say("ok")], ["--output-format", "stream-json", "--verbose"], { prompt: "/mcp__everything__args-prompt Paris Texas" });
    expect(r.code).toBe(0);
    const init = r.lines!.find((l) => l.subtype === "init");
    expect(init.slash_commands).toContain("mcp__everything__args-prompt");
    expect(init.slash_commands).toContain("mcp__everything__simple-prompt");
    expect(requestText(r.requests[0]!)).toContain("What's weather in Paris, Texas?");
    expect(requestText(r.requests[0]!)).not.toContain("/mcp__everything__args-prompt");

    r = await runWith(cwd, [say("ok")], [], { prompt: "summarise @everything:demo://resource/static/document/architecture.md please" });
    const text = requestText(r.requests[0]!);
    expect(text).toContain("summarise @everything:demo://resource/static/document/architecture.md please");
    expect(text).toContain('<mcp-resource server="everything" uri="demo://resource/static/document/architecture.md">');
    expect(text.length).toBeGreaterThan(500);
    // Two runs of the binary, each starting the everything server: more than the 5 s default on a loaded machine.
  }, 60_000);

  test("a prompt missing a required argument, or a failing one, is named on stderr and the input goes on unchanged; ordinary @text is untouched", async () => {
    const cwd = mcpProject({ everything: everything() }, approved("everything"));
    let r = await runWith(cwd, [say("ok")], [], { prompt: "/mcp__everything__args-prompt" });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("/mcp__everything__args-prompt needs city (arguments in order: city state)");
    expect(requestText(r.requests[0]!)).toContain("/mcp__everything__args-prompt");
    r = await runWith(cwd, [say("ok")], [], { prompt: "/mcp__everything__resource-prompt Nope 1" });
    expect(r.stderr).toContain("/mcp__everything__resource-prompt: MCP error -32603");
    r = await runWith(cwd, [say("ok")], [], { prompt: "mail me@example.com about @nobody:x" });
    expect(r.stderr).toBe("");
    expect(requestText(r.requests[0]!)).toContain("mail me@example.com about @nobody:x");
    expect(requestText(r.requests[0]!)).not.toContain("<mcp-resource");
    // Three runs of the binary, each starting server-everything: seconds apiece on a loaded machine.
  }, 60_000);
});
