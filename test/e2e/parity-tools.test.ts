// Issue 17 point 8: background tasks as Claude Code 2.1.332 names and words them (contracts §7.1: TaskStop is the
// current name, KillShell and KillBash legacy aliases).
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { fakeApiEnv, startFakeAnthropic, toolResultsOf, type FakeAnthropic } from "../helpers/fake-anthropic.ts";
import { isolatedEnv, runYoke, yokeBin } from "../helpers/binary.ts";
import { tempDir } from "../helpers/tmp.ts";

// Each test runs the compiled binary (some several times): seconds apiece on a loaded 2-core machine.
setDefaultTimeout(30_000);

let fake: FakeAnthropic;
beforeAll(async () => {
  yokeBin();
  fake = await startFakeAnthropic();
});
afterAll(() => fake.stop());

const call = (name: string, input: Record<string, unknown>) => ({ content: [{ type: "tool_use" as const, name, input }] });

describe("TaskStop and the background-Bash result (issue 17.8)", () => {
  test("the model sees TaskStop; the background result says `with ID: <id>`; KillShell and KillBash still reach it", async () => {
    fake.push(
      call("Bash", { command: "sleep 30", run_in_background: true }),
      call("Bash", { command: "sleep 30", run_in_background: true }),
      call("Bash", { command: "sleep 30", run_in_background: true }),
      call("TaskStop", { task_id: "bash_1" }),
      call("KillShell", { shell_id: "bash_2" }),
      call("KillBash", { shell_id: "bash_3" }),
      { content: [{ type: "text", text: "stopped all" }] },
    );
    const before = fake.requests.length;
    const r = await runYoke(["-p", "go", "--allowedTools", "Bash,TaskStop"], { cwd: tempDir(), env: isolatedEnv({ ...fakeApiEnv(fake) }) });
    expect(r.code).toBe(0);
    const names = (fake.requests[before]!.body.tools as Array<{ name: string }>).map((t) => t.name);
    expect(names).toContain("TaskStop");
    expect(names).not.toContain("KillShell");
    const result = (i: number) => toolResultsOf(fake.requests[before + i]!)[0]!;
    expect(result(1).text).toStartWith("Command running in background with ID: bash_1.");
    for (const [i, id] of [[4, "bash_1"], [5, "bash_2"], [6, "bash_3"]] as const) {
      expect(result(i).is_error).toBe(false);
      expect(result(i).text).toContain(`Stopped background shell ${id}`);
    }
  });
});
