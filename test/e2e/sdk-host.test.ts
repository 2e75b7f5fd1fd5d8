// The Agent SDK's side of stream-json (contracts §4.5–4.7): a host that talks to the binary over stdin/stdout.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fakeApiEnv, startFakeAnthropic, toolResultsOf, type FakeAnthropic } from "../helpers/fake-anthropic.ts";
import { isolatedEnv, spawnYoke, yokeBin } from "../helpers/binary.ts";
import { tempDir } from "../helpers/tmp.ts";

let fake: FakeAnthropic;
beforeAll(async () => {
  yokeBin();
  fake = await startFakeAnthropic();
});
afterAll(() => fake.stop());

/** A tiny SDK host: writes lines to the child's stdin, reads its stdout line by line. */
function host(args: string[], cwd: string) {
  const proc = spawnYoke(["-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose", ...args], {
    cwd,
    env: isolatedEnv({ ...fakeApiEnv(fake), YOKE_RETRY_BASE_MS: "5" }),
  });
  const lines: any[] = [];
  let waiters: Array<() => void> = [];
  void (async () => {
    const dec = new TextDecoder();
    let buf = "";
    for await (const chunk of proc.stdout) {
      buf += dec.decode(chunk, { stream: true });
      let nl: number;
      while ((nl = buf.indexOf("\n")) >= 0) {
        lines.push(JSON.parse(buf.slice(0, nl)));
        buf = buf.slice(nl + 1);
        for (const w of waiters.splice(0)) w();
      }
    }
  })();
  const send = (obj: unknown) => {
    proc.stdin.write(`${JSON.stringify(obj)}\n`);
    proc.stdin.flush();
  };
  const waitFor = async (pred: (l: any) => boolean, ms = 10_000): Promise<any> => {
    const end = Date.now() + ms;
    for (;;) {
      const hit = lines.find(pred);
      if (hit) return hit;
      if (Date.now() > end) throw new Error(`timed out; lines so far: ${JSON.stringify(lines).slice(0, 2000)}`);
      await new Promise<void>((r) => {
        waiters.push(r);
        setTimeout(r, 50);
      });
    }
  };
  const user = (text: string) => send({ type: "user", session_id: "", message: { role: "user", content: text }, parent_tool_use_id: null });
  return { proc, lines, send, waitFor, user };
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
  expect(await h.proc.exited).toBe(3); // the model stopped right after the host's denial (README: exit codes)
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
  const deadline = Date.now() + 10_000;
  while (fake.requests.length <= before && Date.now() < deadline) await Bun.sleep(20);
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
  const proc = spawnYoke(["-p", "hi", "--betas", "x", "--thinking=adaptive"], { cwd: tempDir(), env: isolatedEnv({ ...fakeApiEnv(fake) }) });
  proc.stdin.end();
  expect(await proc.exited).toBe(0);
  const err = await new Response(proc.stderr).text();
  expect(err).toContain("--betas is a Claude Code option yoke does not support yet");
  expect(err).toContain("--thinking");
});
