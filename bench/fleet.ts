/**
 * Containers and fleets (issue 18): run `bun run bench:fleet [--runs N]`. Never a timed test: it only prints.
 *  - the image's binary layer: dist/yoke and, when `bun run build --all` made it, dist/yoke-linux-x64-musl,
 *    compressed as registries store layers (gzip -6, zstd -19);
 *  - container start to the first model request: the image (bubblewrap: its own root assembled from deploy/image,
 *    read-only, tini as PID 1, uid 10001, clear environment; test/helpers/image-view.ts) against a plain run, medians
 *    (the whole image's size: bench/image.ts);
 *  - 20 tasks through deploy/fleet/yoke-task.sh started at once against 20 run one after another.
 */
import { existsSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeApiEnv, startFakeAnthropic } from "../test/helpers/fake-anthropic.ts";
import { isolatedEnv, repoRoot, yokeBin } from "../test/helpers/binary.ts";
import { imageEnv, imageRoot, runInImage } from "../test/helpers/image-view.ts";
import { tempDir } from "../test/helpers/tmp.ts";

const runsArg = process.argv.indexOf("--runs");
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 9;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;
const spread = (xs: number[]) => `${median(xs).toFixed(0)} ms (p10–p90 ${pct(xs, 0.1).toFixed(0)}–${pct(xs, 0.9).toFixed(0)})`;
const mib = (n: number) => `${(n / 1048576).toFixed(1)} MiB`;
const root = repoRoot();
const bin = yokeBin();

function compressed(file: string, cmd: string[]): number {
  const p = Bun.spawnSync(["sh", "-c", `${cmd.join(" ")} < "$0" | wc -c`, file], { stdout: "pipe" });
  return Number(p.stdout.toString().trim());
}

const rows: string[] = [];
for (const [name, file] of [["glibc (dist/yoke)", bin], ["musl (dist/yoke-linux-x64-musl)", join(root, "dist/yoke-linux-x64-musl")]] as const) {
  if (!existsSync(file)) {
    rows.push(`| ${name} | not built (bun run build --all) | | |`);
    continue;
  }
  rows.push(`| ${name} | ${mib(statSync(file).size)} | ${mib(compressed(file, ["gzip", "-6"]))} | ${Bun.which("zstd") ? mib(compressed(file, ["zstd", "-19", "-T2"])) : "no zstd"} |`);
}

const fake = await startFakeAnthropic();
/** Spawn → first request at the fake, ms. */
async function toFirstRequest(start: () => Promise<unknown>): Promise<number> {
  let at = 0;
  fake.push(() => {
    at = performance.now();
    return { content: [{ type: "text", text: "ok" }] };
  });
  const t0 = performance.now();
  await start();
  return at - t0;
}
const api = { ...fakeApiEnv(fake), ANTHROPIC_MODEL: "claude-sonnet-5-5" };
imageRoot(); // assembled once, before anything is timed
const plain: number[] = [];
const image: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const cwd = tempDir("yoke-bench-fleet-");
  plain.push(await toFirstRequest(() => Bun.spawn([bin, "-p", "hi"], { cwd, env: isolatedEnv(api), stdout: "ignore", stderr: "ignore" }).exited));
  image.push(await toFirstRequest(() => runInImage(["-p", "hi"], { PATH: "/usr/local/bin:/usr/bin:/bin", ...imageEnv, ...api, YOKE_SANDBOX: "0" }, { home: tempDir("yoke-bench-home-"), work: tempDir("yoke-bench-work-") })));
}

// 20 tasks: each a Write and a final answer (two requests), in parallel and in series.
async function fleet(parallel: boolean): Promise<number> {
  const tasks = tempDir("yoke-bench-tasks-");
  const results = tempDir("yoke-bench-results-");
  const work = tempDir("yoke-bench-work-");
  for (let i = 0; i < 20; i++) writeFileSync(join(tasks, `task-${i}`), `TASK ${i}: write ${join(work, `task-${i}`, "out.txt")}\n`);
  for (let k = 0; k < 40; k++)
    fake.push((req) => {
      const first = JSON.stringify(req.body.messages[0]);
      const m = /TASK \d+: write (\S+?)\\n/.exec(first);
      const last = req.body.messages.at(-1);
      if (!m || (Array.isArray(last.content) && last.content.some((b: { type: string }) => b.type === "tool_result"))) return { content: [{ type: "text", text: "done" }] };
      return { content: [{ type: "tool_use", name: "Write", input: { file_path: m[1]!, content: "x\n" } }] };
    });
  const env = (i: number) =>
    isolatedEnv({ ...api, JOB_COMPLETION_INDEX: String(i), YOKE_TASKS_DIR: tasks, YOKE_RESULTS_DIR: results, YOKE_WORKSPACES_DIR: work, YOKE_BIN: bin, YOKE_SETTINGS: '{"permissions":{"allow":["Write"]}}' });
  const one = (i: number) => Bun.spawn(["sh", join(root, "deploy/fleet/yoke-task.sh")], { env: env(i), stdout: "ignore", stderr: "ignore" }).exited;
  const t0 = performance.now();
  if (parallel) await Promise.all(Array.from({ length: 20 }, (_, i) => one(i)));
  else for (let i = 0; i < 20; i++) await one(i);
  const ms = performance.now() - t0;
  for (let i = 0; i < 20; i++) if (!existsSync(join(results, `task-${i}`, "result.json"))) throw new Error(`bench: task ${i} has no result`);
  return ms;
}
const seq = await fleet(false);
const par = await fleet(true);
await fake.stop();

console.log(`Fleet bench (${new Date().toISOString()}, ${RUNS} runs, medians)`);
console.log("| binary | size | gzip -6 (registry layer) | zstd -19 |");
console.log("| --- | --- | --- | --- |");
for (const r of rows) console.log(r);
console.log("");
console.log("| figure | value |");
console.log("| --- | --- |");
console.log(`| spawn → first request, plain run | ${spread(plain)} |`);
console.log(`| spawn → first request, the image (bwrap, its own read-only root, tini, uid 10001, env -i) | ${spread(image)} |`);
console.log(`| 20 tasks through yoke-task.sh, one after another | ${(seq / 1000).toFixed(2)} s |`);
console.log(`| 20 tasks through yoke-task.sh, all at once (2 cores) | ${(par / 1000).toFixed(2)} s (${(seq / par).toFixed(1)}× faster) |`);
