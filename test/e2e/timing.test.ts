// YOKE_TIMING=1: the binary's startup phase marks on stderr (bench/, startup profiling).
import { expect, test } from "bun:test";
import { fakeApiEnv } from "../helpers/fake-anthropic.ts";
import { isolatedEnv, runYoke } from "../helpers/binary.ts";
import { useFakeAnthropic } from "../helpers/e2e.ts";
import { tempDir } from "../helpers/tmp.ts";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const fake = useFakeAnthropic();

test("YOKE_TIMING=1 prints ordered phase marks; without it stderr stays empty", async () => {
  fake.push({ content: [{ type: "text", text: "hi" }] }, { content: [{ type: "text", text: "hi" }] });
  const timed = await runYoke(["-p", "x"], { env: isolatedEnv({ ...fakeApiEnv(fake), YOKE_TIMING: "1" }) });
  expect(timed.code).toBe(0);
  expect(timed.stdout).toBe("hi\n");
  const [line, cpuLine, ...rest] = timed.stderr.trim().split("\n");
  expect(rest).toEqual([]);
  expect(line!.startsWith("yoke timing (ms since start): ")).toBe(true);
  const entries = line!.split(": ")[1]!.split(" ");
  // Marks are `name=ms since start`, in time order; spans (`name:ms`, CPU spent on one job before the request) follow.
  const spans = entries.filter((e) => !e.includes("=")).map((kv) => kv.split(":"));
  expect(spans.map(([k]) => k)).toEqual(["extensions-busy"]);
  expect(spans.every(([, v]) => /^\d+\.\d\d$/.test(v ?? ""))).toBe(true);
  const marks = entries.filter((e) => e.includes("=")).map((kv) => kv.split("="));
  expect(entries.slice(0, marks.length).every((e) => e.includes("="))).toBe(true); // the spans come last
  // The SDK import runs beside composing (issue 21.2), so "sdk-loaded" may come before or after "extensions" and
  // "composed": the test holds the order that must hold, not the one a quiet machine happens to give.
  const names = marks.map(([k]) => k!);
  expect([...names].sort()).toEqual(["args-loaded", "composed", "exit", "extensions", "git", "headless-loaded", "main", "message-done", "prelude", "request", "response", "sdk-loaded", "shutdown", "turn-message-1", "turn-request-1"]);
  // No "stderr-made": nothing wrote to stderr before this line itself (the marks were read before it was made). No
  // "stdout-made": a text answer is written without Node's stdout stream (util/output.ts writeOutAtEnd, issue 21).
  const times = marks.map(([, v]) => Number(v));
  expect(times.every((t, i) => Number.isFinite(t) && (i === 0 || t >= times[i - 1]!))).toBe(true); // printed in time order
  const at = (k: string) => names.indexOf(k);
  for (const [a, b] of [["main", "args-loaded"], ["args-loaded", "prelude"], ["prelude", "headless-loaded"], ["headless-loaded", "extensions"], ["extensions", "composed"], ["composed", "request"], ["sdk-loaded", "request"], ["request", "response"], ["response", "message-done"], ["message-done", "exit"], ["composed", "turn-request-1"], ["turn-request-1", "request"], ["message-done", "turn-message-1"], ["turn-message-1", "shutdown"], ["shutdown", "exit"]] as const) {
    expect(`${a} ${at(a) < at(b) ? "before" : "after"} ${b}`).toBe(`${a} before ${b}`);
  }
  // The second line: yoke's own CPU time at each phase, never decreasing, for the same phases.
  expect(cpuLine!.startsWith("yoke cpu (ms of this process): ")).toBe(true);
  const cpu = cpuLine!.split(": ")[1]!.split(" ").map((kv) => kv.split("="));
  expect(cpu.map(([k]) => k)).toEqual(names);
  const cpuMs = cpu.map(([, v]) => Number(v));
  expect(cpuMs.every((c, i) => Number.isFinite(c) && c > 0 && (i === 0 || c >= cpuMs[i - 1]!))).toBe(true);
  const plain = await runYoke(["-p", "x"], { env: isolatedEnv(fakeApiEnv(fake)) });
  expect(plain.code).toBe(0);
  expect(plain.stderr).toBe("");
});

test("YOKE_TIMING=1 numbers what repeats: each request and answer, each tool call's steps, each hook process", async () => {
  const cwd = tempDir("yoke-timing-");
  writeFileSync(join(cwd, "settings.json"), JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "exit 0" }] }] } }));
  fake.push(
    { content: [{ type: "tool_use", name: "Bash", input: { command: "mkdir made", description: "step" } }] },
    { content: [{ type: "tool_use", name: "Bash", input: { command: "mkdir made2", description: "step" } }] },
    { content: [{ type: "text", text: "done" }] },
  );
  const r = await runYoke(["-p", "x", "--allowedTools", "Bash(mkdir:*)", "--settings", join(cwd, "settings.json")], { cwd, env: isolatedEnv({ ...fakeApiEnv(fake), YOKE_TIMING: "1" }) });
  expect(r.code).toBe(0);
  expect(existsSync(join(cwd, "made2"))).toBe(true);
  const line = r.stderr.split("\n").find((l) => l.startsWith("yoke timing (ms since start): "))!;
  const names = line.split(": ")[1]!.split(" ").filter((e) => e.includes("=")).map((kv) => kv.split("=")[0]!);
  const order = [
    "turn-request-1", "turn-message-1",
    "tool-start-1", "hook-spawned-1", "hook-exited-1", "permission-1", "tool-run-1", "bash-launched-1", "bash-exited-1", "tool-ran-1", "turn-request-2", "turn-message-2",
    "tool-start-2", "hook-spawned-2", "hook-exited-2", "permission-2", "tool-run-2", "bash-launched-2", "bash-exited-2", "tool-ran-2", "turn-request-3", "turn-message-3",
    "shutdown", "exit",
  ];
  expect(names.filter((n) => order.includes(n))).toEqual(order);
});
