// Issue 17 point 5: the Stop payload's background_tasks lists the shells still running, as Claude Code 2.1.332 sends
// them (observed in 2.1.332: `{"id","type":"shell","status":"running","description","command"}`; the command
// stands in for a missing description). Run through the compiled binary against the fake API.
import { beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { yokeBin } from "../helpers/binary.ts";
import { hook, hooksProject, runWith, say, script } from "./hooks-helpers.ts";

// Each test runs the compiled binary (some several times): seconds apiece on a loaded 2-core machine.

beforeAll(() => void yokeBin());

const stopLog = (cwd: string) => {
  const log = join(cwd, "stop.log");
  const rec = script(cwd, "rec.sh", `cat >> ${log}; echo >> ${log}`);
  return { log, rec, payloads: () => readFileSync(log, "utf8").trim().split("\n").map((l) => JSON.parse(l)) };
};
const bg = (command: string, description?: string) => ({
  content: [{ type: "tool_use" as const, name: "Bash", input: { command, run_in_background: true, ...(description ? { description } : {}) } }],
});

describe("Stop background_tasks (issue 17.5, contracts §1.4)", () => {
  test("running background shells are listed, with and without a description", async () => {
    const cwd = hooksProject({});
    const s = stopLog(cwd);
    await Bun.write(join(cwd, ".claude/settings.json"), JSON.stringify({ hooks: hook("Stop", s.rec) }));
    const r = await runWith(cwd, [bg("sleep 300", "long nap"), bg("sleep 301"), say("started")], ["--allowedTools", "Bash"]);
    expect(r.code).toBe(0);
    expect(s.payloads()[0].background_tasks).toEqual([
      { id: "bash_1", type: "shell", status: "running", description: "long nap", command: "sleep 300" },
      { id: "bash_2", type: "shell", status: "running", description: "sleep 301", command: "sleep 301" },
    ]);
  });

  test("a shell stopped with TaskStop is no longer listed; with none running the list is empty", async () => {
    const cwd = hooksProject({});
    const s = stopLog(cwd);
    await Bun.write(join(cwd, ".claude/settings.json"), JSON.stringify({ hooks: hook("Stop", s.rec) }));
    const stop = { content: [{ type: "tool_use" as const, name: "TaskStop", input: { task_id: "bash_1" } }] };
    const r = await runWith(cwd, [bg("sleep 300"), stop, say("stopped")], ["--allowedTools", "Bash,TaskStop"]);
    expect(r.code).toBe(0);
    expect(s.payloads()[0].background_tasks).toEqual([]);
  });
});
