/**
 * What the kernel sandbox adds to one Bash call (issue 16 point 13; target < 15 ms). Runs the Bash tool
 * itself on `true` and on `git status`, unsandboxed and sandboxed, in a small git repository with a few
 * deny rules, and prints medians: the whole call, and the sandbox's wrap (policy → bubblewrap command
 * line) apart. A second sandboxed series allows one host, which adds the filtering proxy's relays.
 * Run: bun run bench/sandbox.ts [runs]
 */
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
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

async function series(c: ToolContext, command: string): Promise<number> {
  await bashTool.run({ command }, c); // warm-up (first wrap starts the library)
  const xs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    const r = await bashTool.run({ command }, c);
    xs.push(performance.now() - t);
    if (r.isError) throw new Error(`${command}: ${JSON.stringify(r.content)}`);
  }
  return median(xs);
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
const local = await sandbox(undefined);
const proxied = await sandbox({ network: { allowedDomains: ["packages.example.com"] } });
const rows: Array<[string, number, number, number]> = [];
for (const command of ["true", "git status --short"]) {
  const base = await series(plain, command);
  const sb = await series(ctx(local), command);
  const px = await series(ctx(proxied), command);
  rows.push([command, base, sb, px]);
}
const wrapLocal = await wrapCost(local);
const wrapProxied = await wrapCost(proxied);
await local.shutdown();
await proxied.shutdown();

const f = (n: number) => `${n.toFixed(1)} ms`;
console.log(`Bash call, median of ${RUNS} (bubblewrap ${local.availability?.ok && local.availability.platform === "linux" ? local.availability.version : "?"})`);
console.log("command              | unsandboxed | sandboxed (no network) | added  | sandboxed (1 host allowed) | added");
for (const [c, b, s, p] of rows)
  console.log(`${c.padEnd(20)} | ${f(b).padStart(11)} | ${f(s).padStart(22)} | ${f(s - b).padStart(6)} | ${f(p).padStart(26)} | ${f(p - b)}`);
console.log(`wrap alone (policy → command line): ${f(wrapLocal)} without network, ${f(wrapProxied)} with the proxy`);
process.exit(0);
