/**
 * Issue 18.5: `yoke sessions export` reads a fleet's results folder (task-<i>/result.json, failed-*.json per failed
 * attempt) or any result files, and prints one table (or JSON, CSV): id, status, turns, cost, duration, denials.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runYoke } from "../helpers/binary.ts";
import { tempDir } from "../helpers/tmp.ts";

// Each test runs the compiled binary (and packs or installs it): seconds on a loaded machine.
setDefaultTimeout(60_000);

const result = (o: Record<string, unknown>) =>
  JSON.stringify({ type: "result", subtype: "success", is_error: false, duration_ms: 1000, num_turns: 2, session_id: "00000000-0000-4000-8000-000000000000", total_cost_usd: 0.01, permission_denials: [], ...o });

function fleet(): string {
  const root = tempDir("yoke-export-");
  const put = (rel: string, text: string) => {
    mkdirSync(join(root, rel, ".."), { recursive: true });
    writeFileSync(join(root, rel), text);
  };
  put("task-0/result.json", result({ session_id: "aaaaaaaa-0000-4000-8000-000000000000", permission_denials: [{ tool_name: "Bash" }], duration_ms: 4000 }));
  put("task-1/failed-100-1.json", result({ is_error: true, subtype: "error_during_execution" }));
  put("task-1/result.json", result({ session_id: "bbbbbbbb-0000-4000-8000-000000000000", num_turns: 5, total_cost_usd: 0.05, duration_ms: 9000 }));
  put("task-2/failed-100-1.json", result({ session_id: "cccccccc-0000-4000-8000-000000000000", is_error: true, subtype: "error_during_execution" }));
  put("task-2/failed-200-1.json", result({ session_id: "cccccccc-0000-4000-8000-000000000000", is_error: false, duration_ms: 2000 }));
  put("task-10/result.json", result({ session_id: "dddddddd-0000-4000-8000-000000000000", is_error: true, subtype: "error_max_turns", num_turns: 10 }));
  put(".yoke/projects/x/state.json", "{}");
  put("notes.json", '{"not": "a result"}');
  put("broken.json", "{ cut");
  return root;
}

describe("yoke sessions export", () => {
  test("a fleet's folder: one row per task, a task that never succeeded listed as failed, attempts counted", async () => {
    const root = fleet();
    const r = await runYoke(["sessions", "export", root, "--json"]);
    expect(r.code).toBe(0);
    const x = JSON.parse(r.stdout);
    expect(x.tasks.map((t: any) => [t.task, t.status, t.attempts])).toEqual([
      ["task-0", "success", 1],
      ["task-1", "success", 2],
      ["task-2", "error", 2],
      ["task-10", "error_max_turns", 1],
    ]);
    expect(x.tasks[0]).toMatchObject({ session_id: "aaaaaaaa-0000-4000-8000-000000000000", denials: 1, duration_ms: 4000, cost_usd: 0.01, turns: 2 });
    expect(x.summary).toMatchObject({ tasks: 4, succeeded: 2, failed: 2, turns: 19, denials: 1 });
    expect(x.summary.cost_usd).toBeCloseTo(0.08, 6);
    expect(x.summary.duration_ms.max).toBe(9000);
    // A file that is not JSON is named; JSON that is not a result is skipped quietly.
    expect(r.stderr).toContain("broken.json: not a result JSON file");
    expect(r.stderr).not.toContain("notes.json");
  });

  test("the table and CSV forms", async () => {
    const root = fleet();
    const t = await runYoke(["sessions", "export", root]);
    expect(t.stdout.split("\n")[0]).toMatch(/^task\s+session\s+status\s+turns\s+cost\s+duration\s+denials\s+attempts$/);
    expect(t.stdout).toContain("4 tasks: 2 succeeded, 2 failed; 19 turns, $0.0800, 1 denials");
    const c = await runYoke(["sessions", "export", join(root, "task-0"), join(root, "task-1"), "--csv"]);
    expect(c.stdout.trim().split("\n")).toEqual([
      "task,session_id,status,is_error,turns,cost_usd,duration_ms,denials,attempts",
      "task-0,aaaaaaaa-0000-4000-8000-000000000000,success,false,2,0.01,4000,1,1",
      "task-1,bbbbbbbb-0000-4000-8000-000000000000,success,false,5,0.05,9000,0,2",
    ]);
  });

  test("no path, a missing path, or nothing found: a message naming it and exit 1", async () => {
    const a = await runYoke(["sessions", "export"]);
    expect(a.code).toBe(1);
    expect(a.stderr).toContain("needs the result files or folders");
    const b = await runYoke(["sessions", "export", "/nonexistent-results"]);
    expect(b.code).toBe(1);
    expect(b.stderr).toContain("no such file or folder: /nonexistent-results");
    const c = await runYoke(["sessions", "export", tempDir("yoke-export-empty-")]);
    expect(c.code).toBe(1);
  });
});
