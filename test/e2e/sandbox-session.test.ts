// The Bash sandbox over a whole session, in the compiled binary (issue 16 point 12): rules an Agent SDK host
// adds while the session runs reach the next sandboxed command, a permission mode never loosens the kernel,
// and an untrusted project's `sandbox.failIfUnavailable: true` (it only tightens) is honoured.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runYoke, spawnYoke, yokeBin } from "../helpers/binary.ts";
import { fakeApiEnv, type FakeAnthropic, startFakeAnthropic, toolResultsOf } from "../helpers/fake-anthropic.ts";
import { tempDir } from "../helpers/tmp.ts";
import { probeSandbox } from "../../src/sandbox/probe.ts";

const probe = await probeSandbox({ env: process.env });
if (!probe.ok) console.warn(`sandbox session e2e skipped: ${probe.reason}`);

let fake: FakeAnthropic;
beforeAll(async () => {
  yokeBin();
  fake = await startFakeAnthropic();
});
afterAll(() => fake.stop());

const CANARY = `CANARY-${crypto.randomUUID()}`;

/** A project and a home; `user` goes to the user settings (trusted), `project` to the folder's own (untrusted). */
function project(user: Record<string, unknown>, projectSettings?: Record<string, unknown>) {
  const root = tempDir("yoke-sandbox-session-");
  const cwd = join(root, "proj");
  const home = join(root, "home");
  mkdirSync(join(home, ".claude"), { recursive: true });
  mkdirSync(cwd, { recursive: true });
  writeFileSync(join(home, ".claude", "settings.json"), JSON.stringify(user));
  if (projectSettings) {
    mkdirSync(join(cwd, ".claude"), { recursive: true });
    writeFileSync(join(cwd, ".claude", "settings.json"), JSON.stringify(projectSettings));
  }
  writeFileSync(join(cwd, "late.txt"), `${CANARY}\n`);
  // A script: the static checks cannot see what it reads, so only the kernel stands between it and the file.
  writeFileSync(join(cwd, "show.sh"), "cat late.txt\necho shown\n");
  return { cwd, home };
}

/** A minimal Agent SDK host over stream-json. */
function host(p: { cwd: string; home: string }) {
  const proc = spawnYoke(["-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose"], {
    cwd: p.cwd,
    env: { ...fakeApiEnv(fake), HOME: p.home, YOKE_SANDBOX: undefined, YOKE_RETRY_BASE_MS: "5" },
  });
  const lines: any[] = [];
  const waiters: Array<() => void> = [];
  void (async () => {
    const dec = new TextDecoder();
    let buf = "";
    for await (const chunk of proc.stdout) {
      buf += dec.decode(chunk, { stream: true });
      for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n")) {
        lines.push(JSON.parse(buf.slice(0, nl)));
        buf = buf.slice(nl + 1);
      }
      for (const w of waiters.splice(0)) w();
    }
    for (const w of waiters.splice(0)) w();
  })();
  const send = (obj: unknown) => {
    proc.stdin.write(`${JSON.stringify(obj)}\n`);
    proc.stdin.flush();
  };
  // Resolves on the line, or fails with what arrived once the process has closed its output.
  const waitFor = async (pred: (l: any) => boolean): Promise<any> => {
    for (;;) {
      const hit = lines.find(pred);
      if (hit) return hit;
      if (proc.exitCode !== null) throw new Error(`yoke ended; lines: ${JSON.stringify(lines).slice(0, 2000)}`);
      await new Promise<void>((r) => waiters.push(r));
    }
  };
  const results = () => lines.filter((l) => l.type === "result");
  const turn = async (text: string) => {
    const n = results().length;
    send({ type: "user", session_id: "", message: { role: "user", content: text }, parent_tool_use_id: null });
    await waitFor(() => results().length > n);
  };
  const control = async (id: string, request: Record<string, unknown>) => {
    send({ type: "control_request", request_id: id, request });
    const r = await waitFor((l) => l.type === "control_response" && l.response?.request_id === id);
    expect(r.response.subtype).toBe("success");
  };
  return { proc, turn, control, stderr: new Response(proc.stderr).text() };
}

/** What the model was told for the Bash call `id` (the fake API logs every request). */
const resultText = (id: string): string => {
  for (const req of fake.requests) for (const t of toolResultsOf(req)) if (t.tool_use_id === id) return t.text;
  return "(no result)";
};

describe.skipIf(!probe.ok)("the sandbox follows the session", () => {
  test("a deny rule the host adds (apply_flag_settings) holds in the next sandboxed command; set_permission_mode never loosens the kernel", async () => {
    const p = project({ sandbox: { enabled: true } });
    const bash = (id: string) => ({ content: [{ type: "tool_use" as const, id, name: "Bash", input: { command: "sh show.sh" } }] });
    const done = { content: [{ type: "text" as const, text: "done" }] };
    fake.push(bash("toolu_before"), done, bash("toolu_after"), done, bash("toolu_bypass"), done, bash("toolu_accept"), done);
    const h = host(p);
    await h.turn("read it");
    await h.control("flags_1", { subtype: "apply_flag_settings", settings: { permissions: { deny: ["Read(./late.txt)"] } } });
    await h.turn("read it again");
    await h.control("mode_1", { subtype: "set_permission_mode", mode: "bypassPermissions" });
    await h.turn("and again");
    await h.control("mode_2", { subtype: "set_permission_mode", mode: "acceptEdits" });
    await h.turn("once more");
    h.proc.stdin.end();
    await h.proc.exited;
    expect(resultText("toolu_before")).toContain(CANARY);
    for (const id of ["toolu_after", "toolu_bypass", "toolu_accept"]) {
      expect(resultText(id)).toContain("shown");
      expect(resultText(id)).not.toContain(CANARY);
    }
  }, 120_000);

  test("an untrusted project's sandbox.failIfUnavailable: true ends the run when the sandbox cannot start", async () => {
    const p = project({ sandbox: { bwrapPath: "/nonexistent/bwrap" } }, { sandbox: { failIfUnavailable: true } });
    const before = fake.requests.length;
    const r = await runYoke(["-p", "hi"], { cwd: p.cwd, env: { ...fakeApiEnv(fake), HOME: p.home, YOKE_SANDBOX: undefined } });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("the Bash sandbox was required (sandbox settings) but cannot start");
    expect(r.stderr).toContain("/nonexistent/bwrap");
    expect(fake.requests.length).toBe(before);
  });

  test("an untrusted project cannot loosen it: failIfUnavailable: false under the user's enabled: true still ends the run", async () => {
    const p = project({ sandbox: { enabled: true, bwrapPath: "/nonexistent/bwrap" } }, { sandbox: { failIfUnavailable: false } });
    const r = await runYoke(["-p", "hi"], { cwd: p.cwd, env: { ...fakeApiEnv(fake), HOME: p.home, YOKE_SANDBOX: undefined } });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("but cannot start");
    expect(r.stderr).toContain("sandbox.failIfUnavailable");
  });

  test("without it the run goes on with the static checks alone, and says so", async () => {
    const p = project({ sandbox: { bwrapPath: "/nonexistent/bwrap" } }, { permissions: { deny: ["Read(./late.txt)"] } });
    fake.push({ content: [{ type: "text", text: "hello" }] });
    const r = await runYoke(["-p", "hi"], { cwd: p.cwd, env: { ...fakeApiEnv(fake), HOME: p.home, YOKE_SANDBOX: undefined } });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("the Bash sandbox is off");
  });
});
