/**
 * Skills and custom slash commands (issue 14 point 7): the startup cost of 50 skills and 100 commands on disk
 * and the context they take. Prints medians; target: discovery adds at most 5 ms to the first request.
 *  - in-process: discoverExtensions over the 150 files, and the listing's size;
 *  - the compiled binary: time from process start to the first request (YOKE_TIMING's `request` mark)
 *    in a project without and with the 150 files, runs alternating.
 * Run: bun run bench/extensions.ts [--runs N]
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadavg } from "node:os";
import { discoverExtensions, discoverExtensionsAsync } from "../src/extension/discover.ts";
import { listingBudgetChars, skillListing } from "../src/extension/listing.ts";
import { fakeApiEnv, startFakeAnthropic } from "../test/helpers/fake-anthropic.ts";
import { isolatedEnv, yokeBin } from "../test/helpers/binary.ts";

const arg = process.argv.indexOf("--runs");
const RUNS = arg > 0 ? Number(process.argv[arg + 1]) : 21;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

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

// In-process discovery and listing.
const opts = { cwd: full, userDir: join(root, "home/.claude") };
discoverExtensions(opts);
const discoverMs: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const t = performance.now();
  discoverExtensions(opts);
  discoverMs.push(performance.now() - t);
}
const asyncMs: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const t = performance.now();
  await discoverExtensionsAsync(opts);
  asyncMs.push(performance.now() - t);
}
const found = discoverExtensions(opts);
const listing = skillListing(found.commands, listingBudgetChars(200_000)) ?? "";
const unbounded = skillListing(found.commands, Number.POSITIVE_INFINITY) ?? "";

// The binary: spawn → first request, without and with the files.
const bin = yokeBin();
const fake = await startFakeAnthropic({ script: Array.from({ length: 2 * RUNS + 2 }, () => ({ content: [{ type: "text" as const, text: "hi" }] })) });
/** CPU time (user + system) of each whole run: on a loaded machine it moves far less than wall time does. */
const cpuOf = new Map<string, number[]>();
const firstRequest = async (cwd: string): Promise<number> => {
  const env = isolatedEnv({ ...fakeApiEnv(fake), YOKE_TIMING: "1", YOKE_TRUST_WORKSPACE: "1" });
  const p = Bun.spawn([bin, "-p", "hello"], { cwd, env, stdout: "pipe", stderr: "pipe" });
  const [, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  // From the end of module loading to the first request: startup work, without the binary's own load time.
  const m = /headless-loaded=([\d.]+).*request=([\d.]+)/.exec(err);
  if (p.exitCode !== 0 || !m) throw new Error(`run failed (exit ${p.exitCode}): ${err}`);
  const usage = p.resourceUsage();
  if (usage) cpuOf.set(cwd, [...(cpuOf.get(cwd) ?? []), Number(usage.cpuTime.total) / 1000]);
  return Number(m[2]) - Number(m[1]);
};
await firstRequest(empty);
await firstRequest(full);
cpuOf.clear();
const without: number[] = [];
const withFiles: number[] = [];
for (let i = 0; i < RUNS; i++) {
  without.push(await firstRequest(empty));
  withFiles.push(await firstRequest(full));
}
await fake.stop();
rmSync(root, { recursive: true, force: true });

const min = (xs: number[]) => Math.min(...xs);
const fmt = (xs: number[]) => `median ${median(xs).toFixed(1).padStart(6)} ms  min ${min(xs).toFixed(1).padStart(6)} ms`;
const added = median(withFiles) - median(without);
const addedMin = min(withFiles) - min(without);
console.log(`${RUNS} runs; 50 skills + 100 commands (${found.commands.length} entries, ${found.problems.length} problems); load average ${loadavg()[0]!.toFixed(1)}`);
console.log(`discoverExtensions, sync, in process          ${fmt(discoverMs)}`);
console.log(`discoverExtensionsAsync, in process           ${fmt(asyncMs)}`);
console.log(`startup → first request, no files             ${fmt(without)}`);
console.log(`startup → first request, 150 files            ${fmt(withFiles)}`);
console.log(`added to the first request                    median ${added.toFixed(1).padStart(6)} ms  min ${addedMin.toFixed(1).padStart(6)} ms   target 5 ms  ${Math.min(added, addedMin) <= 5 ? "ok" : "SLOW"}`);
const cpuWithout = cpuOf.get(empty) ?? [];
const cpuWith = cpuOf.get(full) ?? [];
console.log(`process CPU time, no files / 150 files          median ${median(cpuWithout).toFixed(1)} / ${median(cpuWith).toFixed(1)} ms  (added ${(median(cpuWith) - median(cpuWithout)).toFixed(1)} ms; min ${(min(cpuWith) - min(cpuWithout)).toFixed(1)} ms)`);
console.log(`listing in the system prompt                  ${listing.length} chars (~${Math.round(listing.length / 4)} tokens; budget ${listingBudgetChars(200_000)} chars at a 200k window)`);
console.log(`listing without a budget                      ${unbounded.length} chars (~${Math.round(unbounded.length / 4)} tokens)`);
