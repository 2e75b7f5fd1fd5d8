/**
 * Issue 20.8: children die with yoke, even when yoke is SIGKILLed (after a kill, Bash process groups kept running
 * and 7 tool effects landed later), and a resume names the call that may have completed unrecorded.
 *
 * Variants, each killed at a moment a barrier proves (the child writes a marker once running; then SIGKILL; then the
 * groups are watched in /proc until empty, with a deadline, no fixed sleeps): a foreground Bash command with a job
 * of its own next to a run_in_background shell; a Bash command that stops yoke as its first act (yoke descheduled
 * right after the spawn, where the flaky version of this test lost the race); a command in the middle of streaming
 * output; a hook; and a sandboxed (bubblewrap) command. The moment between spawn and registration itself is
 * covered, deterministically, by test/util/watchdog-window.test.ts; MCP servers by test/e2e/no-orphans.test.ts.
 */
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isolatedEnv, runYoke, spawnYoke } from "../helpers/binary.ts";
import { fakeApiEnv } from "../helpers/fake-anthropic.ts";
import { tempDir } from "../helpers/tmp.ts";
import { useFakeAnthropic } from "../helpers/e2e.ts";
import { waitFor } from "../helpers/wait-for.ts";
import { processes } from "../helpers/process-alive.ts";

const fake = useFakeAnthropic();

/** Live members of these process groups, described for a failure message. */
const survivors = (groups: number[]) =>
  processes()
    .filter((p) => groups.includes(p.pgrp))
    .map((p) => `${p.pid} (group ${p.pgrp}, ${p.state}, ppid ${p.ppid}): ${p.cmdline.replaceAll("\0", " ").slice(0, 80)}`);

const ready = (f: string) => existsSync(f) && readFileSync(f, "utf8").endsWith("\n");
const pgidOf = (pid: number) => processes().find((p) => p.pid === pid)?.pgrp;

/** SIGKILLs yoke, then waits until none of `groups` has a live member (the deadline only turns a hang into a failure). */
async function killAndWatch(proc: ReturnType<typeof spawnYoke>, groups: number[]): Promise<void> {
  for (const g of groups) expect(survivors([g]).length).toBeGreaterThan(0);
  proc.kill("SIGKILL");
  await proc.exited;
  try {
    await waitFor(() => survivors(groups).length === 0, "every process group to die");
  } finally {
    for (const g of groups) {
      try {
        process.kill(-g, "SIGKILL"); // a failed run leaves nothing behind for the next
      } catch {}
    }
  }
  expect(survivors(groups)).toEqual([]);
}

async function started(proc: ReturnType<typeof spawnYoke>, cond: () => boolean, what: string): Promise<void> {
  await waitFor(cond, what, 60_000).catch(async (e) => {
    proc.kill("SIGKILL");
    throw new Error(`${e.message}; yoke said: ${(await new Response(proc.stdout).text()).slice(0, 2000)} ${(await new Response(proc.stderr).text()).slice(0, 2000)}`);
  });
}

test("SIGKILL of yoke: the running Bash command, its background job and a background shell all die; resume names the call", async () => {
  const cwd = tempDir();
  const env = isolatedEnv(fakeApiEnv(fake));
  const d = join(cwd, "pids");
  mkdirSync(d);
  fake.push(
    { content: [{ type: "tool_use", name: "Bash", input: { command: `sleep 300 & echo $$ > ${d}/bg.tmp; mv ${d}/bg.tmp ${d}/bg; wait`, run_in_background: true } }] },
    { content: [{ type: "tool_use", name: "Bash", input: { command: `sleep 300 & echo $$ > ${d}/job.tmp; mv ${d}/job.tmp ${d}/fg; sleep 300` } }] },
  );
  const proc = spawnYoke(["-p", "go", "--allowedTools", "Bash", "--output-format", "stream-json", "--verbose"], { cwd, env });
  proc.stdin.end();
  await started(proc, () => ready(join(d, "bg")) && ready(join(d, "fg")), "both Bash calls to run");
  const groups = ["bg", "fg"].map((n) => Number(readFileSync(join(d, n), "utf8")));
  await killAndWatch(proc, groups);

  const out = (await new Response(proc.stdout).text()).trim().split("\n").map((l) => JSON.parse(l));
  const id = out[0].session_id;
  fake.push({ content: [{ type: "text", text: "resumed" }] });
  const r = await runYoke(["-p", "what happened?", "--resume", id], { cwd, env });
  expect(r.code).toBe(0);
  expect(r.stderr).toMatch(/yoke: the previous run ended during Bash \(toolu_\w+, \{"command":"sleep 300 & echo \$\$ > .*job\.tmp.*\): it may have run, in part or whole, without its result being recorded/);
}, 120_000);

test("SIGKILL of yoke stopped by the command's first act (yoke descheduled right after the spawn): the group dies", async () => {
  const cwd = tempDir();
  const env = isolatedEnv(fakeApiEnv(fake));
  const marker = join(cwd, "pgid");
  // $PPID is yoke: the command's shell is yoke's child. SIGSTOP freezes yoke wherever it was after the spawn.
  fake.push({ content: [{ type: "tool_use", name: "Bash", input: { command: `kill -STOP $PPID; sleep 300 & echo $$ > ${marker}.tmp; mv ${marker}.tmp ${marker}; wait` } }] });
  const proc = spawnYoke(["-p", "go", "--allowedTools", "Bash"], { cwd, env });
  proc.stdin.end();
  await started(proc, () => ready(marker), "the command to run");
  await killAndWatch(proc, [Number(readFileSync(marker, "utf8"))]);
}, 120_000);

test("SIGKILL of yoke while a Bash command streams output: the group dies", async () => {
  const cwd = tempDir();
  const env = isolatedEnv(fakeApiEnv(fake));
  const marker = join(cwd, "pgid");
  fake.push({ content: [{ type: "tool_use", name: "Bash", input: { command: `(while :; do echo tick; sleep 0.01; done) & echo $$ > ${marker}.tmp; mv ${marker}.tmp ${marker}; wait` } }] });
  const proc = spawnYoke(["-p", "go", "--allowedTools", "Bash", "--output-format", "stream-json", "--verbose"], { cwd, env });
  proc.stdin.end();
  await started(proc, () => ready(marker), "the command to stream");
  await killAndWatch(proc, [Number(readFileSync(marker, "utf8"))]);
}, 120_000);

test("SIGKILL of yoke while a hook runs: the hook's process group dies", async () => {
  const cwd = tempDir();
  const env = isolatedEnv(fakeApiEnv(fake));
  const marker = join(cwd, "hook.pgid");
  mkdirSync(join(cwd, ".claude"), { recursive: true });
  const settings = join(cwd, ".claude", "settings.local.json");
  writeFileSync(settings, JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: `sleep 300 & echo $$ > ${marker}.tmp; mv ${marker}.tmp ${marker}; wait` }] }] } }));
  const proc = spawnYoke(["-p", "go", "--settings", settings], { cwd, env });
  proc.stdin.end();
  await started(proc, () => ready(marker), "the hook to run");
  await killAndWatch(proc, [Number(readFileSync(marker, "utf8"))]);
}, 120_000);

test("SIGKILL of yoke during a sandboxed Bash command: the command inside the sandbox dies", async () => {
  const cwd = tempDir();
  const marker = join(cwd, "ran");
  // A duration no other process has: the sandboxed sleep is found by its command line (its pid inside differs).
  const arg = `3000.${Math.floor(Math.random() * 1e6)}`;
  fake.push({ content: [{ type: "tool_use", name: "Bash", input: { command: `sleep ${arg} & echo x > ${marker}; wait` } }] });
  const env = { ...isolatedEnv(fakeApiEnv(fake)), YOKE_SANDBOX: "1" };
  const proc = spawnYoke(["-p", "go", "--allowedTools", "Bash", "--output-format", "stream-json", "--verbose"], { cwd, env });
  proc.stdin.end();
  const sleeper = () => processes().find((p) => p.cmdline === `sleep\0${arg}\0`);
  await started(proc, () => existsSync(marker) && !!sleeper(), "the sandboxed command to run");
  const pid = sleeper()!.pid;
  const outer = processes().filter((p) => p.ppid === proc.pid && p.cmdline.startsWith("/bin/sh\0-c\0")).map((p) => p.pgrp);
  await killAndWatch(proc, [pgidOf(pid)!, ...outer]);
  expect(processes().some((p) => p.pid === pid)).toBe(false);
}, 120_000);

test("resume after a SIGKILL names each call of the interrupted message that has no recorded result, once; a clean run's resume names none", async () => {
  const cwd = tempDir();
  const env = isolatedEnv(fakeApiEnv(fake));
  const marker = join(cwd, "pgid");
  // Two calls in one message: the first ends, the second is running when yoke dies. The results of one message are
  // recorded together, so neither is in the transcript: both are named (the first ran whole), in call order.
  fake.push({
    content: [
      { type: "tool_use", name: "Bash", input: { command: "echo first-done" } },
      { type: "tool_use", name: "Bash", input: { command: `echo $$ > ${marker}.tmp; mv ${marker}.tmp ${marker}; sleep 300` } },
    ],
  });
  const proc = spawnYoke(["-p", "go", "--allowedTools", "Bash", "--output-format", "stream-json", "--verbose"], { cwd, env });
  proc.stdin.end();
  await started(proc, () => ready(marker), "the second call to run");
  await killAndWatch(proc, [Number(readFileSync(marker, "utf8"))]);
  const id = JSON.parse((await new Response(proc.stdout).text()).split("\n")[0]!).session_id;

  fake.push({ content: [{ type: "text", text: "resumed" }] });
  let r = await runYoke(["-p", "what happened?", "--resume", id], { cwd, env });
  expect(r.code).toBe(0);
  const named = r.stderr.split("\n").filter((l) => l.includes("the previous run ended during"));
  expect(named).toHaveLength(2);
  expect(named[0]).toMatch(/^yoke: the previous run ended during Bash \(toolu_\w+, \{"command":"echo first-done"\}\): it may have run/);
  expect(named[1]).toMatch(/^yoke: the previous run ended during Bash \(toolu_\w+, \{"command":"echo \$\$ > .*\): it may have run/);

  // That resume ended cleanly: resuming again names nothing.
  fake.push({ content: [{ type: "text", text: "again" }] });
  r = await runYoke(["-p", "and now?", "--resume", id], { cwd, env });
  expect(r.code).toBe(0);
  expect(r.stderr).not.toContain("the previous run ended during");
}, 120_000);
