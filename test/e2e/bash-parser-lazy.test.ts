// Issue 21: the shell parser (mvdan-sh, ~100 ms of CPU to start) loads only for a Bash command that needs it. A program
// and plain words is decided without it (src/permission/bash-plain.ts); a pipe still goes through it, and its rules
// still decide. The binary's YOKE_TIMING marks say whether the parser was loaded.
import { expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fakeApiEnv, toolResultsOf } from "../helpers/fake-anthropic.ts";
import { runYoke } from "../helpers/binary.ts";
import { useFakeAnthropic } from "../helpers/e2e.ts";
import { tempDir } from "../helpers/tmp.ts";

const fake = useFakeAnthropic({ perTest: true });

async function bashOnce(command: string, allow: string) {
  const cwd = tempDir("yoke-bash-lazy-");
  fake.push({ content: [{ type: "tool_use", name: "Bash", input: { command, description: "step" } }] }, { content: [{ type: "text", text: "done" }] });
  const r = await runYoke(["-p", "go", "--allowedTools", allow], { cwd, env: { ...fakeApiEnv(fake), YOKE_TIMING: "1" } });
  expect(r.code).toBe(0);
  const result = toolResultsOf(fake.requests[1]!)[0]!;
  return { cwd, result, parserLoaded: r.stderr.includes("bash-parser-loaded=") };
}

test("an allowed plain command runs without loading the shell parser", async () => {
  const { cwd, result, parserLoaded } = await bashOnce("mkdir made", "Bash(mkdir:*)");
  expect(result.is_error).toBe(false);
  expect(existsSync(join(cwd, "made"))).toBe(true);
  expect(parserLoaded).toBe(false);
});

test("a plain command no rule allows is still refused without the parser (-p asks no one)", async () => {
  const { cwd, result, parserLoaded } = await bashOnce("mkdir made", "Bash(ls:*)");
  expect(result.is_error).toBe(true);
  expect(existsSync(join(cwd, "made"))).toBe(false);
  expect(parserLoaded).toBe(false);
});

test("a pipe loads the parser, and each part is checked against the rules", async () => {
  const allowedOnlyLs = await bashOnce("ls | mkdir made", "Bash(ls:*)");
  expect(allowedOnlyLs.parserLoaded).toBe(true);
  expect(allowedOnlyLs.result.is_error).toBe(true);
  expect(existsSync(join(allowedOnlyLs.cwd, "made"))).toBe(false);
});
