/**
 * Issue 20.8: children die with yoke, even when yoke is SIGKILLed (after a kill, Bash process groups kept running
 * and 7 tool effects landed later). Variants: a foreground Bash command, its background job, a run_in_background
 * shell, and a hook; and a resume names the call that may have completed unrecorded.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { isolatedEnv, runYoke, spawnYoke, yokeBin } from "../helpers/binary.ts";
import { fakeApiEnv, startFakeAnthropic, type FakeAnthropic } from "../helpers/fake-anthropic.ts";
import { tempDir } from "../helpers/tmp.ts";

let fake: FakeAnthropic;
beforeAll(async () => {
  yokeBin();
  fake = await startFakeAnthropic();
});
afterAll(() => fake.stop());

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    const st = readFileSync(`/proc/${pid}/stat`, "utf8");
    return !/^\S+ \(.*\) [ZX]/.test(st);
  } catch {
    return false;
  }
};

/** Waits until `f` holds (a barrier on the child's own progress), or gives up after `ms`. */
async function until(f: () => boolean, ms = 15_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (f()) return true;
    await Bun.sleep(20);
  }
  return f();
}

const pidsIn = (dir: string, names: string[]) => names.map((n) => Number(readFileSync(join(dir, n), "utf8").trim()));

test("SIGKILL of yoke: the running Bash command, its background job and a background shell all die; resume names the call", async () => {
  const cwd = tempDir();
  const env = isolatedEnv(fakeApiEnv(fake));
  const d = join(cwd, "pids");
  mkdirSync(d);
  fake.push(
    { content: [{ type: "tool_use", name: "Bash", input: { command: `sleep 300 & echo $! > ${d}/bgshell.pid; wait`, run_in_background: true } }] },
    { content: [{ type: "tool_use", name: "Bash", input: { command: `sleep 300 & echo $! > ${d}/job.pid; echo $$ > ${d}/fg.pid; sleep 300` } }] },
  );
  const proc = spawnYoke(["-p", "go", "--allowedTools", "Bash", "--output-format", "stream-json", "--verbose"], { cwd, env });
  proc.stdin.end();
  const names = ["bgshell.pid", "job.pid", "fg.pid"];
  expect(await until(() => names.every((n) => existsSync(join(d, n)) && readFileSync(join(d, n), "utf8").trim() !== ""))).toBe(true);
  const pids = pidsIn(d, names);
  expect(pids.every(alive)).toBe(true);
  proc.kill("SIGKILL");
  await proc.exited;
  expect(await until(() => !pids.some(alive))).toBe(true);

  const out = (await new Response(proc.stdout).text()).trim().split("\n").map((l) => JSON.parse(l));
  const id = out[0].session_id;
  fake.push({ content: [{ type: "text", text: "resumed" }] });
  const r = await runYoke(["-p", "what happened?", "--resume", id], { cwd, env });
  expect(r.code).toBe(0);
  expect(r.stderr).toMatch(/yoke: the previous run ended during Bash \(toolu_\w+, \{"command":"sleep 300 & echo \$! > .*job\.pid.*\): it may have run, in part or whole, without its result being recorded/);
}, 40_000);

test("SIGKILL of yoke while a hook runs: the hook's process group dies", async () => {
  const cwd = tempDir();
  const env = isolatedEnv(fakeApiEnv(fake));
  const pidFile = join(cwd, "hook.pid");
  mkdirSync(join(cwd, ".claude"), { recursive: true });
  writeFileSync(
    join(cwd, ".claude", "settings.local.json"),
    JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: `sleep 300 & echo $! > ${pidFile}; wait` }] }] } }),
  );
  const proc = spawnYoke(["-p", "go", "--settings", join(cwd, ".claude", "settings.local.json")], { cwd, env });
  proc.stdin.end();
  expect(await until(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").trim() !== "")).toBe(true);
  const pid = Number(readFileSync(pidFile, "utf8").trim());
  expect(alive(pid)).toBe(true);
  proc.kill("SIGKILL");
  await proc.exited;
  expect(await until(() => !alive(pid))).toBe(true);
}, 40_000);
