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
}, 30_000);
