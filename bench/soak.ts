/**
 * Soak (issue 20.9): one headless session of many turns (default 1,000) through the compiled binary, fed over
 * stream-json input, against the fake Anthropic API. Every turn the model calls a tool (Bash `echo`, then Read)
 * and answers; a low auto-compaction threshold makes the session compact about twice. Samples the process's
 * RSS and open file descriptors (Linux /proc) after every turn and prints:
 *   - peak RSS before and after the first compaction, and the slope of RSS after it (MiB per 100 turns,
 *     least squares over the per-turn samples: it includes the context growing between compactions), and the
 *     peak of each 100-turn window, whose slope after the first compaction is what a leak would show;
 *   - open fds at turn 10 and at the end (a leak grows with turns);
 *   - whether the transcript resumes afterwards (a new process answers with the conversation).
 *   bun bench/soak.ts [turns]
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isolatedEnv, yokeBin } from "../test/helpers/binary.ts";
import { fakeApiEnv, startFakeAnthropic, type LoggedRequest } from "../test/helpers/fake-anthropic.ts";

const turns = Number(process.argv[2] ?? 1000);
const dir = mkdtempSync(join(tmpdir(), "yoke-bench-soak-"));
writeFileSync(join(dir, "notes.txt"), "soak file\n".repeat(200));
let compactions = 0;
let resuming = false;
const lastUserText = (req: LoggedRequest): string => {
  const m = (req.body?.messages as Array<{ role: string; content: unknown }>).at(-1)!;
  return typeof m.content === "string" ? m.content : JSON.stringify(m.content);
};
const fake = await startFakeAnthropic({ validate: false });
// One scripted answer per request, decided by what was asked: summary, tool result, or a new prompt.
const answer = (req: LoggedRequest) => {
  if (resuming) return { content: [{ type: "text" as const, text: "resumed fine" }] };
  const system = JSON.stringify(req.body?.system ?? "");
  if (system.includes("hand-over note")) {
    compactions++;
    return { content: [{ type: "text" as const, text: `<summary>Soak session so far: ${compactions} compactions, all steps green.</summary>` }] };
  }
  const last = lastUserText(req);
  if (last.includes("tool_result") && last.includes("soak file")) return { content: [{ type: "text" as const, text: `Done. ${"All good. ".repeat(40)}` }] };
  if (last.includes("tool_result")) return { content: [{ type: "tool_use" as const, name: "Read", input: { file_path: join(dir, "notes.txt") } }] };
  return { content: [{ type: "tool_use" as const, name: "Bash", input: { command: "echo step" } }] };
};
const feed = () => fake.push(...Array.from({ length: 64 }, () => answer));
feed();
const refill = setInterval(() => fake.pending < 32 && feed(), 5);

// A 1M window at SOAK_PCT percent (default 20): the session compacts about every 400 turns.
const env = isolatedEnv({ ...fakeApiEnv(fake), CLAUDE_CODE_AUTO_COMPACT_WINDOW: "1000000", CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: process.env.SOAK_PCT ?? "20" });
const proc = Bun.spawn(
  [yokeBin(), "-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose", "--allowedTools", "Bash,Read"],
  { cwd: dir, env, stdin: "pipe", stdout: "pipe", stderr: "pipe" },
);
const rssKiB = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${proc.pid}/status`, "utf8"))?.[1] ?? 0);
const fds = () => readdirSync(`/proc/${proc.pid}/fd`).length;

const reader = proc.stdout.getReader();
const dec = new TextDecoder();
let buf = "";
let sessionId = "";
async function nextResult(): Promise<Record<string, unknown>> {
  for (;;) {
    const nl = buf.indexOf("\n");
    if (nl >= 0) {
      const line = JSON.parse(buf.slice(0, nl));
      buf = buf.slice(nl + 1);
      if (line.session_id) sessionId = line.session_id;
      if (line.type === "result") return line;
      continue;
    }
    const { value, done } = await reader.read();
    if (done) throw new Error("yoke ended early");
    buf += dec.decode(value, { stream: true });
  }
}

const samples: Array<{ turn: number; rss: number; fds: number; compactions: number }> = [];
const started = performance.now();
for (let t = 1; t <= turns; t++) {
  proc.stdin.write(`${JSON.stringify({ type: "user", message: { role: "user", content: `Step ${t}: check the notes and run the step.` } })}\n`);
  const r = await nextResult();
  if (r.is_error) throw new Error(`turn ${t} failed: ${JSON.stringify(r).slice(0, 300)}`);
  samples.push({ turn: t, rss: rssKiB(), fds: fds(), compactions });
}
const seconds = (performance.now() - started) / 1000;
proc.stdin.end();
await proc.exited;
clearInterval(refill);

const firstCompact = samples.findIndex((s) => s.compactions > 0);
const after = firstCompact >= 0 ? samples.slice(firstCompact) : [];
const slope = (() => {
  if (after.length < 2) return NaN;
  const n = after.length;
  const mx = after.reduce((a, s) => a + s.turn, 0) / n;
  const my = after.reduce((a, s) => a + s.rss, 0) / n;
  const num = after.reduce((a, s) => a + (s.turn - mx) * (s.rss - my), 0);
  const den = after.reduce((a, s) => a + (s.turn - mx) ** 2, 0);
  return (num / den) * 100;
})();
const peak = (xs: typeof samples) => Math.max(...xs.map((s) => s.rss));
const leastSquares = (pts: Array<[number, number]>) => {
  const n = pts.length;
  if (n < 2) return NaN;
  const mx = pts.reduce((a, [x]) => a + x, 0) / n;
  const my = pts.reduce((a, [, y]) => a + y, 0) / n;
  return pts.reduce((a, [x, y]) => a + (x - mx) * (y - my), 0) / pts.reduce((a, [x]) => a + (x - mx) ** 2, 0);
};
const windows = Array.from({ length: Math.ceil(samples.length / 100) }, (_, i) => samples.slice(i * 100, i * 100 + 100));
const windowPeaks = windows.map((w) => ({ from: w[0]!.turn, peak: peak(w), compactions: w.at(-1)!.compactions }));
const peaksAfter = windowPeaks.filter((w) => w.from > (samples[firstCompact]?.turn ?? Infinity));
const peakSlope = leastSquares(peaksAfter.map((w) => [w.from, w.peak])) * 100;
const compactTurns = samples.filter((s, i) => i > 0 && s.compactions > samples[i - 1]!.compactions).map((s) => s.turn);

// The transcript resumes: a new process answers with the conversation behind it.
resuming = true;
// Async: the fake API runs in this process, so a sync spawn would starve it.
const resumed = Bun.spawn([yokeBin(), "-p", "still there?", "--resume", sessionId, "--output-format", "json"], { cwd: dir, env, stdout: "pipe", stderr: "pipe" });
const [resumedOut, resumedErr, resumedCode] = await Promise.all([new Response(resumed.stdout).text(), new Response(resumed.stderr).text(), resumed.exited]);
const resumeOk = resumedCode === 0 && JSON.parse(resumedOut).result === "resumed fine";

console.log(`soak: ${turns} turns (${turns * 2} tool calls) in ${seconds.toFixed(1)} s, ${compactions} compactions (after turns ${compactTurns.join(", ") || "-"})`);
console.log(`  peak RSS before the first compaction: ${(peak(samples.slice(0, Math.max(1, firstCompact))) / 1024).toFixed(1)} MiB; after: ${after.length ? (peak(after) / 1024).toFixed(1) : "-"} MiB`);
console.log(`  RSS slope after the first compaction: ${Number.isNaN(slope) ? "-" : `${(slope / 1024).toFixed(1)} MiB per 100 turns`}; slope of the 100-turn peaks after it: ${Number.isNaN(peakSlope) ? "-" : `${(peakSlope / 1024).toFixed(1)} MiB per 100 turns`}`);
console.log(`  peak RSS per 100 turns (MiB): ${windowPeaks.map((w) => (w.peak / 1024).toFixed(0)).join(" ")}`);
console.log(`  open fds: turn 10 ${samples[9]?.fds ?? "-"}, last turn ${samples.at(-1)?.fds}`);
console.log(`  resume after the soak: ${resumeOk ? "ok" : `FAILED (exit ${resumedCode}: ${resumedErr.slice(0, 200)})`}`);
await fake.stop();
rmSync(dir, { recursive: true, force: true });
