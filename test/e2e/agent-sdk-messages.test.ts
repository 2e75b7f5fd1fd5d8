// The real Agent SDK 0.3.332 drives the compiled binary (issue 15 points 5, 6): exit codes and the messages the
// CLI writes (contracts §4.3–4.4, §4.7), compared with what Claude Code 2.1.332 writes to the same SDK.
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { sdkRun } from "../helpers/agent-sdk.ts";
import { tempDir } from "../helpers/tmp.ts";
import { useFakeAnthropic } from "../helpers/e2e.ts";

// A fresh fake per test: a reply the run must not ask for stays behind without leaking into the next test.
const fake = useFakeAnthropic({ perTest: true });

const allText = (req: any) => JSON.stringify(req.body.messages);

test("a run where the model stops after the host's denial ends with success and the SDK does not throw (exit 0)", async () => {
  fake.push({ content: [{ type: "tool_use", name: "Write", input: { file_path: "x.txt", content: "x" } }] }, { content: [{ type: "text", text: "ok, not writing" }] });
  const r = await sdkRun(fake, "write x", { canUseTool: async () => ({ behavior: "deny", message: "no writes" }) });
  expect(r.error).toBeNull();
  expect(r.result).toMatchObject({ subtype: "success", is_error: false, result: "ok, not writing" });
  expect((r.result as any).permission_denials).toHaveLength(1);
});

test("--exit-code-on-denial keeps exit 3 for CI, opt-in only", async () => {
  fake.push({ content: [{ type: "tool_use", name: "Write", input: { file_path: "x.txt", content: "x" } }] }, { content: [{ type: "text", text: "stopped" }] });
  const r = await sdkRun(fake, "write x", { canUseTool: async () => ({ behavior: "deny", message: "no" }), extraArgs: { "exit-code-on-denial": null } });
  expect(r.error).toContain("exited with code 3");
  expect(r.result).toMatchObject({ subtype: "success", result: "stopped" });
});

test("the prompt is not echoed, injected context (CLAUDE.md) never shows as a user message", async () => {
  const cwd = tempDir();
  writeFileSync(join(cwd, "CLAUDE.md"), "Project rule: say MARKER-42.");
  fake.push({ content: [{ type: "tool_use", name: "Read", input: { file_path: join(cwd, "CLAUDE.md") } }] }, { content: [{ type: "text", text: "done" }] });
  const before = fake.requests.length;
  const r = await sdkRun(fake, "read it", { cwd, systemPrompt: { type: "preset", preset: "claude_code" } });
  expect(r.error).toBeNull();
  expect(allText(fake.requests[before])).toContain("MARKER-42"); // the model got it
  const users = r.of("user");
  expect(users).toHaveLength(1); // only the tool result, as Claude Code writes it
  expect((users[0]!.message.content as any[])[0].type).toBe("tool_result");
  expect(JSON.stringify(r.messages.filter((m) => m.type !== "user"))).not.toContain("Project rule");
});

test("assistant messages carry the API's request_id", async () => {
  fake.push({ content: [{ type: "text", text: "hi" }] });
  const r = await sdkRun(fake, "hi");
  const a = r.of("assistant");
  expect(a).toHaveLength(1);
  expect((a[0] as any).request_id).toMatch(/^req_/);
});

test("an API failure writes an assistant message with error, then the error result; exit 1 as Claude Code", async () => {
  fake.push({ fault: 401 });
  const r = await sdkRun(fake, "hi");
  const a = r.of("assistant");
  expect(a).toHaveLength(1);
  expect(a[0]).toMatchObject({ error: "authentication_failed" });
  expect((a[0]!.message.content as any[])[0].type).toBe("text");
  expect(r.result).toMatchObject({ is_error: true, subtype: "success", api_error_status: 401 });
  // The SDK reports the failed result, not a bare exit code (the same words it uses for Claude Code).
  expect(r.error).toContain("returned an error result");
});

test("server errors are named server_error", async () => {
  for (let i = 0; i < 12; i++) fake.push({ fault: 500 });
  const r = await sdkRun(fake, "hi", { extraEnv: { CLAUDE_CODE_MAX_RETRIES: "0" } });
  expect(r.of("assistant")[0]).toMatchObject({ error: "server_error" });
  expect(r.result).toMatchObject({ is_error: true, api_error_status: 500 });
});

test("outputFormat: the structured output ends the run at once, result holds its JSON", async () => {
  fake.push({ content: [{ type: "tool_use", name: "StructuredOutput", input: { answer: "3" } }] }, { content: [{ type: "text", text: "should not be asked for" }] });
  const before = fake.requests.length;
  const r = await sdkRun(fake, "1+2", {
    outputFormat: { type: "json_schema", schema: { type: "object", properties: { answer: { type: "string" } }, required: ["answer"] } },
  });
  expect(r.error).toBeNull();
  expect(fake.requests.length - before).toBe(1);
  expect(r.result).toMatchObject({ subtype: "success", structured_output: { answer: "3" }, result: '{"answer":"3"}' });
});

test("system/init carries capabilities, the SDK's session id and mcp_servers", async () => {
  fake.push({ content: [{ type: "text", text: "hi" }] });
  const r = await sdkRun(fake, "hi");
  const init = r.of("system").find((m: any) => m.subtype === "init") as any;
  expect(Array.isArray(init.capabilities)).toBe(true);
  expect(init.mcp_servers).toEqual([]);
});

test("a startup error (bad settings) reaches the SDK as the initialize error, naming the problem", async () => {
  const cwd = tempDir();
  writeFileSync(join(cwd, "bad-settings.json"), '{"permissions": {"allow": "Bash"}}');
  const r = await sdkRun(fake, "hi", { cwd, settings: join(cwd, "bad-settings.json") });
  expect(r.error).toContain("bad-settings.json");
  expect(r.error).toContain("permissions.allow");
  expect(fake.requests).toHaveLength(0);
});
