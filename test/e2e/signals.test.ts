// Issue 2 point 5: SIGINT/SIGTERM abort the request and the running tools (whole process groups),
// the transcript stays whole, and the exit code is 130/143.
import { expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fakeApiEnv } from "../helpers/fake-anthropic.ts";
import { isolatedEnv, spawnYoke } from "../helpers/binary.ts";
import { tempDir } from "../helpers/tmp.ts";
import { alive } from "../helpers/process-alive.ts";
import { waitFor } from "../helpers/wait-for.ts";
import { useFakeAnthropic } from "../helpers/e2e.ts";

const fake = useFakeAnthropic();

for (const [sig, code] of [["SIGINT", 130], ["SIGTERM", 143]] as const) {
  test(`${sig} during a Bash tool kills its process group and exits ${code}`, async () => {
    const cwd = tempDir();
    const pidFile = join(cwd, "child.pid");
    fake.push({ content: [{ type: "tool_use", name: "Bash", input: { command: `sleep 300 & echo $! > ${pidFile}; wait` } }] });
    const env = isolatedEnv({ ...fakeApiEnv(fake) });
    const proc = spawnYoke(["-p", "run it", "--output-format", "json", "--dangerously-skip-permissions"], { cwd, env: { ...env, IS_SANDBOX: "1" } });
    await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").trim() !== "", "the Bash child's pid file");
    const child = Number(readFileSync(pidFile, "utf8").trim());
    expect(alive(child)).toBe(true);
    proc.kill(sig);
    const exit = await proc.exited;
    expect(exit).toBe(code);
    await waitFor(() => !alive(child), "the Bash child to die");
    const out = await new Response(proc.stdout).text();
    // The run ends with an error result, not a hang or a crash.
    if (out.trim()) expect(JSON.parse(out)).toMatchObject({ is_error: true });
    const projects = join(env.YOKE_CONFIG_DIR!, "projects");
    const dir = readdirSync(projects)[0]!;
    const file = readdirSync(join(projects, dir)).find((f) => f.endsWith(".jsonl"))!;
    const lines = readFileSync(join(projects, dir, file), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(lines.filter((l) => l.type === "assistant").length).toBe(1);
  });
}

test("SIGTERM while waiting on the model aborts the request and exits 143", async () => {
  fake.push({ fault: "hang" });
  const proc = spawnYoke(["-p", "hi"], { cwd: tempDir(), env: isolatedEnv({ ...fakeApiEnv(fake) }) });
  const before = fake.requests.length;
  await waitFor(() => fake.requests.length > before, "the model request");
  proc.kill("SIGTERM");
  expect(await proc.exited).toBe(143);
});
