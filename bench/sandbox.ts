/**
 * What the kernel sandbox adds to one Bash call (issue 16 point 13; target < 15 ms). Runs the Bash tool
 * itself on `true` and on `git status`, unsandboxed and sandboxed, in a small git repository with a few
 * deny rules, and prints medians: the whole call, and the sandbox's wrap (disk check → command line)
 * apart, and each variant's fastest round (the floor, what a quiet machine sees). Three sandboxes: the default (commands join a kept sandbox), one bubblewrap per command
 * (YOKE_SANDBOX_KEEP=0, how every command ran before), and one allowing a host (the proxy; per command).
 * Run: bun run bench/sandbox.ts [runs]
 */
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import type { LoadedSettings } from "../src/config/load.ts";
import type { SandboxSettings } from "../src/config/schema.ts";
import { createPermissionEvaluator } from "../src/permission/index.ts";
import { createBashSandbox, type SandboxSetup } from "../src/sandbox/index.ts";
import { bashTool } from "../src/tool/builtin/bash.ts";
import { createFileState } from "../src/tool/file-state.ts";
import type { ToolContext } from "../src/tool/types.ts";

const RUNS = Number(process.argv[2] ?? 21);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
// The 10th percentile: what a call costs when the machine's other work leaves it alone.
const p10 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 10)]!;

const cwd = realpathSync(mkdtempSync(join(tmpdir(), "yoke-bench-sandbox-")));
mkdirSync(join(cwd, "secrets"));
writeFileSync(join(cwd, "secrets/key.pem"), "k");
writeFileSync(join(cwd, ".env"), "E=1");
mkdirSync(join(cwd, "src"));
writeFileSync(join(cwd, "src/a.ts"), "export {}\n");
Bun.spawnSync(["git", "init", "-q"], { cwd });
const perms = { deny: ["Read(./secrets/**)", "Read(.env)", "Edit(./protected/**)"] };
const settings = { merged: { permissions: perms }, sources: [{ level: "user", path: "bench", ruleRoot: cwd, settings: { permissions: perms } }] } as LoadedSettings;
const evaluator = createPermissionEvaluator({ settings, cwd, env: process.env });
const env: Record<string, string> = {};
for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;

async function sandbox(s: SandboxSettings | undefined): Promise<SandboxSetup> {
  const sb = await createBashSandbox({
    settings: s,
    env: { ...env, YOKE_SANDBOX: "1" },
    rules: evaluator.ruleSet,
    workingDirectories: evaluator.workingDirectories,
    scratch: [join(tmpdir(), "yoke-bench")],
    yokeDir: join(cwd, ".bench-yoke"),
  });
  return sb;
}

const ctx = (sb?: SandboxSetup): ToolContext => ({
  cwd,
  projectDir: cwd,
  workingDirectories: [cwd],
  sessionId: "bench",
  signal: new AbortController().signal,
  env,
  fileState: createFileState(),
  session: { cwd, todos: [], envFiles: [] },
  toolUseId: "toolu_bench",
  sandbox: sb,
});

/** One warm-up call each, then RUNS rounds in which every context runs the command once, in turn (load hits all alike). */
async function rounds(cs: ToolContext[], command: string): Promise<number[][]> {
  for (const c of cs) await bashTool.run({ command }, c); // warm-up (the first wrap starts the library and builds the line)
  const xs: number[][] = cs.map(() => []);
  for (let i = 0; i < RUNS; i++) {
    for (const [k, c] of cs.entries()) {
      const t = performance.now();
      const r = await bashTool.run({ command }, c);
      xs[k]!.push(performance.now() - t);
      if (r.isError) throw new Error(`${command}: ${JSON.stringify(r.content)}`);
    }
  }
  return xs;
}

async function wrapCost(sb: SandboxSetup): Promise<number> {
  const xs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    const w = await sb.wrap("true", cwd);
    xs.push(performance.now() - t);
    if (w.ok) sb.release(w.placeholders);
  }
  return median(xs);
}

const plain = ctx();
const kept = await sandbox(undefined);
// The same, one bubblewrap per command (how every command ran before kept sandboxes).
process.env.YOKE_SANDBOX_KEEP = "0";
const perCommand = await sandbox(undefined);
const proxied = await sandbox({ network: { allowedDomains: ["packages.example.com"] } });
delete process.env.YOKE_SANDBOX_KEEP;
const rows: Array<[string, number[]]> = [];
// The fastest round of each variant: the cost when the machine's other work left the call alone (the floor).
const fastest: Array<[string, number[]]> = [];
for (const command of ["true", "git status --short"]) {
  const [base, k, pc, px] = await rounds([plain, ctx(kept), ctx(perCommand), ctx(proxied)], command);
  // Added cost: the median of each round's difference to the unsandboxed call of the same round.
  const added = (xs: number[]) => median(xs.map((x, i) => x - base![i]!));
  const low = (xs: number[]) => p10(xs.map((x, i) => x - base![i]!));
  rows.push([command, [median(base!), median(k!), added(k!), low(k!), median(pc!), added(pc!), low(pc!), median(px!), added(px!), low(px!)]]);
  fastest.push([command, [base!, k!, pc!, px!].map((xs) => Math.min(...xs))]);
}
const wrapKept = await wrapCost(kept);
const stats = kept.stats?.();
await kept.shutdown();
await perCommand.shutdown();
await proxied.shutdown();

const f = (n: number) => `${n.toFixed(1)} ms`;
console.log(`Bash call, median of ${RUNS} rounds (bubblewrap ${kept.availability?.ok && kept.availability.platform === "linux" ? kept.availability.version : "?"}, load ${loadavg()[0]!.toFixed(1)})`);
console.log("added = per-round difference to the unsandboxed call: median / 10th percentile");
console.log("command              | unsandboxed | kept sandbox: call, added     | bubblewrap per command: call, added | 1 host allowed (proxy): call, added");
const cell = (call: number, med: number, low: number, w: number) => `${f(call)}, ${f(med)} / ${f(low)}`.padStart(w);
for (const [c, [b, k, ka, kl, pc, pca, pcl, px, pxa, pxl]] of rows)
  console.log(`${c.padEnd(20)} | ${f(b!).padStart(11)} | ${cell(k!, ka!, kl!, 29)} | ${cell(pc!, pca!, pcl!, 35)} | ${cell(px!, pxa!, pxl!, 35)}`);
console.log("fastest round: unsandboxed | kept sandbox (added) | bubblewrap per command (added) | 1 host allowed (added)");
for (const [c, [b, k, pc, px]] of fastest) console.log(`${c.padEnd(20)} | ${f(b!)} | ${f(k!)} (${f(k! - b!)}) | ${f(pc!)} (${f(pc! - b!)}) | ${f(px!)} (${f(px! - b!)})`);
console.log(`wrap alone (line reused, disk checked): ${f(wrapKept)}; lines built ${stats?.built}, commands on a built line ${stats?.reused}`);
process.exit(0);
