/**
 * Skills and custom slash commands (issue 14 point 7): the startup cost of 50 skills and 100 commands on disk and
 * the context they take. Target: discovery adds at most 5 ms to the first request. All in the compiled binary,
 * runs alternating between a project without the files and one with them:
 *  - the main thread's own CPU time on skills and commands before the first request (discovery, the session's table,
 *    the listing: YOKE_TIMING's `extensions-busy` span), which is what they can add to the first request, with
 *    discovery's cache from the run before (the usual start) and without it (a fresh home: the first start);
 *  - spawn → first request (from YOKE_TIMING's `headless-loaded` to its `request` mark) and the process's CPU time
 *    (user + system, which load distorts far less than wall time): medians with p10/p90, and their difference;
 *  - the listing in the system prompt and the Skill tool's definition, in characters and about tokens.
 * Run: bun run bench/extensions.ts [--runs N]
 */
import { loadavg, tmpdir } from "node:os";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeApiEnv, startFakeAnthropic } from "../test/helpers/fake-anthropic.ts";
import { isolatedEnv, yokeBin } from "../test/helpers/binary.ts";
import { parseCpu, parseTiming } from "./timing.ts";

const arg = process.argv.indexOf("--runs");
const RUNS = arg > 0 ? Number(process.argv[arg + 1]) : 31;
/** `--reference PATH`: another yoke binary (main before a change) run on the 150 files in the same rounds. */
const refArg = process.argv.indexOf("--reference");
const REF = refArg > 0 ? process.argv[refArg + 1] : undefined;

const root = realpathSync(mkdtempSync(join(tmpdir(), "yoke-bench-ext-")));
const write = (p: string, text: string) => {
  mkdirSync(join(p, ".."), { recursive: true });
  writeFileSync(p, text);
};
const empty = join(root, "empty");
const full = join(root, "full");
for (const p of [empty, full]) mkdirSync(join(p, ".git"), { recursive: true });
const body = "Step one: read the code.\nStep two: change it.\n".repeat(30);
for (let i = 0; i < 50; i++)
  write(
    join(full, ".claude/skills", `skill-${i}`, "SKILL.md"),
    `---\nname: skill-${i}\ndescription: Handles task family ${i}: reads the relevant files, applies the team's conventions and checks the result\nallowed-tools: Read, Grep\n---\n${body}`,
  );
for (let i = 0; i < 100; i++)
  write(
    join(full, ".claude/commands", i % 2 ? `group-${i % 5}` : "", `cmd-${i}.md`),
    `---\ndescription: Runs workflow ${i} on the given path\nargument-hint: <path>\n---\nRun workflow ${i} on $ARGUMENTS.\n${body}`,
  );

// Discovery's cache trusts only files that were two seconds old when read (a coarse clock could hide a second write
// in the same tick): the files settle first, as a project's files have at any real start.
await Bun.sleep(2100);

const bin = yokeBin();
const fake = await startFakeAnthropic({ script: Array.from({ length: 5 * RUNS + 5 }, () => ({ content: [{ type: "text" as const, text: "hi" }] })) });
type Sample = { wall: number; cpu: number; busy: number; reqCpu: number; arrive: number; t: Record<string, number>; c: Record<string, number> };
const COLD = "cold";
const COLD_NONE = "cold, none";
const REFERENCE = "reference";
const REFERENCE_NONE = "reference, none";
const REFERENCE_COLD = "reference, no cache";
const REFERENCE_COLD_NONE = "reference, none, no cache";
const samples = new Map<string, Sample[]>([
  [empty, []],
  [full, []],
  [COLD, []],
  [COLD_NONE, []],
  [REFERENCE, []],
  [REFERENCE_NONE, []],
  [REFERENCE_COLD, []],
  [REFERENCE_COLD_NONE, []],
]);
const busyOf = (stderr: string) => Number(/extensions-busy:([\d.]+)/.exec(stderr)?.[1] ?? 0);
/** The warm runs share one home, so discovery's cache from the run before is there (the usual case: a second start). */
const warmHome = join(root, "home");
/** The reference binary's own home: two builds never share a cache (each would find the other's and start cold). */
const refHome = join(root, "home-reference");
async function run(cwd: string, keep: boolean, o: { cold?: boolean; as?: string; bin?: string } = {}): Promise<void> {
  const env = isolatedEnv({ ...fakeApiEnv(fake), YOKE_TIMING: "1", YOKE_TRUST_WORKSPACE: "1", ...(o.cold ? {} : { HOME: o.bin ? refHome : warmHome }) });
  const before = fake.requests.length;
  const spawned = Date.now();
  const p = Bun.spawn([o.bin ?? bin, "-p", "hello"], { cwd, env, stdout: "pipe", stderr: "pipe" });
  const [, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  const t = parseTiming(err);
  if (p.exitCode !== 0 || t.request === undefined || t["headless-loaded"] === undefined) throw new Error(`run failed (exit ${p.exitCode}): ${err}`);
  const usage = p.resourceUsage();
  const c = parseCpu(err);
  if (keep)
    samples.get(o.as ?? cwd)!.push({
      wall: t.request - t["headless-loaded"],
      cpu: usage ? Number(usage.cpuTime.total) / 1000 : Number.NaN,
      busy: busyOf(err),
      reqCpu: (c.request ?? Number.NaN) - (c["headless-loaded"] ?? Number.NaN),
      // When the request reached the server (what a user waits for; work scheduled after the `request` mark, such as
      // the cache's save, shows here and not there), from just before the spawn; whole milliseconds.
      arrive: (fake.requests[before]?.at ?? Number.NaN) - spawned,
      t,
      c,
    });
}
// One warm-up each (page cache, the binary's first start, discovery's cache), then alternating, the order turned
// every round; a cold run (a fresh home: no cache, as the first start in a project or after a rebuild) in each round.
await run(empty, false);
await run(full, false);
if (REF) await run(full, false, { bin: REF });
if (REF) await run(empty, false, { bin: REF });
for (let i = 0; i < RUNS; i++) {
  const round: Array<() => Promise<void>> = [
    () => run(empty, true),
    () => run(full, true),
    () => run(full, true, { cold: true, as: COLD }),
    () => run(empty, true, { cold: true, as: COLD_NONE }),
  ];
  if (REF)
    round.push(
      () => run(full, true, { bin: REF, as: REFERENCE }),
      () => run(empty, true, { bin: REF, as: REFERENCE_NONE }),
      () => run(full, true, { bin: REF, cold: true, as: REFERENCE_COLD }),
      () => run(empty, true, { bin: REF, cold: true, as: REFERENCE_COLD_NONE }),
    );
  for (let k = 0; k < round.length; k++) await round[(k + i) % round.length]!();
}
const req = fake.requests.findLast((r) => JSON.stringify(r.body.tools ?? []).includes('"Skill"'))!;
await fake.stop();
rmSync(root, { recursive: true, force: true });

const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
const stats = (xs: number[], digits = 1) => `median ${q(xs, 0.5).toFixed(digits).padStart(7)}  p10 ${q(xs, 0.1).toFixed(digits).padStart(7)}  p90 ${q(xs, 0.9).toFixed(digits).padStart(7)}`;
const col = (cwd: string, k: "wall" | "cpu" | "busy" | "reqCpu" | "arrive") => samples.get(cwd)!.map((s) => s[k]);
const system = typeof req.body.system === "string" ? req.body.system : (req.body.system ?? []).map((b: { text: string }) => b.text).join("\n");
const listing = /# Skills\n[\s\S]*?(?=\n\n|$)/.exec(system)?.[0] ?? "";
const skillTool = JSON.stringify((req.body.tools ?? []).find((t: { name: string }) => t.name === "Skill") ?? {});

console.log(`${RUNS} runs each, alternating; 50 skills + 100 commands; load average ${loadavg()[0]!.toFixed(1)}`);
console.log(`main thread on skills and commands (ms), none       ${stats(col(empty, "busy"), 2)}`);
console.log(`main thread on skills and commands (ms), 150 files  ${stats(col(full, "busy"), 2)}`);
console.log(`  the same, no cache (first start, or after a rebuild) ${stats(col(COLD, "busy"), 2)}`);
console.log(`  none, no cache                                    ${stats(col(COLD_NONE, "busy"), 2)}`);
// A first start is judged against a first start without the files (a fresh home costs something of its own); the
// difference from a warm start without them is printed beside it.
const base = (a: string) => (a === COLD ? COLD_NONE : empty);
const diff = (k: "wall" | "cpu" | "busy" | "reqCpu" | "arrive", a: string, b = base(a)) => (q(col(a, k), 0.5) - q(col(b, k), 0.5)).toFixed(1);
// Issue 14.7's target is what the files ADD to the first request (≤ 5 ms), judged on the difference of medians, warm and cold.
const target = (k: "wall" | "reqCpu", a: string) =>
  `   target: adds ≤ 5 ms ${Number(diff(k, a)) <= 5 ? "ok" : "MISSED"}${a === COLD ? `  (vs a warm start without the files: ${diff(k, a, empty)})` : ""}`;
console.log(`spawn → first request (ms), none                    ${stats(col(empty, "wall"))}`);
console.log(`spawn → first request (ms), 150 files               ${stats(col(full, "wall"))}   difference of medians ${diff("wall", full)}${target("wall", full)}`);
console.log(`spawn → first request (ms), none, no cache          ${stats(col(COLD_NONE, "wall"))}`);
console.log(`spawn → first request (ms), 150 files, no cache     ${stats(col(COLD, "wall"))}   difference of medians ${diff("wall", COLD)}${target("wall", COLD)}`);
console.log(`spawn → request at the server (ms), none          ${stats(col(empty, "arrive"))}`);
console.log(`spawn → request at the server (ms), 150 files     ${stats(col(full, "arrive"))}   difference of medians ${diff("arrive", full)}`);
console.log(`spawn → request at the server (ms), none, no cache ${stats(col(COLD_NONE, "arrive"))}`);
console.log(`spawn → request at the server (ms), 150, no cache  ${stats(col(COLD, "arrive"))}   difference of medians ${diff("arrive", COLD)}`);
console.log(`CPU to the first request (ms), none                ${stats(col(empty, "reqCpu"))}`);
console.log(`CPU to the first request (ms), 150 files           ${stats(col(full, "reqCpu"))}   difference of medians ${diff("reqCpu", full)}${target("reqCpu", full)}`);
console.log(`CPU to the first request (ms), none, no cache      ${stats(col(COLD_NONE, "reqCpu"))}`);
console.log(`CPU to the first request (ms), 150 files, no cache ${stats(col(COLD, "reqCpu"))}   difference of medians ${diff("reqCpu", COLD)}${target("reqCpu", COLD)}`);
console.log(`process CPU time (ms), none                         ${stats(col(empty, "cpu"))}`);
console.log(`process CPU time (ms), 150 files                    ${stats(col(full, "cpu"))}   difference of medians ${diff("cpu", full)}`);
console.log(`process CPU time (ms), none, no cache               ${stats(col(COLD_NONE, "cpu"))}`);
console.log(`process CPU time (ms), 150 files, no cache          ${stats(col(COLD, "cpu"))}   difference of medians ${diff("cpu", COLD)}`);
if (REF) {
  // The reference against its own runs without the files: what the 150 files add in each build, side by side.
  const refDiff = (k: "wall" | "cpu" | "reqCpu") => (q(col(REFERENCE, k), 0.5) - q(col(REFERENCE_NONE, k), 0.5)).toFixed(1);
  console.log(`reference (${REF}), same rounds:`);
  console.log(`spawn → first request (ms), none / 150 files       ${stats(col(REFERENCE_NONE, "wall"))} / ${stats(col(REFERENCE, "wall"))}   difference ${refDiff("wall")}`);
  console.log(`CPU to the first request (ms), none / 150 files    ${stats(col(REFERENCE_NONE, "reqCpu"))} / ${stats(col(REFERENCE, "reqCpu"))}   difference ${refDiff("reqCpu")}`);
  console.log(`process CPU time (ms), none / 150 files            ${stats(col(REFERENCE_NONE, "cpu"))} / ${stats(col(REFERENCE, "cpu"))}   difference ${refDiff("cpu")}`);
  // The first start in the reference build, against its own first start without the files.
  const refCold = (k: "wall" | "cpu" | "reqCpu" | "busy") => (q(col(REFERENCE_COLD, k), 0.5) - q(col(REFERENCE_COLD_NONE, k), 0.5)).toFixed(1);
  console.log(`no cache: spawn → first request (ms), none / 150   ${stats(col(REFERENCE_COLD_NONE, "wall"))} / ${stats(col(REFERENCE_COLD, "wall"))}   difference ${refCold("wall")}`);
  console.log(`no cache: CPU to the first request (ms), none / 150 ${stats(col(REFERENCE_COLD_NONE, "reqCpu"))} / ${stats(col(REFERENCE_COLD, "reqCpu"))}   difference ${refCold("reqCpu")}`);
  console.log(`no cache: main thread on skills and commands (ms)  ${stats(col(REFERENCE_COLD_NONE, "busy"), 2)} / ${stats(col(REFERENCE_COLD, "busy"), 2)}   difference ${refCold("busy")}`);
}
console.log(`listing in the system prompt                        ${listing.length} chars (~${Math.round(listing.length / 4)} tokens; budget 1% of the context window)`);
console.log(`the Skill tool's definition in the request          ${skillTool.length} chars (~${Math.round(skillTool.length / 4)} tokens)`);

// Where the difference sits: each phase between two YOKE_TIMING marks, per run (medians of the per-run intervals, so a
// slow start shifts no later phase), without and with the 150 files (cache warm).
const order = Object.entries(samples.get(full)![0]!.t)
  .filter(([k]) => samples.get(empty)!.every((s) => k in s.t) && samples.get(full)!.every((s) => k in s.t))
  .sort((a, b) => a[1] - b[1])
  .map(([k]) => k);
const med = (xs: number[]) => q(xs.filter(Number.isFinite), 0.5);
console.log(`\nphase (YOKE_TIMING marks)          wall none   150 files | CPU none   150 files  difference${REF ? " | reference: CPU difference" : ""}`);
for (let i = 1; i < order.length && order[i - 1] !== "request"; i++) {
  const [a, b] = [order[i - 1]!, order[i]!];
  const iv = (cwd: string, f: "t" | "c") => med(samples.get(cwd)!.map((s) => s[f][b]! - s[f][a]!));
  const [w0, w1, c0, c1] = [iv(empty, "t"), iv(full, "t"), iv(empty, "c"), iv(full, "c")];
  // The reference's own phases, where it has both marks (an older build may lack one).
  const inRef = REF && [REFERENCE, REFERENCE_NONE].every((k) => samples.get(k)!.every((s) => a in s.c && b in s.c));
  const ref = inRef ? ` | ${(iv(REFERENCE, "c") - iv(REFERENCE_NONE, "c")).toFixed(1).padStart(10)}` : "";
  console.log(`${`${a} → ${b}`.padEnd(34)} ${w0.toFixed(1).padStart(8)} ${w1.toFixed(1).padStart(10)} | ${c0.toFixed(1).padStart(8)} ${c1.toFixed(1).padStart(10)} ${(c1 - c0).toFixed(1).padStart(10)}${ref}`);
}
