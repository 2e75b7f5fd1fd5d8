// Issue 20.4 and 17.13: no `yoke-<session>` folder is left in the temp folder after a run, Bash spill files included.
import { expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { runYoke } from "../helpers/binary.ts";
import { fakeApiEnv } from "../helpers/fake-anthropic.ts";
import { tempDir } from "../helpers/tmp.ts";
import { useFakeAnthropic } from "../helpers/e2e.ts";

const fake = useFakeAnthropic();

test("a run with Bash calls (one spilling its output to a file, one in the background) leaves no yoke-* folder in TMPDIR", async () => {
  const tmp = tempDir();
  fake.push(
    { content: [{ type: "tool_use", name: "Bash", input: { command: "seq 1 200000" } }] },
    { content: [{ type: "tool_use", name: "Bash", input: { command: "sleep 30", run_in_background: true } }] },
    { content: [{ type: "text", text: "done" }] },
  );
  const r = await runYoke(["-p", "go", "--allowedTools", "Bash"], { cwd: tempDir(), env: { ...fakeApiEnv(fake), TMPDIR: tmp } });
  expect(r.code).toBe(0);
  expect(JSON.stringify(fake.requests[1]!.body.messages)).toContain(tmp); // the spill file was there during the run
  expect(readdirSync(tmp).filter((n) => n.startsWith("yoke-"))).toEqual([]);
});

// Issue 20.4: a SIGKILLed run cannot remove its folder; the next start does, and keeps a live run's.
test("the next start removes the scratch folder of a SIGKILLed run, never a live run's", async () => {
  const { existsSync, mkdirSync, readFileSync, writeFileSync } = await import("node:fs");
  const { join } = await import("node:path");
  const { spawnYoke } = await import("../helpers/binary.ts");
  const { waitFor } = await import("../helpers/wait-for.ts");
  const tmp = tempDir();
  const cwd = tempDir();
  const env = { ...fakeApiEnv(fake), TMPDIR: tmp };
  const marker = join(cwd, "started");
  fake.push(
    { content: [{ type: "tool_use", name: "Bash", input: { command: `sleep 300 & echo $! > ${marker}; wait`, run_in_background: true } }] },
    { content: [{ type: "tool_use", name: "Bash", input: { command: "sleep 300" } }] },
  );
  const killed = spawnYoke(["-p", "go", "--allowedTools", "Bash"], { cwd, env });
  killed.stdin.end();
  const before = fake.requests.length;
  await waitFor(() => existsSync(marker) && readFileSync(marker, "utf8").endsWith("\n"), "the killed run's background shell");
  await waitFor(() => fake.requests.length === before + 2, "the killed run's second request (its foreground sleep)");
  const left = readdirSync(tmp).filter((n) => n.startsWith("yoke-") && !n.startsWith("yoke-stdin-"));
  expect(left.length).toBe(1);
  killed.kill("SIGKILL");
  await killed.exited;
  expect(readdirSync(tmp)).toContain(left[0]!);

  // A folder owned by a live process (another run) stays.
  const live = Bun.spawn(["sleep", "60"]);
  const stat = readFileSync(`/proc/${live.pid}/stat`, "utf8");
  const start = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  const liveRun = "yoke-00000000-0000-4000-8000-0000000000aa";
  mkdirSync(join(tmp, liveRun));
  writeFileSync(join(tmp, liveRun, ".yoke-owner"), JSON.stringify({ pid: live.pid, start, at: "" }));
  try {
    fake.push({ content: [{ type: "text", text: "hi" }] });
    const r = await runYoke(["-p", "hello"], { cwd: tempDir(), env });
    expect(r.code).toBe(0);
    expect(readdirSync(tmp).filter((n) => n.startsWith("yoke-"))).toEqual([liveRun]);
  } finally {
    live.kill();
  }
}, 60_000);
