import { expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { loadTranscript } from "../../src/session/load.ts";
import { transcriptPath } from "../../src/session/store.ts";
import { tempEnv } from "./helpers.ts";

const STORE = resolve(import.meta.dir, "../../src/session/store.ts");

// The child appends numbered lines of random size (some large, so a kill can land mid-write) and
// reports each completed append on stdout; the parent SIGKILLs it at a random moment.
const CHILD = `
import { createSessionStore } from ${JSON.stringify(STORE)};
const store = createSessionStore({ cwd: "/crash", sessionId: "crash", env: process.env });
let n = Number(process.env.START);
for (;;) {
  const size = Math.random() < 0.05 ? 50000 + Math.floor(Math.random() * 150000) : Math.floor(Math.random() * 1000);
  store.append({ type: "user", uuid: crypto.randomUUID(), parentUuid: null, sessionId: "crash", message: { role: "user", content: "x".repeat(size) }, seq: n });
  process.stdout.write(n + "\\n");
  n++;
}
`;

test("SIGKILL at random points never loses a completed line and never breaks reload (crash-safety, contracts §5.2)", async () => {
  const { env } = tempEnv();
  const path = transcriptPath("/crash", "crash", env);
  const script = join(env.HOME!, "child.ts");
  await Bun.write(script, CHILD);
  let expected = 0;
  let torn = 0;
  const RUNS = 52;
  for (let run = 0; run < RUNS; run++) {
    const child = Bun.spawn(["bun", script], { env: { ...env, START: String(expected) }, stdout: "pipe", stderr: "pipe" });
    const reader = child.stdout.getReader();
    let lastDone = -1;
    let buf = "";
    const killAfter = Math.floor(Math.random() * 15);
    let timer: ReturnType<typeof setTimeout> | undefined;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += new TextDecoder().decode(value);
      const nl = buf.lastIndexOf("\n");
      if (nl >= 0) {
        const nums = buf.slice(0, nl).split("\n");
        lastDone = Number(nums[nums.length - 1]);
        buf = buf.slice(nl + 1);
      }
      if (!timer) timer = setTimeout(() => child.kill("SIGKILL"), killAfter);
    }
    await child.exited;
    expect(child.signalCode).toBe("SIGKILL");

    const r = loadTranscript(path);
    const seqs = r.entries.map((e) => (e as unknown as { seq: number }).seq);
    // contiguous 0..k-1: nothing lost, nothing duplicated, nothing out of order
    const firstGap = seqs.findIndex((s, i) => s !== i);
    expect(firstGap).toBe(-1);
    // every append the child reported as finished is there
    expect(seqs.length).toBeGreaterThanOrEqual(lastDone + 1);
    // only torn fragments are skipped: at most one per killed run so far
    const bad = r.warnings.filter((w) => !w.includes("incomplete last line"));
    expect(bad.every((w) => w.includes("not valid JSON"))).toBe(true);
    if (r.warnings.some((w) => w.includes("incomplete last line"))) torn++;
    expect(r.warnings.length).toBeLessThanOrEqual(run + 1);
    expected = seqs.length;
  }
  expect(expected).toBeGreaterThan(RUNS);
  // how many runs ended mid-line is chance; log it to see the test exercises tearing
  rmSync(env.HOME!, { recursive: true, force: true });
  console.log(`crash test: ${RUNS} kills, ${expected} lines kept, ${torn} runs left a torn last line`);
}, 60_000);
