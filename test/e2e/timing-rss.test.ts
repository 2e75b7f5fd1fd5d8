// YOKE_TIMING_RSS=1 (with YOKE_TIMING=1): the resident set size at each phase mark and its split at exit, for issue 21's
// peak-memory work (bench/memory.ts). Format only: figures belong in bench/, never in a test.
import { expect, test } from "bun:test";
import { fakeApiEnv } from "../helpers/fake-anthropic.ts";
import { isolatedEnv, runYoke } from "../helpers/binary.ts";
import { useFakeAnthropic } from "../helpers/e2e.ts";

const fake = useFakeAnthropic();

const fields = (line: string) => line.split(": ")[1]!.split(" ").filter((e) => e.includes("=")).map((kv) => kv.split("=") as [string, string]);

test("YOKE_TIMING_RSS=1 adds the RSS at every timing mark and the split at exit; without YOKE_TIMING it prints nothing", async () => {
  fake.push({ content: [{ type: "text", text: "hi" }] });
  const r = await runYoke(["-p", "x"], { env: isolatedEnv({ ...fakeApiEnv(fake), YOKE_TIMING: "1", YOKE_TIMING_RSS: "1" }) });
  expect(r.code).toBe(0);
  expect(r.stdout).toBe("hi\n");
  const [timing, cpu, rss, byKind, split, ...rest] = r.stderr.trim().split("\n");
  expect(rest).toEqual([]);
  expect(timing!.startsWith("yoke timing (ms since start): ")).toBe(true);
  expect(cpu!.startsWith("yoke cpu (ms of this process): ")).toBe(true);
  expect(rss!.startsWith("yoke rss (MiB at each mark): ")).toBe(true);
  expect(fields(rss!).map(([k]) => k)).toEqual(fields(timing!).map(([k]) => k));
  expect(fields(rss!).every(([, v]) => Number(v) > 0)).toBe(true);
  // Each mark's RSS split by kind (Bun's code, read-only data, data and bytecode, anonymous, libraries): which phase
  // grew which kind (issue 21's peak-memory work).
  expect(byKind!.startsWith("yoke rss by kind (MiB at each mark, binary-code/binary-rodata/binary-data/anon/libs): ")).toBe(true);
  expect(fields(byKind!).map(([k]) => k)).toEqual(fields(timing!).map(([k]) => k));
  expect(fields(byKind!).every(([, v]) => v.split("/").length === 5 && v.split("/").every((x) => Number(x) >= 0))).toBe(true);
  expect(split!.startsWith("yoke memory at exit (MiB): ")).toBe(true);
  const kinds = Object.fromEntries(fields(split!));
  expect(Object.keys(kinds)).toEqual(["binary-code", "binary-rodata", "binary-data", "anon", "libs", "js-heap-capacity", "js-functions", "js-code-blocks", "js-structures", "threads"]);
  expect(Object.values(kinds).every((v) => Number(v) > 0)).toBe(true);

  fake.push({ content: [{ type: "text", text: "hi" }] });
  const alone = await runYoke(["-p", "x"], { env: isolatedEnv({ ...fakeApiEnv(fake), YOKE_TIMING_RSS: "1" }) });
  expect(alone.code).toBe(0);
  expect(alone.stderr).toBe("");
});
