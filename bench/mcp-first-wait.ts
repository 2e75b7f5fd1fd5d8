/**
 * Issue 21 point 2: the first request with an MCP server that is slow to start (a shell that sleeps DELAY seconds,
 * then runs the tiny fixture server). A/B alternating, side by side: yoke (default: waits at most 2 s from the
 * spawn), yoke with MCP_CONNECTION_NONBLOCKING=false (the full wait, yoke's behaviour before), and Claude Code
 * 2.1.332 when its binary is installed. Prints, per variant, the median (p10–p90) of spawn → first request, of the
 * whole run, the child's CPU (user+sys), and whether the first request carried the server's tools.
 * Run: bun run bench/mcp-first-wait.ts [--runs N] [--delay SECONDS]. Never a timed test: it only prints.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeApiEnv, startFakeAnthropic } from "../test/helpers/fake-anthropic.ts";
import { isolatedEnv, repoRoot, yokeBin } from "../test/helpers/binary.ts";
import { tempDir } from "../test/helpers/tmp.ts";
import { tiny } from "../test/e2e/mcp-helpers.ts";

const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const RUNS = arg("--runs", 5);
const DELAY = arg("--delay", 5);
const cc = join(repoRoot(), "node_modules", "@anthropic-ai", "claude-agent-sdk-linux-x64", "claude");
const fake = await startFakeAnthropic({ validate: false });

type Variant = { name: string; bin: string; env: Record<string, string | undefined> };
const variants: Variant[] = [
  // YOKE_MCP_WAIT_MS unset: yoke's default, as a user runs it (isolatedEnv sets it high for tests).
  { name: "yoke (default)", bin: yokeBin(), env: { YOKE_MCP_WAIT_MS: undefined } },
  { name: "yoke MCP_CONNECTION_NONBLOCKING=false", bin: yokeBin(), env: { YOKE_MCP_WAIT_MS: undefined, MCP_CONNECTION_NONBLOCKING: "false" } },
  ...(existsSync(cc) ? [{ name: "Claude Code 2.1.332", bin: cc, env: { CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1", DISABLE_AUTOUPDATER: "1" } }] : []),
];

function project(): string {
  const cwd = tempDir("yoke-bench-mcpwait-");
  const t = tiny("ok");
  mkdirSync(join(cwd, ".claude"), { recursive: true });
  writeFileSync(join(cwd, ".claude", "settings.local.json"), JSON.stringify({ enableAllProjectMcpServers: true }));
  writeFileSync(join(cwd, ".mcp.json"), JSON.stringify({ mcpServers: { slow: { command: "sh", args: ["-c", `sleep ${DELAY}; exec ${t.command} "$0" "$1"`, ...t.args] } } }));
  return cwd;
}

async function once(v: Variant): Promise<{ first: number; total: number; cpu: number; tools: boolean }> {
  const cwd = project();
  let at = 0;
  let tools = false;
  fake.push((req) => {
    at = performance.now();
    tools = JSON.stringify(req.body?.tools ?? []).includes("mcp__slow__add");
    return { content: [{ type: "text", text: "ok" }] };
  });
  const env = isolatedEnv({ ...fakeApiEnv(fake), YOKE_TRUST_WORKSPACE: "1", ...v.env });
  for (const [k, val] of Object.entries(v.env)) if (val === undefined) delete env[k];
  const t0 = performance.now();
  const p = Bun.spawn([v.bin, "-p", "hi"], { cwd, env, stdout: "ignore", stderr: "ignore" });
  await p.exited;
  const total = performance.now() - t0;
  const u = p.resourceUsage();
  const cpu = u ? (Number(u.cpuTime.user) + Number(u.cpuTime.system)) / 1000 : Number.NaN;
  return { first: at - t0, total, cpu, tools };
}

const pct = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;
const fmt = (xs: number[]) => `${pct(xs, 0.5).toFixed(0)} ms (${pct(xs, 0.1).toFixed(0)}–${pct(xs, 0.9).toFixed(0)})`;
const results = new Map(variants.map((v) => [v.name, [] as Awaited<ReturnType<typeof once>>[]]));
for (let i = 0; i < RUNS; i++) for (const v of variants) results.get(v.name)!.push(await once(v));
console.log(`MCP server ${DELAY} s slow to start, ${RUNS} runs each, alternating (median, p10–p90):`);
for (const [name, rs] of results)
  console.log(
    `${name.padEnd(40)} first request ${fmt(rs.map((r) => r.first))}  whole run ${fmt(rs.map((r) => r.total))}  CPU ${fmt(rs.map((r) => r.cpu))}  tools in first request: ${rs.filter((r) => r.tools).length}/${rs.length}`,
  );
await fake.stop();
