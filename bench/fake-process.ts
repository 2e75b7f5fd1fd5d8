/**
 * The fake Anthropic API in a child process (bench/fake-serve.ts), for benches that poll a terminal with blocking
 * calls: served from the bench process itself, an SSE stream advances only between two polls.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../test/helpers/binary.ts";
import type { FakeEntry } from "../test/helpers/fake-anthropic.ts";
import { tempDir } from "../test/helpers/tmp.ts";

export async function startFakeProcess(script: FakeEntry[], chunkDelayMs = 0): Promise<{ url: string; stop(): Promise<void> }> {
  const file = join(tempDir("yoke-bench-fake-"), "script.json");
  writeFileSync(file, JSON.stringify(script));
  const child = Bun.spawn(["bun", join(repoRoot(), "bench", "fake-serve.ts"), file, String(chunkDelayMs)], { stdin: "pipe", stdout: "pipe", stderr: "inherit" });
  const reader = child.stdout.getReader();
  let out = "";
  while (!out.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("bench: the fake API did not start");
    out += new TextDecoder().decode(value);
  }
  return {
    url: out.trim(),
    async stop() {
      child.stdin.end();
      await child.exited;
    },
  };
}
