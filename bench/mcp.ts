/**
 * MCP figures (issue 13 point 8), with the compiled binary against the fake Anthropic API:
 *  - time from spawn to the first model request with no MCP server and with 3 stdio servers
 *    (server-everything, server-filesystem, the tiny fixture), next to each server's own start
 *    (spawn → initialize answered). Target: the extra time ≤ the slowest server's own start.
 *  - the first request's size with 200 MCP tools, deferral off (ENABLE_TOOL_SEARCH=false) and on.
 * Run: bun run bench/mcp.ts [--runs N]. Never a timed test: it only prints.
 */
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeApiEnv, startFakeAnthropic } from "../test/helpers/fake-anthropic.ts";
import { isolatedEnv, yokeBin } from "../test/helpers/binary.ts";
import { tempDir } from "../test/helpers/tmp.ts";
import { everything, filesystem, tiny } from "../test/e2e/mcp-helpers.ts";

const runsArg = process.argv.indexOf("--runs");
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 7;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const bin = yokeBin();
const fake = await startFakeAnthropic();

/** Spawn → first request at the fake API, in ms (the run is then answered and left to finish). */
async function firstRequestMs(cwd: string, extraArgs: string[], env: Record<string, string> = {}): Promise<{ ms: number; bytes: number; marks: Record<string, number> }> {
  const before = fake.requests.length;
  let bytes = 0;
  let at = 0;
  fake.push((req) => {
    at = performance.now();
    bytes = JSON.stringify(req.body).length;
    return { content: [{ type: "text", text: "ok" }] };
  });
  const t0 = performance.now();
  const p = Bun.spawn([bin, "-p", "hi", ...extraArgs], { cwd, env: isolatedEnv({ ...fakeApiEnv(fake), YOKE_TIMING: "1", ...env }), stdout: "pipe", stderr: "pipe" });
  const code = await p.exited;
  const stderr = await new Response(p.stderr).text();
  if (code !== 0 || fake.requests.length === before) throw new Error(`bench: run failed (${code}): ${stderr}`);
  // YOKE_TIMING's marks (ms since the process started): where yoke's own serial time goes.
  const line = stderr.split("\n").find((l) => l.startsWith("yoke timing")) ?? "";
  const marks = Object.fromEntries([...line.matchAll(/(\S+)=([\d.]+)/g)].map((m) => [m[1]!, Number(m[2])]));
  return { ms: at - t0, bytes, marks };
}

/** A server's own start: spawn → its answer to initialize. */
function serverStartMs(s: { command: string; args: string[] }): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const c = spawn(s.command, s.args, { stdio: ["pipe", "pipe", "ignore"] });
    c.stdout.on("data", () => {
      resolve(performance.now() - t0);
      c.kill();
    });
    c.on("error", reject);
    c.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "0" } } })}\n`);
  });
}

const cwd = tempDir("yoke-bench-mcp-");
const servers = { everything: everything(), fs: filesystem(cwd), tiny: tiny("ok") };
const three = JSON.stringify({ mcpServers: servers });
const none: number[] = [];
const withThree: number[] = [];
const own: Record<string, number[]> = { everything: [], fs: [], tiny: [] };
const together: number[] = [];
/** From YOKE_TIMING, per run with 3 servers: start → first server spawned; first spawn → last server listed; last listed → request. */
const phases = { beforeSpawn: [] as number[], servers: [] as number[], afterListed: [] as number[] };
await firstRequestMs(cwd, []); // warm the page cache
for (let i = 0; i < RUNS; i++) {
  none.push((await firstRequestMs(cwd, [])).ms);
  const w = await firstRequestMs(cwd, ["--mcp-config", three]);
  withThree.push(w.ms);
  const pick = (suffix: string) => Object.entries(w.marks).filter(([k]) => k.startsWith("mcp-") && k.endsWith(suffix)).map(([, v]) => v);
  phases.beforeSpawn.push(Math.min(...pick("-spawned")));
  phases.servers.push(Math.max(...pick("-listed")) - Math.min(...pick("-spawned")));
  phases.afterListed.push(w.marks.request! - Math.max(...pick("-listed")));
  for (const [k, s] of Object.entries(servers)) own[k]!.push(await serverStartMs(s));
  // The three started at once, as yoke starts them: on 2 cores they compete for CPU.
  together.push(Math.max(...(await Promise.all(Object.values(servers).map(serverStartMs)))));
}
const slowest = Math.max(...Object.values(own).map(median));
const extra = median(withThree) - median(none);

const manyFile = join(cwd, "many.json");
writeFileSync(manyFile, JSON.stringify({ mcpServers: { big: { command: "node", args: [...tiny("many").args, "200"] } } }));
const off = await firstRequestMs(cwd, ["--mcp-config", manyFile], { ENABLE_TOOL_SEARCH: "false" });
const on = await firstRequestMs(cwd, ["--mcp-config", manyFile], { ENABLE_TOOL_SEARCH: "true" });
const auto = await firstRequestMs(cwd, ["--mcp-config", manyFile]);
await fake.stop();

const f = (n: number) => n.toFixed(0);
console.log(`MCP bench, ${RUNS} runs, medians (${new Date().toISOString()})`);
console.log(`| figure | value |`);
console.log(`| --- | --- |`);
console.log(`| spawn → first request, no MCP server | ${f(median(none))} ms |`);
console.log(`| spawn → first request, 3 stdio servers | ${f(median(withThree))} ms |`);
console.log(`| extra time with 3 servers | ${f(extra)} ms |`);
for (const [k, xs] of Object.entries(own)) console.log(`| ${k} server's own start (spawn → initialize answered) | ${f(median(xs))} ms |`);
console.log(`| the 3 servers' own start, started together (spawn → last initialize answered) | ${f(median(together))} ms |`);
console.log(`| extra ÷ slowest server's own start (target ≤ 1) | ${(extra / slowest).toFixed(2)} |`);
console.log(`| extra ÷ the 3 servers' own start together | ${(extra / median(together)).toFixed(2)} |`);
console.log(`| yoke: process start → first server spawned (YOKE_TIMING) | ${f(median(phases.beforeSpawn))} ms |`);
console.log(`| servers inside yoke: first spawned → last tools/list answered | ${f(median(phases.servers))} ms |`);
console.log(`| yoke: last tools/list answered → first request | ${f(median(phases.afterListed))} ms |`);
console.log(`| load average at the end (2 cores) | ${(await Bun.file("/proc/loadavg").text()).split(" ")[0]} |`);
console.log(`| first request, 203 MCP tools, deferral off | ${(off.bytes / 1024).toFixed(1)} KiB |`);
console.log(`| first request, 203 MCP tools, ENABLE_TOOL_SEARCH=true | ${(on.bytes / 1024).toFixed(1)} KiB (${((on.bytes / off.bytes) * 100).toFixed(0)}%) |`);
console.log(`| first request, 203 MCP tools, default (auto: 10% of the model's window) | ${(auto.bytes / 1024).toFixed(1)} KiB |`);
