// Issue 21: the Bash checker (bash-check.ts and the modules under it, which the permission evaluator loads on the first
// Bash decision) loads as soon as a Bash call's block starts streaming (src/cli/shell-warm.ts), beside the rest of the
// answer and the call's PreToolUse hooks, not in the permission check after them. YOKE_TIMING's `bash-checker-loaded`
// mark shows it in a run whose PreToolUse hook blocks the call: no permission check runs there, so only the warm can
// have loaded the checker; a run without a Bash call never loads it.
import { beforeAll, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { toolResultsOf } from "../helpers/fake-anthropic.ts";
import { yokeBin } from "../helpers/binary.ts";
import { bashCall, hook, hooksProject, runWith, say } from "./hooks-helpers.ts";

beforeAll(() => {
  yokeBin();
});

test("a Bash call loads the checker while its PreToolUse hook runs, even when the hook blocks the call", async () => {
  const cwd = hooksProject(hook("PreToolUse", "cat > /dev/null; echo blocked >&2; exit 2", "Bash"));
  const r = await runWith(cwd, [bashCall("mkdir made"), say("ok")], ["--allowedTools", "Bash"], { env: { YOKE_TIMING: "1" } });
  expect(r.code).toBe(0);
  expect(toolResultsOf(r.requests[1]!)[0]!.text).toContain("PreToolUse:Bash hook error");
  expect(existsSync(join(cwd, "made"))).toBe(false);
  expect(r.stderr).toContain("bash-checker-loaded=");
});

test("a run that calls no Bash never loads the checker", async () => {
  const cwd = hooksProject({});
  const r = await runWith(cwd, [{ content: [{ type: "tool_use", name: "Read", input: { file_path: join(cwd, ".claude", "settings.json") } }] }, say("ok")], [], {
    env: { YOKE_TIMING: "1" },
  });
  expect(r.code).toBe(0);
  expect(toolResultsOf(r.requests[1]!)[0]!.is_error).toBe(false);
  expect(r.stderr).toContain("yoke timing");
  expect(r.stderr).not.toContain("bash-checker-loaded=");
});
