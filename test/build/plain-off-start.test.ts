// Issue 21 point 4 (binary ≤ 110 MiB at equal start-up): the plain packages of build-plugins.ts travel without bytecode,
// so a start that ran one would evaluate it from source. Each stand-in marks `yoke:plain-<name>` when it evaluates its
// package; this runs the compiled binary through every measured start (the bench's scenarios in its configured project,
// bench/project.ts) and fails if any of them evaluated a plain package. A run that needs one shows its mark.
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { markName, PLAIN_PACKAGES } from "../../build-plugins.ts";
import { configuredArgs, configuredProblem, writeConfiguredProject } from "../../bench/project.ts";
import { freshCwd, installResponder, newRunLog, runProblem, scenarioArgs, type RunLog, type ScenarioId } from "../../bench/scenarios.ts";
import { parseTiming } from "../../bench/timing.ts";
import { runYoke, yokeBin } from "../helpers/binary.ts";
import { fakeApiEnv } from "../helpers/fake-anthropic.ts";
import { useFakeAnthropic } from "../helpers/e2e.ts";

setDefaultTimeout(120_000);

const fake = useFakeAnthropic();
let current: RunLog | null = null;
beforeAll(() => {
  yokeBin();
});

/** The `plain-*` marks of one run of a bench scenario in a configured project (`prepare` adds files), after its checks. */
async function plainMarksOf(id: ScenarioId, prepare?: (cwd: string) => void): Promise<string[]> {
  const restock = installResponder(fake, () => current, () => "Bash");
  const cwd = freshCwd();
  if (id !== "version") writeConfiguredProject(cwd);
  prepare?.(cwd);
  current = newRunLog(id, cwd);
  restock();
  const r = await runYoke([...scenarioArgs(id), ...(id === "version" ? [] : configuredArgs())], {
    cwd,
    env: { ...fakeApiEnv(fake), YOKE_TIMING: "1", YOKE_TRUST_WORKSPACE: "1" },
  });
  const log = current;
  current = null;
  const problem = runProblem(id, { ...r, timedOut: false }, log) ?? (id === "version" ? null : configuredProblem(log.firstBody, { mcp: true }));
  if (problem) throw new Error(`${id}: ${problem}`);
  const phases = parseTiming(r.stderr);
  expect(Object.keys(phases)).toContain("exit");
  return Object.keys(phases).filter((k) => k.startsWith("plain-"));
}

describe("no measured start evaluates a plain package (build-plugins.ts)", () => {
  test.each(["version", "oneTurn", "threeTurns"] as ScenarioId[])("%s: no plain package evaluated", async (id) => {
    expect(await plainMarksOf(id)).toEqual([]);
  });

  test("each plain package has its own mark", () => {
    const marks = PLAIN_PACKAGES.map(markName);
    expect(new Set(marks).size).toBe(PLAIN_PACKAGES.length);
    for (const m of marks) expect(m).toMatch(/^[\w-]+$/);
  });

  test("a start that needs one shows it: a skill whose frontmatter is a YAML block scalar evaluates the YAML library", async () => {
    const marks = await plainMarksOf("oneTurn", (cwd) => {
      mkdirSync(join(cwd, ".claude", "skills", "folded"), { recursive: true });
      writeFileSync(join(cwd, ".claude", "skills", "folded", "SKILL.md"), "---\nname: folded\ndescription: >\n  Folded over\n  two lines\n---\nBody.\n");
    });
    expect(marks).toEqual([`plain-${markName("yaml")}`]);
  });
});
