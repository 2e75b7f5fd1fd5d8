/**
 * The fake Anthropic API in its own process, for benches that poll a terminal with blocking calls (tmux
 * capture-pane): served from the bench process itself, the SSE stream only advanced between two polls, so a
 * streamed answer took as long as the polling allowed, whatever the program under test did.
 *   bun bench/fake-serve.ts SCRIPT.json [chunkDelayMs]   → prints the base URL, serves until stdin closes
 */
import { readFileSync } from "node:fs";
import { startFakeAnthropic, type FakeEntry } from "../test/helpers/fake-anthropic.ts";

const script = JSON.parse(readFileSync(process.argv[2]!, "utf8")) as FakeEntry[];
const fake = await startFakeAnthropic({ script, chunkDelayMs: Number(process.argv[3] ?? 0), validate: false });
console.log(fake.url);
for await (const _ of process.stdin) {
  // Nothing is read: the bench closes stdin (or dies) to stop the fake.
}
await fake.stop();
process.exit(0);
