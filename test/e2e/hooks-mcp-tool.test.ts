// Issue 13 (review point 2): `mcp_tool` hooks (contracts §1.2: `server`, `tool`, `input`; `${path}` interpolation),
// through the compiled binary. What is matched was observed side by side in 2.1.332 with the same fixture server:
// the tool's text is the hook's stdout and goes through the command hooks' JSON decision rules; `${tool_input.x}`,
// `${tool_input}` (JSON), `${session_id}` and nested values are filled in, an unknown path is ""; an isError result is
// exit 1 (non-blocking); a server that is not connected is exit 1 with "MCP server 'NAME' not connected".
import { beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { toolResultsOf } from "../helpers/fake-anthropic.ts";
import { runYoke, yokeBin } from "../helpers/binary.ts";
import { bashCall, project, requestText, runWith, say } from "./hooks-helpers.ts";
import { repoRoot } from "../helpers/binary.ts";

setDefaultTimeout(60_000);
beforeAll(() => void yokeBin());

/** A project whose settings hold `hooks`, with the hook fixture server `h` logging to hook.log. */
function setup(hooks: Record<string, unknown>) {
  const cwd = project({ hooks });
  const log = join(cwd, "hook.log");
  const cfg = JSON.stringify({ mcpServers: { h: { command: "node", args: [join(repoRoot(), "test", "fixtures", "mcp", "hook-server.mjs")], env: { HOOK_LOG: log } } } });
  const calls = () => (existsSync(log) ? readFileSync(log, "utf8").trim().split("\n").map((l) => JSON.parse(l)) : []);
  const run = (replies: Parameters<typeof runWith>[1], extra: string[] = []) =>
    runWith(cwd, replies, ["--output-format", "stream-json", "--verbose", "--mcp-config", cfg, "--allowedTools", "Bash", ...extra]);
  return { cwd, calls, run };
}

const mcpHook = (input: Record<string, unknown>, more: Record<string, unknown> = {}) => ({ type: "mcp_tool", server: "h", tool: "respond", input, ...more });
const deny = JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "no via mcp" } });

test("PreToolUse: the tool's JSON denies the call; the input is filled from the payload", async () => {
  const s = setup({
    PreToolUse: [{ matcher: "Bash", hooks: [mcpHook({ reply: deny, cmd: "${tool_input.command}", all: "${tool_input}", nested: { x: ["${tool_input.command}"] }, sid: "${session_id}", un: "${tool_input.nope}", n: 3 })] }],
  });
  const r = await s.run([bashCall("echo hi"), say("done")]);
  expect(r.code).toBe(0);
  expect(toolResultsOf(r.requests[1]!)[0]).toMatchObject({ text: "PreToolUse:Bash hook error: no via mcp", is_error: true });
  const sid = r.lines!.find((l) => l.subtype === "init").session_id;
  expect(s.calls()).toEqual([{ reply: deny, cmd: "echo hi", all: '{"command":"echo hi"}', nested: { x: ["echo hi"] }, sid, un: "", n: 3 }]);
});

test("SessionStart and PostToolUse: additionalContext from the tool reaches the model; two mcp_tool hooks on one event both run", async () => {
  const ctx = (event: string, text: string) => JSON.stringify({ hookSpecificOutput: { hookEventName: event, additionalContext: text } });
  const s = setup({
    SessionStart: [{ hooks: [mcpHook({ reply: ctx("SessionStart", "started-via-mcp") })] }],
    PostToolUse: [{ matcher: "Bash", hooks: [mcpHook({ reply: ctx("PostToolUse", "post-via-mcp"), out: "${tool_response.stdout}" }), mcpHook({ second: true })] }],
  });
  const r = await s.run([bashCall("echo hi"), say("done")]);
  expect(r.code).toBe(0);
  expect(requestText(r.requests[0]!)).toContain("started-via-mcp");
  expect(requestText(r.requests[1]!)).toContain("post-via-mcp");
  const calls = s.calls();
  expect(calls).toHaveLength(3);
  expect(calls).toContainEqual({ reply: ctx("PostToolUse", "post-via-mcp"), out: "hi" });
  expect(calls).toContainEqual({ second: true });
});

test("failures are non-blocking and named (isError, unknown server, unknown tool, timeout); onFailure block blocks", async () => {
  const s = setup({
    PreToolUse: [
      {
        matcher: "Bash",
        hooks: [
          mcpHook({ reply: "tool said error", is_error: true }),
          { type: "mcp_tool", server: "nope", tool: "respond", input: {} },
          { type: "mcp_tool", server: "h", tool: "nosuch", input: {} },
          { type: "mcp_tool", server: "h" },
        ],
      },
    ],
    // A PreToolUse guard that times out fails closed in yoke (issue 16.8), so the timeout case runs after the tool.
    PostToolUse: [{ matcher: "Bash", hooks: [{ type: "mcp_tool", server: "h", tool: "hang", input: {}, timeout: 1 }] }],
  });
  const r = await s.run([bashCall("echo hi"), say("done")]);
  expect(r.code).toBe(0);
  expect(toolResultsOf(r.requests[1]!)[0]).toMatchObject({ text: "hi", is_error: false });
  const settings = join(s.cwd, ".claude", "settings.json");
  expect(r.stderr).toContain(`mcp_tool hook h/respond (${settings}) failed with non-blocking status code 1: tool said error`);
  expect(r.stderr).toContain(`mcp_tool hook nope/respond (${settings}) failed with non-blocking status code 1: MCP server 'nope' not connected`);
  expect(r.stderr).toContain('MCP server "h" failed on nosuch');
  expect(r.stderr).toContain(`mcp_tool hook h/hang (${settings}) timed out after 1 s`);
  expect(r.stderr).toContain('an mcp_tool hook needs "server" and "tool"');

  const b = setup({ PreToolUse: [{ matcher: "Bash", hooks: [{ type: "mcp_tool", server: "nope", tool: "respond", input: {}, onFailure: "block" }] }] });
  const rb = await b.run([bashCall("echo hi"), say("done")]);
  const res = toolResultsOf(rb.requests[1]!)[0]!;
  expect(res.is_error).toBe(true);
  expect(res.text).toContain("MCP server 'nope' not connected");
});

test("`yoke hooks list` lists mcp_tool hooks as runnable; prompt ones with the reason they are not", async () => {
  const cwd = project({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [mcpHook({}), { type: "prompt", prompt: "ok?" }] }] } });
  const r = await runYoke(["hooks", "list", "--json"], { cwd, env: { YOKE_TRUST_WORKSPACE: "1" } });
  expect(r.code).toBe(0);
  const rows = JSON.parse(r.stdout) as Array<{ type: string; note?: string; command: string }>;
  expect(rows.find((x) => x.type === "mcp_tool")).toMatchObject({ command: "h/respond" });
  expect(rows.find((x) => x.type === "mcp_tool")!.note).toBeUndefined();
  expect(rows.find((x) => x.type === "prompt")!.note).toContain("not supported");
});
