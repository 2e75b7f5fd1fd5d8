// The Agent SDK control pieces that need no process (issue 15; contracts §4.6, §4.7).
import { describe, expect, test } from "bun:test";
import { applyInitialize, readInitialize, SDK_DEFAULT_SYSTEM_PROMPT } from "../../src/cli/control/initialize.ts";
import { applyPermissionUpdates, permissionSuggestions, ruleValue } from "../../src/cli/control/can-use-tool.ts";
import { controlTransport } from "../../src/cli/control/sdk-mcp.ts";
import { stdinSession } from "../../src/cli/stdin.ts";
import type { ParsedArgs } from "../../src/cli/args.ts";

const args = (flags: ParsedArgs["flags"] = {}): ParsedArgs => ({ flags, positionals: [] });

describe("initialize", () => {
  test("every field is read; events yoke does not fire are set apart, not refused", () => {
    const init = readInitialize({
      subtype: "initialize",
      hooks: { PreToolUse: [{ matcher: "Bash", hookCallbackIds: ["hook_0"], timeout: 5 }], NoSuchEvent: [{ hookCallbackIds: ["hook_1"] }] },
      sdkMcpServers: ["calc"],
      systemPrompt: ["a", "b"],
      appendSystemPrompt: "more",
      agents: { r: { description: "d", prompt: "p" } },
      jsonSchema: { type: "object" },
    });
    expect(init.hooks.PreToolUse).toEqual([{ matcher: "Bash", hookCallbackIds: ["hook_0"], timeout: 5 }]);
    expect(init.unknownEvents).toEqual(["NoSuchEvent"]);
    expect(init.sdkMcpServers).toEqual(["calc"]);
  });

  test.each([
    [{ hooks: [] }, '"hooks" must be an object'],
    [{ hooks: { Stop: {} } }, '"hooks.Stop" must be an array'],
    [{ hooks: { Stop: [{ hookCallbackIds: [1] }] } }, '"hooks.Stop[0].hookCallbackIds" must be an array of strings'],
    [{ hooks: { Stop: [{ hookCallbackIds: [], timeout: -1 }] } }, '"hooks.Stop[0].timeout" must be a positive number'],
    [{ sdkMcpServers: "calc" }, '"sdkMcpServers" must be an array'],
    [{ systemPrompt: 3 }, '"systemPrompt" must be a string or an array'],
    [{ agents: [] }, '"agents" must be an object'],
    [{ jsonSchema: "x" }, '"jsonSchema" must be a JSON Schema object'],
  ])("bad field %j is named", (req, msg) => {
    expect(() => readInitialize({ subtype: "initialize", ...req })).toThrow(msg);
  });

  test("the SDK's empty prompt becomes its one line; a command-line prompt wins; agents merge, initialize's last", () => {
    const a = args({ agents: '{"x":{"description":"from flag","prompt":"p"},"y":{"description":"y","prompt":"p"}}' });
    applyInitialize(readInitialize({ systemPrompt: [""], agents: { x: { description: "from host", prompt: "q" } }, jsonSchema: { type: "object" } }), a);
    expect(a.flags["system-prompt"]).toBe(SDK_DEFAULT_SYSTEM_PROMPT);
    expect(JSON.parse(a.flags.agents as string)).toMatchObject({ x: { description: "from host" }, y: { description: "y" } });
    expect(JSON.parse(a.flags["json-schema"] as string)).toEqual({ type: "object" });
    const b = args({ "system-prompt": "mine" });
    applyInitialize(readInitialize({ systemPrompt: ["theirs"], appendSystemPrompt: "tail" }), b);
    expect(b.flags["system-prompt"]).toBe("mine");
    expect(b.flags["append-system-prompt"]).toBe("tail");
  });
});

describe("can_use_tool", () => {
  test("suggestions: acceptEdits for edits, the allow rule otherwise", () => {
    expect(permissionSuggestions("Write", { file_path: "/p/a" }, "/p")).toEqual([{ type: "setMode", mode: "acceptEdits", destination: "session" }]);
    expect(permissionSuggestions("Bash", { command: "npm test" }, "/p")[0]).toMatchObject({ type: "addRules", rules: [{ toolName: "Bash", ruleContent: "npm test:*" }] });
    expect(ruleValue("WebFetch")).toEqual({ toolName: "WebFetch" });
  });

  test("permission updates: rules and mode applied, the unsupported ones named", () => {
    const added: string[] = [];
    const modes: string[] = [];
    const warnings: string[] = [];
    applyPermissionUpdates(
      [
        { type: "addRules", behavior: "deny", destination: "session", rules: [{ toolName: "Bash", ruleContent: "rm:*" }, { toolName: "" }] },
        { type: "setMode", mode: "plan", destination: "session" },
        { type: "setMode", mode: "nonsense" },
        { type: "addDirectories", directories: ["/x"], destination: "session" },
      ],
      { target: { addRules: (b, r) => void added.push(...r.map((x) => `${b}:${x}`)), setMode: (m) => void modes.push(m) }, projectDir: "/nowhere", warn: (m) => void warnings.push(m) },
    );
    expect(added).toEqual(["deny:Bash(rm:*)"]);
    expect(modes).toEqual(["plan"]);
    expect(warnings).toHaveLength(2);
    expect(warnings[1]).toContain("addDirectories");
  });
});

/** A stdin session over an in-memory stream; what it writes is collected. */
function fakeHost() {
  let push!: (s: string) => void;
  let close!: () => void;
  const input = new ReadableStream<Uint8Array>({
    start(c) {
      push = (s) => c.enqueue(new TextEncoder().encode(s));
      close = () => c.close();
    },
  });
  const written: any[] = [];
  const warnings: string[] = [];
  const s = stdinSession({ input, writeLine: (l) => void written.push(JSON.parse(l)), warn: (m) => void warnings.push(m) });
  return { s, push: (o: unknown) => push(`${JSON.stringify(o)}\n`), close, written, warnings };
}

describe("stdin session", () => {
  test("the first initialize is handed over; later requests wait for the mode, then are answered", async () => {
    const h = fakeHost();
    h.push({ type: "control_request", request_id: "i1", request: { subtype: "initialize" } });
    h.push({ type: "control_request", request_id: "r2", request: { subtype: "ping" } });
    expect(await h.s.initialize).toEqual({ requestId: "i1", request: { subtype: "initialize" } });
    h.s.onControl = (req) => ({ got: req.subtype });
    await Bun.sleep(0);
    while (!h.written.length) await Bun.sleep(1);
    expect(h.written[0]).toEqual({ type: "control_response", response: { subtype: "success", request_id: "r2", response: { got: "ping" } } });
    h.close();
  });

  test("a user message first means no initialize; a request rejects when stdin ends", async () => {
    const h = fakeHost();
    h.push({ type: "user", message: { role: "user", content: "hi" } });
    expect(await h.s.initialize).toBeNull();
    const pending = h.s.request({ subtype: "can_use_tool" });
    h.close();
    await expect(pending).rejects.toThrow("stdin closed before the host answered");
    expect(h.s.closed).toBe(true);
    await expect(h.s.request({ subtype: "hook_callback" })).rejects.toThrow("stdin is closed, so the host cannot answer the hook_callback request");
  });

  test("a timed-out request is cancelled on the wire; a late answer is ignored", async () => {
    const h = fakeHost();
    const p = h.s.request({ subtype: "can_use_tool" }, { timeoutMs: 5 });
    await expect(p).rejects.toThrow("the host did not answer the can_use_tool request within 5 ms");
    const id = h.written[0].request_id;
    expect(h.written[1]).toEqual({ type: "control_cancel_request", request_id: id });
    h.push({ type: "control_response", response: { subtype: "success", request_id: id, response: {} } });
    h.close();
  });
});

describe("SDK MCP transport", () => {
  test("requests go out as mcp_message and come back as the server's answer; failures become JSON-RPC errors", async () => {
    const sent: any[] = [];
    let fail = false;
    const control = {
      request: async (r: Record<string, unknown>) => {
        sent.push(r);
        if (fail) throw new Error("stdin closed");
        return { mcp_response: { jsonrpc: "2.0", id: (r.message as any).id, result: { ok: true } } };
      },
    };
    const t = controlTransport(control, "calc");
    const got: any[] = [];
    t.onmessage = (m) => void got.push(m);
    await t.send({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    await t.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    fail = true;
    await t.send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "add" } });
    await Bun.sleep(0);
    expect(sent.map((r) => [r.subtype, r.server_name, r.message.method])).toEqual([
      ["mcp_message", "calc", "tools/list"],
      ["mcp_message", "calc", "notifications/initialized"],
      ["mcp_message", "calc", "tools/call"],
    ]);
    expect(got[0]).toEqual({ jsonrpc: "2.0", id: 1, result: { ok: true } });
    expect(got[1]).toMatchObject({ id: 2, error: { message: 'the Agent SDK host could not serve "calc": stdin closed' } });
    expect(got).toHaveLength(2); // the notification's answer is not passed on
  });
});
