/**
 * What the kernel sandbox adds to one Bash call (issue 16 point 13; target < 15 ms). Runs the Bash tool itself
 * on `true` and on `git status --short`, unsandboxed and sandboxed, in a small git repository with a few deny
 * rules. Each round runs every variant once, in turn (load hits all alike); "added" is each round's difference
 * to the unsandboxed call of the same round: median, 10th and 90th percentiles. CPU: each variant's calls in a
 * row, this process's time plus its children's (user+sys), per call, minus the unsandboxed call's.
 * Variants: the default (commands join a kept sandbox), one bubblewrap per command (YOKE_SANDBOX_KEEP=0, what
 * non-root users get), one host allowed (the proxy; per command). `--against <checkout>` adds the kept sandbox
 * of another checkout of yoke (its src/ and node_modules/), run in the same rounds: the before of an A/B.
 * Run: bun run bench/sandbox.ts [runs] [--against <checkout>]
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmdirSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { LoadedSettings } from "../src/config/load.ts";
import type { SandboxSettings } from "../src/config/schema.ts";
import { createPermissionEvaluator } from "../src/permission/index.ts";
import { createBashSandbox, type SandboxSetup } from "../src/sandbox/index.ts";
import { bashTool } from "../src/tool/builtin/bash.ts";
import { createFileState } from "../src/tool/file-state.ts";
import type { ToolContext } from "../src/tool/types.ts";

const args = process.argv.slice(2);
const at = args.indexOf("--against");
const against = at >= 0 ? resolve(args.splice(at, 2)[1] ?? ".") : undefined;
const RUNS = Number(args[0] ?? 21);
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const pct = (xs: number[], f: number) => sorted(xs)[Math.min(xs.length - 1, Math.floor(xs.length * f))]!;

const cwd = realpathSync(mkdtempSync(join(tmpdir(), "yoke-bench-sandbox-")));
mkdirSync(join(cwd, "secrets"));
writeFileSync(join(cwd, "secrets/key.pem"), "k");
writeFileSync(join(cwd, ".env"), "E=1");
mkdirSync(join(cwd, "src"));
writeFileSync(join(cwd, "src/a.ts"), "export {}\n");
Bun.spawnSync(["git", "init", "-q"], { cwd });
const perms = { deny: ["Read(./secrets/**)", "Read(.env)", "Edit(./protected/**)"] };
const settings = { merged: { permissions: perms }, sources: [{ level: "user", path: "bench", ruleRoot: cwd, settings: { permissions: perms } }] } as LoadedSettings;
const env: Record<string, string> = {};
for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;

type Tree = { createBashSandbox: typeof createBashSandbox; createPermissionEvaluator: typeof createPermissionEvaluator; bashTool: typeof bashTool };
const here: Tree = { createBashSandbox, createPermissionEvaluator, bashTool };
const load = async (root: string): Promise<Tree> => ({
  createBashSandbox: (await import(join(root, "src/sandbox/index.ts"))).createBashSandbox,
  createPermissionEvaluator: (await import(join(root, "src/permission/index.ts"))).createPermissionEvaluator,
  bashTool: (await import(join(root, "src/tool/builtin/bash.ts"))).bashTool,
});

async function sandbox(t: Tree, s: SandboxSettings | undefined): Promise<SandboxSetup> {
  const evaluator = t.createPermissionEvaluator({ settings, cwd, env: process.env });
  return t.createBashSandbox({
    settings: s,
    env: { ...env, YOKE_SANDBOX: "1" },
    rules: evaluator.ruleSet,
    workingDirectories: evaluator.workingDirectories,
    scratch: [join(tmpdir(), "yoke-bench")],
    yokeDir: join(cwd, ".bench-yoke"),
  });
}

type Variant = { name: string; tool: Tree["bashTool"]; ctx: ToolContext };
const variant = (name: string, t: Tree, sb?: SandboxSetup): Variant => ({
  name,
  tool: t.bashTool,
  ctx: {
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
  },
});

async function call(v: Variant, command: string): Promise<number> {
  const t = performance.now();
  const r = await v.tool.run({ command }, v.ctx);
  if (r.isError) throw new Error(`${v.name}: ${command}: ${JSON.stringify(r.content)}`);
  return performance.now() - t;
}

/**
 * CPU time, in ms, of this process and everything it starts. A bubblewrap per command leaves its sandbox's
 * processes unreaped by it (their time never reaches this process's children), so where it can this process
 * moves into a cgroup of its own (cgroup v2, else v1 cpuacct; as root) and reads the cgroup's total.
 * Elsewhere: this process and its reaped children (/proc/self/stat), which undercounts that variant.
 */
const TICK = 1000 / Number(Bun.spawnSync(["getconf", "CLK_TCK"]).stdout.toString().trim() || 100);
const group = (() => {
  for (const [root, file, scale] of [["/sys/fs/cgroup/unified", "cpu.stat", 1e-3], ["/sys/fs/cgroup", "cpu.stat", 1e-3], ["/sys/fs/cgroup/cpuacct", "cpuacct.usage", 1e-6]] as const) {
    const dir = join(root, `yoke-bench-${process.pid}`);
    try {
      mkdirSync(dir);
      writeFileSync(join(dir, "cgroup.procs"), String(process.pid));
      const read = () => {
        const t = readFileSync(join(dir, file), "utf8");
        return Number(file === "cpu.stat" ? /usage_usec (\d+)/.exec(t)?.[1] : t.trim()) * scale;
      };
      if (Number.isFinite(read())) return { dir, root, read };
    } catch {}
  }
  return undefined;
})();
function cpu(): number {
  if (group) return group.read();
  const u = process.cpuUsage();
  const stat = readFileSync("/proc/self/stat", "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (u.user + u.system) / 1000 + (Number(f[13]) + Number(f[14])) * TICK;
}

const kept = await sandbox(here, undefined);
const reference = against ? await sandbox(await load(against), undefined) : undefined;
process.env.YOKE_SANDBOX_KEEP = "0";
const perCommand = await sandbox(here, undefined);
const proxied = await sandbox(here, { network: { allowedDomains: ["packages.example.com"] } });
delete process.env.YOKE_SANDBOX_KEEP;
const variants = [
  variant("unsandboxed", here),
  variant("kept sandbox", here, kept),
  ...(reference && against ? [variant(`kept, ${against}`, await load(against), reference)] : []),
  variant("bubblewrap per command", here, perCommand),
  variant("1 host allowed (proxy)", here, proxied),
];

const f = (n: number) => n.toFixed(1);
console.log(`Bash tool call, ${RUNS} rounds (bubblewrap ${kept.availability?.ok && kept.availability.platform === "linux" ? kept.availability.version : "?"}, load ${f(loadavg()[0]!)})`);
console.log("added over the unsandboxed call of the same round, ms: median / p10 / p90 | CPU per call, ms (added)");
for (const command of ["true", "git status --short"]) {
  for (const v of variants) await call(v, command); // warm-up: the first wrap starts the library and builds the line
  const walls: number[][] = variants.map(() => []);
  for (let i = 0; i < RUNS; i++) for (const [k, v] of variants.entries()) walls[k]!.push(await call(v, command));
  const cpus: number[] = [];
  for (const v of variants) {
    const c0 = cpu();
    for (let i = 0; i < RUNS; i++) await call(v, command);
    cpus.push((cpu() - c0) / RUNS);
  }
  console.log(`${command}:`);
  for (const [k, v] of variants.entries()) {
    const added = walls[k]!.map((x, i) => x - walls[0]![i]!);
    const wall = k === 0 ? `call ${f(pct(walls[0]!, 0.5))} / ${f(pct(walls[0]!, 0.1))} / ${f(pct(walls[0]!, 0.9))}` : `${f(pct(added, 0.5))} / ${f(pct(added, 0.1))} / ${f(pct(added, 0.9))}`;
    console.log(`  ${v.name.padEnd(26)} ${wall.padStart(22)} | CPU ${f(cpus[k]!)}${k ? ` (+${f(cpus[k]! - cpus[0]!)})` : ""}`);
  }
}
const wrap: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const t = performance.now();
  const w = await kept.wrap("true", cwd);
  wrap.push(performance.now() - t);
  if (w.ok) kept.release(w.placeholders);
}
const stats = kept.stats?.();
console.log(`wrap alone (line reused, disk checked): median ${f(pct(wrap, 0.5))} ms; lines built ${stats?.built}, commands on a built line ${stats?.reused}; load ${f(loadavg()[0]!)}`);
for (const sb of [kept, reference, perCommand, proxied]) await sb?.shutdown();
console.log(`CPU from ${group ? `a cgroup of the bench's own (${group.root})` : "this process and its reaped children (bubblewrap per command undercounted)"}`);
if (group) {
  // Everything still in it (this process, the helpers that outlive a command by a moment) goes back, then it goes.
  try {
    for (const pid of readFileSync(join(group.dir, "cgroup.procs"), "utf8").split("\n").filter(Boolean)) {
      try {
        writeFileSync(join(group.root, "cgroup.procs"), pid);
      } catch {}
    }
    rmdirSync(group.dir);
  } catch {}
}
process.exit(0);
