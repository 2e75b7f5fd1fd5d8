/**
 * The Agent SDK's view of start-up: `query()` with a one-turn prompt until its `result`, through the real SDK,
 * against the fake Messages API. yoke (dist/yoke) and, when the SDK's bundled Claude Code is installed (its
 * optional platform package), Claude Code itself. Prints median, min and max of 7 runs each.
 * Run: bun run build && bun run bench/agent-sdk.ts
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { query } from "@anthropic-ai/claude-agent-sdk";
import { fakeApiEnv, startFakeAnthropic } from "../test/helpers/fake-anthropic.ts";
import { isolatedEnv, repoRoot } from "../test/helpers/binary.ts";
import { tempDir } from "../test/helpers/tmp.ts";

const RUNS = 7;
const root = repoRoot();
const bins: Array<[string, string]> = [["yoke", join(root, "dist", "yoke")]];
const bundled = join(root, "node_modules", "@anthropic-ai", `claude-agent-sdk-${process.platform}-${process.arch}`, "claude");
if (existsSync(bundled)) bins.push(["claude (bundled with the SDK)", bundled]);

const fake = await startFakeAnthropic();
for (const [name, bin] of bins) {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    // Claude Code makes side requests of its own; every one gets a short answer.
    for (let k = 0; k < 5; k++) fake.push({ content: [{ type: "text", text: "hi" }] });
    const t = performance.now();
    const q = query({ prompt: "hi", options: { pathToClaudeCodeExecutable: bin, cwd: tempDir(), env: isolatedEnv({ ...fakeApiEnv(fake) }) } });
    for await (const m of q) if (m.type === "result") break;
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  console.log(`${name}: query() → result median ${Math.round(times[RUNS >> 1]!)} ms (min ${Math.round(times[0]!)}, max ${Math.round(times[RUNS - 1]!)})`);
}
await fake.stop();
