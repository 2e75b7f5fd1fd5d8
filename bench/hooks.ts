/**
 * Hook overhead per tool call. Prints medians:
 *  - in-process PreToolUse handler through the bus (target < 50 µs);
 *  - one command hook (`true`) through the bus vs the bare cost of spawning `sh -c true`
 *    (target < 1.3x), and vs `bash -c true` (hooks run through bash, contracts §1.8).
 * Run: bun run bench/hooks.ts
 */
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHookBus } from "../src/hook/bus.ts";
import { eventPayload } from "../src/hook/events/index.ts";

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

async function timeEach(n: number, f: () => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await f();
    out.push(performance.now() - t);
  }
  return out;
}

const root = mkdtempSync(join(tmpdir(), "yoke-bench-hooks-"));
mkdirSync(join(root, "yoke"));
const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: root };
const payload = eventPayload(
  "PreToolUse",
  { session_id: "bench", transcript_path: join(root, "t.jsonl"), cwd: root, permission_mode: "default" },
  { tool_name: "Bash", tool_input: { command: "ls -la" }, tool_use_id: "toolu_bench" },
);
const bus = (hooks?: Record<string, unknown>) =>
  createHookBus({
    settings: { merged: {}, sources: hooks ? [{ level: "project", path: join(root, "settings.json"), ruleRoot: root, settings: { hooks } as never }] : [] },
    projectDir: root,
    cwd: () => root,
    env,
    sessionId: "bench",
    yokeDir: join(root, "yoke"),
  });

// in-process
const inproc = bus();
inproc.registerInProcess("PreToolUse", (p) => (p.tool_name === "Bash" ? { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow" } } : undefined), {
  source: "bench",
  matcher: "Bash",
});
const empty = bus();
const batch = 1000;
const perCall = async (b: typeof inproc, rounds: number) => {
  const xs: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t = performance.now();
    for (let i = 0; i < batch; i++) await b.emit("PreToolUse", payload);
    xs.push(((performance.now() - t) / batch) * 1000);
  }
  return median(xs);
};
await perCall(inproc, 3);
const inprocUs = await perCall(inproc, 15);
const emptyUs = await perCall(empty, 15);

// command hook vs bare spawn
const n = Number(process.env.BENCH_SPAWNS ?? 200);
const bare = (argv: string[]) => async () => {
  const p = Bun.spawn(argv, { env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
};
const cmdBus = bus({ PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "true" }] }] });
await timeEach(20, bare(["sh", "-c", "true"]));
await timeEach(20, () => cmdBus.emit("PreToolUse", payload));
const shMs = median(await timeEach(n, bare(["sh", "-c", "true"])));
const bashMs = median(await timeEach(n, bare(["bash", "-c", "true"])));
const hookMs = median(await timeEach(n, () => cmdBus.emit("PreToolUse", payload)));

const f = (x: number, d = 1) => x.toFixed(d);
console.log("hook bus overhead per PreToolUse (medians)");
console.log(`  no handlers:                 ${f(emptyUs, 2)} µs`);
console.log(`  one in-process handler:      ${f(inprocUs, 2)} µs   (target < 50 µs) ${inprocUs < 50 ? "OK" : "OVER"}`);
console.log(`  bare spawn sh -c true:       ${f(shMs, 3)} ms`);
console.log(`  bare spawn bash -c true:     ${f(bashMs, 3)} ms`);
console.log(`  one command hook (true):     ${f(hookMs, 3)} ms   ${f(hookMs / shMs, 2)}x sh (target < 1.3x) ${hookMs / shMs < 1.3 ? "OK" : "OVER"}, ${f(hookMs / bashMs, 2)}x bash`);
