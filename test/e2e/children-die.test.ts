/**
 * Issue 20.8: children die with yoke, even when yoke is SIGKILLed (after a kill, Bash process groups kept running
 * and 7 tool effects landed later). Variants: a foreground Bash command, its background job, a run_in_background
 * shell, and a hook; and a resume names the call that may have completed unrecorded.
 */
import { expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { isolatedEnv, runYoke, spawnYoke } from "../helpers/binary.ts";
import { fakeApiEnv } from "../helpers/fake-anthropic.ts";
import { tempDir } from "../helpers/tmp.ts";
import { useFakeAnthropic } from "../helpers/e2e.ts";
import { alive } from "../helpers/process-alive.ts";
import { waitFor } from "../helpers/wait-for.ts";

const fake = useFakeAnthropic();

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
  await waitFor(() => names.every((n) => existsSync(join(d, n)) && readFileSync(join(d, n), "utf8").trim() !== ""), "every child to write its pid", 15_000);
  const pids = pidsIn(d, names);
  expect(pids.every(alive)).toBe(true);
  proc.kill("SIGKILL");
  await proc.exited;
  await waitFor(() => !pids.some(alive), "every child to die", 15_000);

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
  await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").trim() !== "", "the hook to write its pid", 15_000);
  const pid = Number(readFileSync(pidFile, "utf8").trim());
  expect(alive(pid)).toBe(true);
  proc.kill("SIGKILL");
  await proc.exited;
  await waitFor(() => !alive(pid), "the hook process to die", 15_000);
}, 40_000);
