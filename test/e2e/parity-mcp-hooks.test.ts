// Issue 17 point 5, the MCP part: hook payloads of MCP tool calls as Claude Code 2.1.332 sends them (observed in
// 2.1.332 with the tiny stdio server: PreToolUse, PermissionRequest, PostToolUse and PostToolUseFailure end with
// `mcp_server: {name, source}`, source the config scope: `project` for .mcp.json, `dynamic` for --mcp-config;
// contracts §1.4), and `mcp__server__.*` / exact-name matchers (contracts §1.3).
import { beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { yokeBin } from "../helpers/binary.ts";
import { bashCall, runWith, say } from "./hooks-helpers.ts";
import { call, mcpProject, tiny } from "./mcp-helpers.ts";

// Each test runs the compiled binary (some several times): seconds apiece on a loaded 2-core machine.

beforeAll(() => void yokeBin());

const COMMON = ["session_id", "transcript_path", "cwd", "prompt_id", "permission_mode", "effort", "hook_event_name"];

/** Settings whose hooks append every payload of these events (for this matcher) to hook.log. */
function logging(cwd: string, events: string[], matcher: string) {
  const log = join(cwd, "hook.log");
  const h = { matcher, hooks: [{ type: "command", command: `cat >> ${log}; echo >> ${log}` }] };
  return { hooks: Object.fromEntries(events.map((e) => [e, [h]])), read: () => readFileSync(log, "utf8").trim().split("\n").map((l) => JSON.parse(l)) };
}

describe("MCP tool hook payloads (issue 17.5, observed in 2.1.332)", () => {
  test(".mcp.json server: PreToolUse and PostToolUse end with mcp_server {name, source: project}; a built-in tool's do not", async () => {
    const cwd = mcpProject({ t: tiny("ok") }, { enabledMcpjsonServers: ["t"] });
    const l = logging(cwd, ["PreToolUse", "PostToolUse"], "mcp__t__.*|Bash");
    await Bun.write(join(cwd, ".claude", "settings.json"), JSON.stringify({ hooks: l.hooks }));
    const r = await runWith(cwd, [call("mcp__t__add", { a: 1, b: 2 }), bashCall("echo hi"), say("done")], ["--allowedTools", "mcp__t__add,Bash"]);
    expect(r.code).toBe(0);
    const [pre, post, bashPre, bashPost] = l.read();
    expect(Object.keys(pre)).toEqual([...COMMON, "tool_name", "tool_input", "tool_use_id", "mcp_server"]);
    expect(pre).toMatchObject({ tool_name: "mcp__t__add", mcp_server: { name: "t", source: "project" } });
    expect(Object.keys(post)).toEqual([...COMMON, "tool_name", "tool_input", "tool_response", "tool_use_id", "duration_ms", "mcp_server"]);
    expect(post.mcp_server).toEqual({ name: "t", source: "project" });
    expect(bashPre.tool_name).toBe("Bash");
    expect("mcp_server" in bashPre || "mcp_server" in bashPost).toBe(false);
  });

  test("--mcp-config server: source dynamic, also on PermissionRequest (after permission_suggestions) and PostToolUseFailure", async () => {
    const cwd = mcpProject({});
    const l = logging(cwd, ["PermissionRequest", "PostToolUseFailure"], "mcp__tiny__(grow|crash)");
    await Bun.write(join(cwd, ".claude", "settings.json"), JSON.stringify({ hooks: l.hooks }));
    const cfg = JSON.stringify({ mcpServers: { tiny: tiny("ok") } });
    const r = await runWith(cwd, [call("mcp__tiny__grow"), call("mcp__tiny__crash"), say("done")], ["--mcp-config", cfg, "--allowedTools", "mcp__tiny__crash"]);
    expect(r.code).toBe(0);
    const seen = l.read();
    const perm = seen.find((p) => p.hook_event_name === "PermissionRequest");
    expect(Object.keys(perm)).toEqual([...COMMON, "tool_name", "tool_input", "permission_suggestions", "mcp_server"]);
    expect(perm.mcp_server).toEqual({ name: "tiny", source: "dynamic" });
    const fail = seen.find((p) => p.hook_event_name === "PostToolUseFailure");
    expect(fail).toMatchObject({ tool_name: "mcp__tiny__crash", is_interrupt: false, mcp_server: { name: "tiny", source: "dynamic" } });
    expect(Object.keys(fail).at(-1)).toBe("mcp_server");
  });
});
