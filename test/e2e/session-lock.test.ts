/**
 * Issue 20.7: one run at a time per session. A second run on a session another live run is appending to fails
 * at once naming the holder (--resume X twice, --session-id X twice); the lock of a killed run is taken over.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isolatedEnv, runYoke, spawnYoke } from "../helpers/binary.ts";
import { fakeApiEnv } from "../helpers/fake-anthropic.ts";
import { tempDir } from "../helpers/tmp.ts";
import { waitFor } from "../helpers/wait-for.ts";
import { acquireSessionLock, holderIsStale, LEASE_MS, processStart } from "../../src/session/lock.ts";
import { useFakeAnthropic } from "../helpers/e2e.ts";

const fake = useFakeAnthropic();

const ok = (text: string) => ({ content: [{ type: "text" as const, text }] });

function transcriptOf(env: Record<string, string>, id: string): string {
  const projects = join(env.YOKE_CONFIG_DIR!, "projects");
  for (const d of readdirSync(projects)) if (existsSync(join(projects, d, `${id}.jsonl`))) return join(projects, d, `${id}.jsonl`);
  throw new Error(`no transcript ${id}`);
}

/** Starts a run that holds its session until the fake's hanging reply is released. */
async function holdSession(args: string[], cwd: string, env: Record<string, string>) {
  let arrived!: () => void;
  const inFlight = new Promise<void>((r) => (arrived = r));
  fake.push(() => {
    arrived();
    return { fault: "hang" };
  });
  const proc = spawnYoke(["-p", "hold", ...args], { cwd, env });
  proc.stdin.end();
  await inFlight; // the first run is mid-request: it holds the lock
  return proc;
}

describe("one run per session (issue 20.7)", () => {
  for (const how of ["--resume", "--session-id"] as const) {
    test(`${how} X while another run appends to X: the second fails at once, naming the holder; the first is untouched`, async () => {
      const cwd = tempDir();
      const env = isolatedEnv(fakeApiEnv(fake));
      let id: string;
      let firstArgs: string[];
      if (how === "--resume") {
        fake.push(ok("one"));
        const a = await runYoke(["-p", "start", "--output-format", "json"], { cwd, env });
        id = JSON.parse(a.stdout).session_id;
        firstArgs = ["--resume", id];
      } else {
        id = crypto.randomUUID();
        firstArgs = ["--session-id", id];
      }
      const first = await holdSession(firstArgs, cwd, env);
      const before = fake.requests.length;
      const second = await runYoke(["-p", "second", ...(how === "--resume" ? ["--resume", id] : ["--session-id", id])], { cwd, env });
      expect(second.code).toBe(1);
      expect(second.stderr).toContain(`session ${id} is in use by another yoke run (pid ${first.pid}`);
      expect(second.stderr).toContain(`--resume ${id} --fork-session`);
      expect(fake.requests.length).toBe(before);
      first.kill("SIGTERM");
      await first.exited;
      // The first run's lock is gone with it: the session resumes.
      fake.push(ok("after"));
      const third = await runYoke(["-p", "third", "--resume", id, "--output-format", "json"], { cwd, env });
      expect(third.code).toBe(0);
      expect(existsSync(`${transcriptOf(env, id)}.lock`)).toBe(false);
    });
  }

  test("the lock of a SIGKILLed run is stale and taken over", async () => {
    const cwd = tempDir();
    const env = isolatedEnv(fakeApiEnv(fake));
    fake.push(ok("one"));
    const a = await runYoke(["-p", "start", "--output-format", "json"], { cwd, env });
    const id = JSON.parse(a.stdout).session_id;
    const first = await holdSession(["--resume", id], cwd, env);
    expect(existsSync(`${transcriptOf(env, id)}.lock`)).toBe(true);
    first.kill("SIGKILL");
    await first.exited;
    expect(existsSync(`${transcriptOf(env, id)}.lock`)).toBe(true); // SIGKILL leaves it behind
    fake.push(ok("taken over"));
    const r = await runYoke(["-p", "again", "--resume", id, "--output-format", "json"], { cwd, env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).result).toBe("taken over");
  });

  test("--fork-session branches a locked session", async () => {
    const cwd = tempDir();
    const env = isolatedEnv(fakeApiEnv(fake));
    fake.push(ok("one"));
    const id = JSON.parse((await runYoke(["-p", "start", "--output-format", "json"], { cwd, env })).stdout).session_id;
    const first = await holdSession(["--resume", id], cwd, env);
    fake.push(ok("forked"));
    const r = await runYoke(["-p", "branch", "--resume", id, "--fork-session", "--output-format", "json"], { cwd, env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).session_id).not.toBe(id);
    first.kill("SIGKILL");
    await first.exited;
  });
});

describe("stale lock detection", () => {
  test("a dead pid, a reused pid (other start time) and torn content are stale; this process is not", () => {
    expect(holderIsStale({ pid: process.pid, start: processStart(process.pid), at: "" })).toBe(false);
    expect(holderIsStale({ pid: process.pid, start: "1", at: "" })).toBe(process.platform === "linux");
    const dead = Bun.spawnSync(["true"]).pid;
    expect(holderIsStale({ pid: dead, start: null, at: "" })).toBe(true);
    const dir = tempDir();
    const path = join(dir, "s.jsonl");
    writeFileSync(`${path}.lock`, "{torn");
    const lock = acquireSessionLock(path, "s");
    expect(JSON.parse(readFileSync(`${path}.lock`, "utf8")).pid).toBe(process.pid);
    expect(() => acquireSessionLock(path, "s")).toThrow(/session s is in use by another yoke run/);
    lock.release();
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  test("a killed run not yet reaped (a zombie: its pid is still there, same start time) is stale", async () => {
    // The child's parent is `sleep`, which never reaps: once killed, the child stays a zombie until sleep ends.
    const parent = Bun.spawn(["sh", "-c", "sleep 30 & echo $!; exec sleep 60"], { stdout: "pipe" });
    const reader = parent.stdout.getReader();
    const pid = Number(new TextDecoder().decode((await reader.read()).value).trim());
    const start = processStart(pid);
    expect(holderIsStale({ pid, start, at: "" })).toBe(false);
    // Kill only once sh has become `sleep 60`: a child that dies while sh still runs is reaped by sh (seen under load).
    await waitFor(() => readFileSync(`/proc/${parent.pid}/cmdline`, "utf8") === "sleep\x0060\x00", "the parent to exec sleep 60");
    process.kill(pid, "SIGKILL");
    await waitFor(() => /\) Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8")), `the killed child ${pid} to become a zombie`);
    expect(holderIsStale({ pid, start, at: "" })).toBe(true);
    parent.kill("SIGKILL");
    await parent.exited;
  });

  test("a holder on another host (a retried pod on a shared volume) is judged by its lease, not its pid", () => {
    const h = { pid: process.pid, start: processStart(process.pid), at: "", host: "another-pod-7f9c" };
    expect(holderIsStale(h, Date.now() - 5_000)).toBe(false);
    expect(holderIsStale(h, Date.now() - LEASE_MS - 1_000)).toBe(true);
  });
});
