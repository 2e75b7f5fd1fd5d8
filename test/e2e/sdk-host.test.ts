// The Agent SDK's side of stream-json (contracts §4.5–4.7): a host that talks to the binary over stdin/stdout.
import { expect, test } from "bun:test";
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { fakeApiEnv, toolResultsOf } from "../helpers/fake-anthropic.ts";
import { isolatedEnv, spawnYoke } from "../helpers/binary.ts";
import { tempDir } from "../helpers/tmp.ts";
import { sanitizePath } from "../../src/config/paths.ts";
import { useFakeAnthropic } from "../helpers/e2e.ts";
import { waitFor as waitUntil, WAIT_MS } from "../helpers/wait-for.ts";

const fake = useFakeAnthropic();

/** A tiny SDK host: writes lines to the child's stdin, reads its stdout line by line. */
function host(args: string[], cwd: string, extraEnv: Record<string, string> = {}) {
  const env = isolatedEnv({ ...fakeApiEnv(fake), YOKE_RETRY_BASE_MS: "5", ...extraEnv });
  const proc = spawnYoke(["-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose", ...args], { cwd, env });
  const lines: any[] = [];
  void (async () => {
    const dec = new TextDecoder();
    let buf = "";
    for await (const chunk of proc.stdout) {
      buf += dec.decode(chunk, { stream: true });
      let nl: number;
      while ((nl = buf.indexOf("\n")) >= 0) {
        lines.push(JSON.parse(buf.slice(0, nl)));
        buf = buf.slice(nl + 1);
      }
    }
  })();
  const send = (obj: unknown) => {
    proc.stdin.write(`${JSON.stringify(obj)}\n`);
    proc.stdin.flush();
  };
  const waitFor = (pred: (l: any) => boolean, ms = WAIT_MS): Promise<any> =>
    waitUntil(() => lines.find(pred), `a stdout line matching ${pred}`, ms).catch((e: Error) => {
      throw new Error(`${e.message}; lines so far: ${JSON.stringify(lines).slice(0, 2000)}`);
    });
  const user = (text: string) => send({ type: "user", session_id: "", message: { role: "user", content: text }, parent_tool_use_id: null });
  const stderr = new Response(proc.stderr).text();
  return { proc, lines, send, waitFor, user, env, stderr };
}

test("--permission-prompt-tool stdio: an ask becomes a can_use_tool request; the host's allow runs the tool, its deny reaches the model", async () => {
  const cwd = tempDir();
  fake.push(
    { content: [{ type: "tool_use", name: "Bash", input: { command: "touch yes-file" } }] },
    { content: [{ type: "tool_use", name: "Bash", input: { command: "touch no-file" } }] },
    { content: [{ type: "text", text: "done" }] },
  );
  const before = fake.requests.length;
  const h = host(["--permission-prompt-tool", "stdio"], cwd);
  h.user("make two files");
  const first = await h.waitFor((l) => l.type === "control_request" && l.request.subtype === "can_use_tool");
  expect(first.request).toMatchObject({ tool_name: "Bash", input: { command: "touch yes-file" } });
  expect(typeof first.request.tool_use_id).toBe("string");
  h.send({ type: "control_response", response: { subtype: "success", request_id: first.request_id, response: { behavior: "allow" } } });
  const second = await h.waitFor((l) => l.type === "control_request" && l.request.input?.command === "touch no-file");
  h.send({ type: "control_response", response: { subtype: "success", request_id: second.request_id, response: { behavior: "deny", message: "not that one" } } });
  const result = await h.waitFor((l) => l.type === "result");
  h.proc.stdin.end();
  expect(await h.proc.exited).toBe(0); // Claude Code exits 0 after a denial; exit 3 is opt-in (--exit-code-on-denial)
  expect(result).toMatchObject({ subtype: "success", result: "done" });
  expect(result.permission_denials.map((d: any) => d.tool_input.command)).toEqual(["touch no-file"]);
  expect(existsSync(join(cwd, "yes-file"))).toBe(true);
  expect(existsSync(join(cwd, "no-file"))).toBe(false);
  expect(toolResultsOf(fake.requests[before + 2]!)[0]!.text).toContain("not that one");
});

test("interrupt while a turn runs ends that turn; the session takes the next message", async () => {
  const cwd = tempDir();
  fake.push({ fault: "hang" }, { content: [{ type: "text", text: "second turn ok" }] });
  const before = fake.requests.length;
  const h = host([], cwd);
  h.user("this one hangs");
  await waitUntil(() => fake.requests.length > before, "the hanging turn's model request");
  h.send({ type: "control_request", request_id: "int_1", request: { subtype: "interrupt" } });
  const ack = await h.waitFor((l) => l.type === "control_response" && l.response.request_id === "int_1");
  expect(ack.response.subtype).toBe("success");
  const first = await h.waitFor((l) => l.type === "result");
  expect(first).toMatchObject({ is_error: true, terminal_reason: "aborted_streaming" });
  h.user("again");
  const second = await h.waitFor((l) => l.type === "result" && l !== first);
  expect(second).toMatchObject({ is_error: false, result: "second turn ok" });
  h.proc.stdin.end();
  expect(await h.proc.exited).toBe(0);
});

test("Claude Code options yoke does not implement yet are accepted with a warning, not an unknown-option error", async () => {
  fake.push({ content: [{ type: "text", text: "ok" }] });
  const proc = spawnYoke(["-p", "hi", "--betas", "x", "--task-budget=5"], { cwd: tempDir(), env: isolatedEnv({ ...fakeApiEnv(fake) }) });
  proc.stdin.end();
  expect(await proc.exited).toBe(0);
  const err = await new Response(proc.stderr).text();
  expect(err).toContain("--betas is a Claude Code option yoke does not support yet");
  expect(err).toContain("--task-budget");
});

// Bad input from a host (issue 15): a clear error naming what and where, the session goes on, never a hang.
test("malformed lines and unknown requests get clear errors naming the line; the session still answers the next prompt", async () => {
  const cwd = tempDir();
  fake.push({ content: [{ type: "text", text: "still here" }] });
  const h = host([], cwd);
  h.proc.stdin.write("this is not json\n");
  h.send({ type: "control_request", request_id: "bad_1", request: { no_subtype: true } });
  h.send({ type: "control_request", request_id: "bad_2", request: { subtype: "frobnicate" } });
  h.send({ type: "control_request", request: { subtype: "interrupt" } });
  h.send({ type: "mystery" });
  h.user("hello");
  const r1 = await h.waitFor((l) => l.type === "control_response" && l.response.request_id === "bad_1");
  expect(r1.response).toMatchObject({ subtype: "error" });
  expect(r1.response.error).toContain('malformed control_request (stdin line 2): "request" must be an object with a string "subtype"');
  const r2 = await h.waitFor((l) => l.type === "control_response" && l.response.request_id === "bad_2");
  expect(r2.response.error).toBe('yoke does not support the control request "frobnicate"');
  expect(await h.waitFor((l) => l.type === "result")).toMatchObject({ subtype: "success", result: "still here" });
  h.proc.stdin.end();
  expect(await h.proc.exited).toBe(0);
  const err = await h.stderr;
  expect(err).toContain("stdin line 1 is not JSON, skipped: this is not json");
  expect(err).toContain("stdin line 4: control_request without a request_id, skipped");
  expect(err).toContain('stdin line 5: unknown message type "mystery", skipped');
});

test("a host that never answers can_use_tool: after YOKE_HOST_TIMEOUT_MS the request is cancelled and the call denied, naming why", async () => {
  const cwd = tempDir();
  fake.push({ content: [{ type: "tool_use", name: "Bash", input: { command: "touch never-file" } }] }, { content: [{ type: "text", text: "gave up" }] });
  const before = fake.requests.length;
  const h = host(["--permission-prompt-tool", "stdio"], cwd, { YOKE_HOST_TIMEOUT_MS: "300" });
  h.user("go");
  const ask = await h.waitFor((l) => l.type === "control_request" && l.request.subtype === "can_use_tool");
  const cancel = await h.waitFor((l) => l.type === "control_cancel_request");
  expect(cancel.request_id).toBe(ask.request_id);
  expect(await h.waitFor((l) => l.type === "result")).toMatchObject({ subtype: "success", result: "gave up" });
  expect(toolResultsOf(fake.requests[before + 1]!)[0]!.text).toContain("did not answer the can_use_tool request within 300 ms");
  expect(existsSync(join(cwd, "never-file"))).toBe(false);
  h.proc.stdin.end();
  expect(await h.proc.exited).toBe(0);
  expect(await h.stderr).toContain("permission for Bash denied: the host did not answer the can_use_tool request within 300 ms");
});

test("a host that closes stdin while a can_use_tool request is open: denied, the turn ends with a result, the transcript is whole", async () => {
  const cwd = tempDir();
  fake.push({ content: [{ type: "tool_use", name: "Bash", input: { command: "touch closed-file" } }] }, { content: [{ type: "text", text: "host left" }] });
  const h = host(["--permission-prompt-tool", "stdio"], cwd);
  h.user("go");
  await h.waitFor((l) => l.type === "control_request" && l.request.subtype === "can_use_tool");
  h.proc.stdin.end();
  const result = await h.waitFor((l) => l.type === "result");
  expect(result).toMatchObject({ subtype: "success", result: "host left" });
  expect(await h.proc.exited).toBe(0);
  expect(existsSync(join(cwd, "closed-file"))).toBe(false);
  const file = join(h.env.YOKE_CONFIG_DIR!, "projects", sanitizePath(realpathSync(cwd)), `${result.session_id}.jsonl`);
  const types = readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l)).filter((e) => e.type === "user" || e.type === "assistant");
  expect(types.map((e) => e.type)).toEqual(["user", "assistant", "user", "assistant"]);
  expect(JSON.stringify(types[2].message)).toContain("stdin closed before the host answered");
});

test("a bad initialize is answered with an error naming the field, and the run stops with exit 1", async () => {
  const h = host([], tempDir());
  h.send({ type: "control_request", request_id: "init_1", request: { subtype: "initialize", hooks: { PreToolUse: [{ hookCallbackIds: "not-a-list" }] } } });
  const r = await h.waitFor((l) => l.type === "control_response");
  expect(r.response).toMatchObject({ subtype: "error", request_id: "init_1" });
  expect(r.response.error).toContain('initialize: "hooks.PreToolUse[0].hookCallbackIds" must be an array of strings');
  expect(await h.proc.exited).toBe(1);
  expect(await h.stderr).toContain("hooks.PreToolUse[0].hookCallbackIds");
});

test("shouldQuery: false adds a message without a turn; it reaches the model with the next prompt (contracts §4.5)", async () => {
  fake.push({ content: [{ type: "text", text: "noted" }] });
  const before = fake.requests.length;
  const h = host([], tempDir());
  h.send({ type: "user", session_id: "", message: { role: "user", content: "NOTE-WITHOUT-TURN" }, parent_tool_use_id: null, shouldQuery: false });
  h.send({ type: "user", session_id: "", message: { role: "user", content: [] }, parent_tool_use_id: null });
  h.user("the real question");
  const result = await h.waitFor((l) => l.type === "result");
  h.proc.stdin.end();
  expect(await h.proc.exited).toBe(0);
  expect(result.num_turns).toBe(1);
  expect(fake.requests.length - before).toBe(1);
  const sent = JSON.stringify(fake.requests[before]!.body.messages.at(-1));
  expect(sent.indexOf("NOTE-WITHOUT-TURN")).toBeLessThan(sent.indexOf("the real question"));
  expect(await h.stderr).toContain("stdin line 2: user message without text or image content, skipped");
});

test("interrupt while a can_use_tool question is open: the question is cancelled and the turn ends at once", async () => {
  const cwd = tempDir();
  fake.push({ content: [{ type: "tool_use", name: "Bash", input: { command: "touch interrupted-file" } }] });
  const h = host(["--permission-prompt-tool", "stdio"], cwd);
  h.user("go");
  const ask = await h.waitFor((l) => l.type === "control_request" && l.request.subtype === "can_use_tool");
  h.send({ type: "control_request", request_id: "int_2", request: { subtype: "interrupt" } });
  const cancel = await h.waitFor((l) => l.type === "control_cancel_request");
  expect(cancel.request_id).toBe(ask.request_id);
  expect(await h.waitFor((l) => l.type === "result")).toMatchObject({ is_error: true, subtype: "error_during_execution" });
  h.proc.stdin.end();
  expect(await h.proc.exited).toBe(1);
  expect(existsSync(join(cwd, "interrupted-file"))).toBe(false);
});
