/**
 * Resume cost: loadTranscript + conversationFromEntries on a generated 100,000-line transcript.
 * Prints the median time and the peak RSS of a fresh process doing one resume, next to the file size
 * and an idle process's RSS. Targets: < 1 s and peak RSS growth < 3x the file size.
 *   bun bench/sessions.ts [lines]
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { conversationFromEntries, loadTranscript } from "../src/session/load.ts";
import { sessionRow } from "../src/session/list.ts";

const mode = process.argv[2];

if (mode === "--child") {
  const path = process.argv[3]!;
  const idle = process.argv[4] === "idle";
  let ms = 0;
  let cpuMs = 0;
  if (!idle) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const { entries, meta } = loadTranscript(path);
    const c = conversationFromEntries(entries, { meta });
    ms = performance.now() - t0;
    const used = process.cpuUsage(c0);
    cpuMs = (used.user + used.system) / 1000;
    if (c.messages.length === 0) throw new Error("empty conversation");
  }
  // VmHWM is this process's own peak; getrusage's maxRSS would carry the parent's peak over exec.
  const hwm = /VmHWM:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"));
  process.stdout.write(JSON.stringify({ ms, cpuMs, maxRssKb: hwm ? Number(hwm[1]) : process.resourceUsage().maxRSS }));
  process.exit(0);
}

const lines = Number(mode ?? 100_000);
const dir = mkdtempSync(join(tmpdir(), "yoke-bench-"));
const path = join(dir, "bench.jsonl");

function generate(): void {
  const out: string[] = [];
  let parent: string | null = null;
  let i = 0;
  const common = (uuid: string) => ({
    parentUuid: parent,
    isSidechain: false,
    userType: "external",
    entrypoint: "cli",
    cwd: "/home/user/project",
    sessionId: "3f2a9c1e-0000-4000-8000-000000000000",
    version: "0.1.0",
    gitBranch: "main",
    uuid,
    timestamp: new Date(1_700_000_000_000 + i * 1000).toISOString(),
  });
  const uid = () => `${(i++).toString(16).padStart(8, "0")}-0000-4000-8000-000000000000`;
  const push = (o: Record<string, unknown>) => {
    out.push(JSON.stringify(o));
    if (typeof o.uuid === "string") parent = o.uuid;
  };
  let turn = 0;
  while (out.length < lines) {
    const u = uid();
    push({ ...common(u), type: "user", message: { role: "user", content: `Please look at module ${turn} and fix the failing test in src/mod${turn}.ts` }, promptId: u });
    if (turn % 10 === 0) out.push(JSON.stringify({ type: "file-history-snapshot", messageId: u, snapshot: { messageId: u, trackedFileBackups: {}, timestamp: new Date().toISOString() }, isSnapshotUpdate: false }));
    for (let k = 0; k < 3 && out.length < lines; k++) {
      const msgId = `msg_${turn}_${k}`;
      const a1 = uid();
      push({ ...common(a1), type: "assistant", message: { id: msgId, type: "message", role: "assistant", model: "claude-x", content: [{ type: "text", text: "Let me check the file. ".repeat(4) }], stop_reason: null, stop_sequence: null, usage: { input_tokens: 100, output_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 900 } }, requestId: `req_${turn}` });
      const a2 = uid();
      const tid = `toolu_${turn}_${k}`;
      push({ ...common(a2), type: "assistant", message: { id: msgId, type: "message", role: "assistant", model: "claude-x", content: [{ type: "tool_use", id: tid, name: "Read", input: { file_path: `/home/user/project/src/mod${turn}.ts` } }], stop_reason: "tool_use", stop_sequence: null, usage: { input_tokens: 100, output_tokens: 40, cache_creation_input_tokens: 0, cache_read_input_tokens: 900 } } });
      const r = uid();
      const body = `     1\texport function f${turn}() {\n     2\t  return ${k};\n     3\t}\n`.repeat(6);
      push({ ...common(r), type: "user", message: { role: "user", content: [{ type: "tool_result", tool_use_id: tid, content: body }] }, toolUseResult: { type: "text", file: { filePath: `/home/user/project/src/mod${turn}.ts`, numLines: 18 } }, sourceToolAssistantUUID: a2 });
    }
    const fin = uid();
    push({ ...common(fin), type: "assistant", message: { id: `msg_${turn}_end`, type: "message", role: "assistant", model: "claude-x", content: [{ type: "text", text: "Fixed: the test passes now." }], stop_reason: "end_turn", stop_sequence: null, usage: { input_tokens: 100, output_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 900 } } });
    turn++;
  }
  writeFileSync(path, `${out.slice(0, lines).join("\n")}\n`);
}

const child = (idle: boolean): { ms: number; cpuMs: number; maxRssKb: number } => {
  const r = Bun.spawnSync([process.execPath, import.meta.path, "--child", path, idle ? "idle" : "run"], { stdout: "pipe", stderr: "inherit" });
  return JSON.parse(r.stdout.toString());
};

generate();
const size = statSync(path).size;
const idle = child(true);
const runs = Array.from({ length: 7 }, () => child(false));
const times = runs.map((r) => r.ms).sort((a, b) => a - b);
const cpu = runs.map((r) => r.cpuMs).sort((a, b) => a - b);
const rss = runs.map((r) => r.maxRssKb * 1024).sort((a, b) => a - b);
const median = (xs: number[]) => xs[Math.floor(xs.length / 2)]!;
const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;
const growth = median(rss) - idle.maxRssKb * 1024;
console.log(`sessions resume bench: ${lines} lines, file ${mb(size)}`);
console.log(`  load + conversationFromEntries: median ${median(times).toFixed(0)} ms (min ${times[0]!.toFixed(0)}, max ${times[times.length - 1]!.toFixed(0)}), CPU median ${median(cpu).toFixed(0)} ms  (target < 1000 ms)`);
console.log(`  peak RSS ${mb(median(rss))}, idle process ${mb(idle.maxRssKb * 1024)}, growth ${mb(growth)} = ${(growth / size).toFixed(2)}x file size (target < 3x); total/file ${(median(rss) / size).toFixed(2)}x`);
const rowTimes = Array.from({ length: 5 }, () => {
  const t0 = performance.now();
  sessionRow(path);
  return performance.now() - t0;
}).sort((a, b) => a - b);
console.log(`  sessionRow (one line of \`sessions list\`): median ${median(rowTimes).toFixed(0)} ms`);
if (!process.env.KEEP) rmSync(dir, { recursive: true, force: true }); else console.log(path);

// Compaction of a 150,000-token session (issue 7 item 7) lives in its own file; run it here too.
Bun.spawnSync([process.execPath, join(import.meta.dir, "compaction.ts")], { stdout: "inherit", stderr: "inherit" });
