// The benchmark's measuring pieces (bench/measure.ts, bench/scenarios.ts) against real processes.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { detectRssMethod, measure, stats } from "../../bench/measure.ts";
import { freshCwd, installResponder, newRunLog, runProblem, scenarioArgs, type RunLog } from "../../bench/scenarios.ts";
import { configuredArgs, configuredProblem, writeConfiguredProject } from "../../bench/project.ts";
import { parseCpu, parseTiming } from "../../bench/timing.ts";
import { fakeApiEnv, startFakeAnthropic, type FakeAnthropic } from "../helpers/fake-anthropic.ts";
import { isolatedEnv, TRUST_WORKSPACE, yokeBin } from "../helpers/binary.ts";

// Real runs of the binary: on a loaded shared machine two of them have taken over 30 s.
setDefaultTimeout(180_000);

describe("stats", () => {
  test("median of odd and even counts, min, max; null for none", () => {
    expect(stats([5, 1, 3])).toMatchObject({ median: 3, min: 1, max: 5 });
    expect(stats([4, 1, 3, 2])!.median).toBe(2.5);
    expect(stats([])).toBeNull();
  });
});

describe("measure", () => {
  const method = detectRssMethod();
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };

  test("peak RSS is the child's own, not the (bigger) bench process's", async () => {
    if (method === "none") return;
    // Grow this process well past any small child: Bun's resourceUsage().maxRSS would report this.
    const ballast = new Uint8Array(200 * 1024 * 1024).fill(1);
    const s = await measure(["true"], { cwd: "/", env, rss: method });
    expect(ballast[7]).toBe(1);
    expect(s.code).toBe(0);
    expect(s.rssKiB).not.toBeNull();
    expect(s.rssKiB!).toBeLessThan(50 * 1024);
  });

  test("a child that touches 150 MiB peaks above it; exit code and output come back", async () => {
    if (method === "none") return;
    const script = "const b = new Uint8Array(150 * 1024 * 1024).fill(1); console.log(b[3]); process.exit(3)";
    const s = await measure([process.execPath, "-e", script], { cwd: "/", env, rss: method });
    expect(s.code).toBe(3);
    expect(s.stdout.trim()).toBe("1");
    expect(s.rssKiB!).toBeGreaterThan(150 * 1024);
    expect(s.wallMs).toBeGreaterThan(0);
  });

  test("the reaper counts the CPU of what the child leaves running after its exit; the exit code is the child's", async () => {
    if (method !== "reaper") return;
    // The child exits at once; the orphan it leaves does ~0.2 s of CPU work after that (a fixed amount of work).
    const cmd = ["sh", "-c", "(i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done) & exit 4"];
    const direct = await measure(cmd, { cwd: "/", env, rss: "none" });
    const reaped = await measure(cmd, { cwd: "/", env, rss: method });
    expect(direct.code).toBe(4);
    expect(reaped.code).toBe(4);
    expect(reaped.cpuMs!).toBeGreaterThan(50);
    expect(reaped.cpuMs!).toBeGreaterThan(5 * direct.cpuMs!);
    expect(reaped.rssKiB).not.toBeNull();
  });

  test("a child past its timeout is killed and flagged", async () => {
    const s = await measure(["sleep", "5"], { cwd: "/", env, rss: method, timeoutMs: 200 });
    expect(s.timedOut).toBe(true);
  });
});

describe("scenarios against the compiled binary", () => {
  let fake: FakeAnthropic;
  let current: RunLog | null = null;
  beforeAll(async () => {
    yokeBin();
    fake = await startFakeAnthropic();
  });
  afterAll(() => fake.stop());

  test("one-turn and three-turn scripts run as scripted; a wrong answer is named", async () => {
    const restock = installResponder(fake, () => current, () => "Read");
    for (const id of ["oneTurn", "threeTurns"] as const) {
      const cwd = freshCwd();
      current = newRunLog(id, cwd);
      restock();
      const s = await measure([yokeBin(), ...scenarioArgs(id)], { cwd, env: isolatedEnv(fakeApiEnv(fake)), rss: "none" });
      expect(runProblem(id, s, current)).toBeNull();
      expect(current.mainRequests).toBe(id === "oneTurn" ? 1 : 3);
      // The first request arrives after the spawn and before the child has exited.
      expect(current.firstRequestAt! - s.startedAt).toBeGreaterThan(0);
      expect(current.firstRequestAt! - s.startedAt).toBeLessThan(s.wallMs);
      if (id === "threeTurns") expect(current.toolResults[1]!.text).toContain("1\thello");
    }
    const log = newRunLog("oneTurn", freshCwd());
    expect(runProblem("oneTurn", { code: 0, stdout: "something else\n", stderr: "", timedOut: false }, log)).toContain("stdout lacks");
    current = null;
  });
});

describe("the configured project (issue 21 point 1)", () => {
  let fake: FakeAnthropic;
  let current: RunLog | null = null;
  beforeAll(async () => {
    yokeBin();
    fake = await startFakeAnthropic();
  });
  afterAll(() => fake.stop());

  test("yoke's first request carries CLAUDE.md, the skills, a plugin's skill and the MCP server's tools; YOKE_TIMING's marks come back", async () => {
    const restock = installResponder(fake, () => current, () => "Read");
    const cwd = freshCwd();
    writeConfiguredProject(cwd);
    current = newRunLog("oneTurn", cwd);
    restock();
    const env = isolatedEnv({ ...fakeApiEnv(fake), ...TRUST_WORKSPACE, YOKE_TIMING: "1" });
    const s = await measure([yokeBin(), ...scenarioArgs("oneTurn"), ...configuredArgs()], { cwd, env, rss: "none" });
    expect(runProblem("oneTurn", s, current)).toBeNull();
    expect(configuredProblem(current.firstBody, { mcp: true })).toBeNull();
    const marks = parseTiming(s.stderr);
    for (const m of ["main", "headless-loaded", "composed", "request", "exit"]) expect(marks[m]).toBeGreaterThan(0);
    expect(marks.main!).toBeLessThan(marks.request!);
    current = null;
  });

  test("a first request without the project's files is named for what it lacks", () => {
    expect(configuredProblem({ system: "x", messages: [], tools: [] }, { mcp: true })).toContain("CLAUDE.md");
    const body = { system: "bench-claude-md: tabs, never spaces bench-skill-1 frontend-design:frontend-design", tools: [{ name: "Read" }] };
    expect(configuredProblem(body, { mcp: true })).toContain("MCP server tiny");
    expect(configuredProblem(body, { mcp: false })).toBeNull();
  });

  test("parseTiming reads the phase line and ignores other stderr", () => {
    expect(parseTiming("warn: x\nyoke timing (ms since start): main=3.5 headless-loaded=10.0 request=20.25\n")).toEqual({ main: 3.5, "headless-loaded": 10, request: 20.25 });
    expect(parseTiming("nothing here")).toEqual({});
  });

  test("parseCpu reads the CPU line, not the phase line", () => {
    const stderr = "yoke timing (ms since start): main=3.5 request=20.25\nyoke cpu (ms of this process): main=1.5 request=9\n";
    expect(parseCpu(stderr)).toEqual({ main: 1.5, request: 9 });
    expect(parseTiming(stderr)).toEqual({ main: 3.5, request: 20.25 });
    expect(parseCpu("yoke timing (ms since start): main=3.5\n")).toEqual({});
  });
});
