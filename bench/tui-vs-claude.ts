/**
 * The interactive session side by side with the real Claude Code (issue 12 points 2 and 9): both compiled binaries
 * in tmux, both against the same fake Anthropic API on 127.0.0.1 (never the network), measured the same way from
 * outside, runs alternating yoke/claude (the order flips every run) so load bursts on a shared machine hit both:
 *   1. time from launch to the first frame (any text on the screen), to the drawn input prompt, and to the first key
 *      typed at that prompt shown in it (the prompt accepts keys);
 *   2. keystroke-to-screen latency at an idle prompt and while a long answer streams (a key sent with send-keys until
 *      capture-pane shows it: includes tmux's own round trip, the same for both);
 *   3. the streamed answer: time from Enter until its last line is on the screen, and the CPU time (user + system,
 *      /proc/<pid>/stat, the process and its reaped children) the session spent from launch to then;
 *   4. peak RSS (VmHWM of the process in the pane) of an idle session and after the answer.
 * Each figure: median [p10–p90] over the runs. Claude Code is the Agent SDK's bundled binary (CLAUDE_BIN overrides),
 * with onboarding, folder trust and the API key pre-accepted in a throwaway config dir, its non-essential traffic off.
 *   bun bench/tui-vs-claude.ts [runs] [stream lines]
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isolatedEnv, repoRoot, yokeBin } from "../test/helpers/binary.ts";
import { fakeApiEnv, type FakeEntry } from "../test/helpers/fake-anthropic.ts";
import { tempDir } from "../test/helpers/tmp.ts";

const runs = Number(process.argv[2] ?? 5);
const streamLines = Number(process.argv[3] ?? 2000);
/** How long the stream may take before its end is reported as not reached (a starved `nice -n 19` run is slow). */
const streamLimitMs = Number(process.env.BENCH_STREAM_LIMIT_MS ?? 240_000);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.max(0, Math.round(q * (xs.length - 1))))]!;
const claudeBin = process.env.CLAUDE_BIN ?? join(repoRoot(), "node_modules", "@anthropic-ai", "claude-agent-sdk-linux-x64", "claude");
let n = 0;

type App = {
  name: string;
  argv: string[];
  env(fake: { url: string }, cwd: string): Record<string, string>;
  /** The input prompt is drawn. */
  prompt(screen: string): boolean;
  /** The session can send a prompt to the model (yoke composes behind its drawn prompt). */
  ready(screen: string): boolean;
  /** The prompt line shows `typed`. */
  echoed(screen: string, typed: string): boolean;
};

const yoke: App = {
  name: "yoke",
  argv: [yokeBin()],
  env: (fake) => isolatedEnv({ ...fakeApiEnv(fake), YOKE_MEMORY_EXTRACTION: "0", YOKE_SESSION_MEMORY: "0" }),
  // The editor between its two rules.
  prompt: (s) => /^─{20,}\n.*\n─{20,}$/m.test(s),
  ready: (s) => s.includes("context"),
  echoed: (s, typed) => new RegExp(`^─{20,}\\n${typed}\\s*\\n─{20,}$`, "m").test(s),
};

const claude: App = {
  name: "claude",
  argv: [claudeBin],
  env(fake, cwd) {
    const env = isolatedEnv({ ...fakeApiEnv(fake), CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1", DISABLE_AUTOUPDATER: "1" });
    const key = env.ANTHROPIC_API_KEY ?? "";
    writeFileSync(
      join(env.CLAUDE_CONFIG_DIR!, ".claude.json"),
      JSON.stringify({
        hasCompletedOnboarding: true,
        theme: "dark",
        customApiKeyResponses: { approved: [key.slice(-20)], rejected: [] },
        projects: { [cwd]: { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true } },
      }),
    );
    return env;
  },
  prompt: (s) => /^❯/m.test(s),
  ready: (s) => /^❯/m.test(s) && /shift\+tab/.test(s),
  echoed: (s, typed) => new RegExp(`^❯\\s*${typed}\\s*$`, "m").test(s),
};

function term(argv: string[], env: Record<string, string>, cwd: string) {
  const sock = `yoke-bench-cc-${process.pid}-${++n}`;
  const tmux = (...a: string[]) => spawnSync("tmux", ["-L", sock, "-f", "/dev/null", ...a], { encoding: "utf8" }).stdout;
  const command = ["env", "-i", ...Object.entries({ TERM: "xterm-256color", ...env }).map(([k, v]) => `${k}=${v}`), ...argv];
  const t0 = performance.now();
  tmux("start-server", ";", "set-option", "-g", "remain-on-exit", "on", ";", "new-session", "-d", "-s", "t", "-x", "120", "-y", "40", "-c", cwd, ...command);
  const screen = () => tmux("capture-pane", "-p", "-t", "t").replace(/[ \t]+$/gm, "").trimEnd();
  return {
    t0,
    tmux,
    screen,
    type: (text: string) => tmux("send-keys", "-t", "t", "-l", text),
    pid: () => Number(tmux("display-message", "-p", "-t", "t", "#{pane_pid}").trim()),
    /** Polls until `test` holds; returns the time since launch (ms). */
    async until(test: (s: string) => boolean, what: string, limitMs = 60_000): Promise<number> {
      const end = Date.now() + limitMs;
      for (;;) {
        const s = screen();
        if (test(s)) return performance.now() - t0;
        if (Date.now() > end) throw new Error(`bench: ${what} not seen; screen:\n${s}`);
        await Bun.sleep(1);
      }
    },
    kill: () => tmux("kill-server"),
  };
}

/** The fake API in its own process (bench/fake-serve.ts): this process blocks in tmux calls while it polls. */
async function startFake(script: FakeEntry[], chunkDelayMs = 0) {
  const file = join(tempDir("yoke-bench-fake-"), "script.json");
  writeFileSync(file, JSON.stringify(script));
  const child = Bun.spawn(["bun", join(repoRoot(), "bench", "fake-serve.ts"), file, String(chunkDelayMs)], { stdin: "pipe", stdout: "pipe", stderr: "inherit" });
  const reader = child.stdout.getReader();
  let out = "";
  while (!out.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("bench: the fake API did not start");
    out += new TextDecoder().decode(value);
  }
  return {
    url: out.trim(),
    async stop() {
      child.stdin.end();
      await child.exited;
    },
  };
}

const hwmMb = (pid: number) => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;
/** User + system CPU of the process and its reaped children, in ms (clock ticks of 10 ms). */
const cpuMs = (pid: number) => {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * 10;
};

/** Types `keys` one at a time; each is timed until a screen line ends with what was typed so far. */
async function keyLatencies(t: ReturnType<typeof term>, keys: string, stop?: (s: string) => boolean): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < keys.length; i++) {
    if (stop?.(t.screen())) break;
    const typed = keys.slice(0, i + 1);
    const at = performance.now();
    t.type(keys[i]!);
    const end = Date.now() + 10_000;
    for (;;) {
      if (t.screen().split("\n").some((l) => l.endsWith(typed))) break;
      if (Date.now() > end) throw new Error(`bench: key ${typed} never shown:\n${t.screen()}`);
      await Bun.sleep(1);
    }
    out.push(performance.now() - at);
  }
  return out;
}

type Figures = Record<string, number>;

async function startup(app: App): Promise<Figures> {
  const fake = await startFake([]);
  const cwd = tempDir("yoke-bench-cwd-");
  const t = term(app.argv, app.env(fake, cwd), cwd);
  try {
    const first = await t.until((s) => s.trim() !== "", "a first frame");
    const prompt = await t.until(app.prompt, "the input prompt");
    // The first key typed as soon as the prompt shows, until the prompt line shows it.
    t.type("q");
    const key = await t.until((s) => app.echoed(s, "q"), "the first key in the prompt");
    const ready = await t.until(app.ready, "the ready session");
    const idleKey = median(await keyLatencies(t, "zxjvk"));
    return { first, prompt, key, ready, idleKey, idleRss: hwmMb(t.pid()), idleCpu: cpuMs(t.pid()) };
  } finally {
    t.kill();
    await fake.stop();
  }
}

async function streaming(app: App): Promise<Figures> {
  const long = Array.from({ length: streamLines }, (_, i) => `line ${i}: streamed text with some words in it`).join("\n");
  const last = `line ${streamLines - 1}:`;
  const fake = await startFake([{ content: [{ type: "text", text: long }] }], 2);
  const cwd = tempDir("yoke-bench-cwd-");
  const t = term(app.argv, app.env(fake, cwd), cwd);
  try {
    await t.until(app.ready, "the ready session");
    t.type("stream please");
    t.tmux("send-keys", "-t", "t", "Enter");
    const sent = performance.now() - t.t0;
    // Claude Code may draw a short answer at once, so any line of it will do.
    const firstLine = (await t.until((s) => /line \d+:/.test(s), "the stream")) - sent;
    const lat = await keyLatencies(t, "qzxjvkwqzx", (s) => s.includes(last));
    const end = await t.until((s) => s.includes(last), "the end of the stream", streamLimitMs).catch(() => null);
    if (end === null) {
      const reached = Math.max(...[...t.screen().matchAll(/line (\d+):/g)].map((m) => Number(m[1])), 0);
      throw new Error(`bench: ${app.name}'s stream not finished after ${streamLimitMs / 1000} s (line ${reached} of ${streamLines})`);
    }
    return { firstLine, streamKey: lat.length ? median(lat) : NaN, streamKeyMax: lat.length ? Math.max(...lat) : NaN, drawn: end - sent, streamCpu: cpuMs(t.pid()), streamRss: hwmMb(t.pid()) };
  } finally {
    t.kill();
    await fake.stop();
  }
}

const apps = existsSync(claude.argv[0]!) ? [yoke, claude] : [yoke];
if (apps.length === 1) console.log(`(no Claude Code binary at ${claude.argv[0]}; set CLAUDE_BIN to compare)`);
const load = () => readFileSync("/proc/loadavg", "utf8").split(" ")[0];
console.log(`load average at start ${load()}; ${runs} runs each, alternating; median [p10–p90]`);
const samples = new Map<string, Figures[]>(apps.map((a) => [a.name, []]));
for (let i = 0; i < runs; i++) {
  const order = i % 2 ? [...apps].reverse() : apps;
  for (const app of order) samples.get(app.name)!.push({ ...(await startup(app)), ...(await streaming(app)) });
}
const rows: Array<[string, string, (n: number) => string]> = [
  ["first", "first frame", (n) => `${n.toFixed(0)} ms`],
  ["prompt", "input prompt drawn", (n) => `${n.toFixed(0)} ms`],
  ["key", "first key shown in the prompt (from launch)", (n) => `${n.toFixed(0)} ms`],
  ["ready", "ready to send (session composed)", (n) => `${n.toFixed(0)} ms`],
  ["idleKey", "key echo, idle prompt", (n) => `${n.toFixed(0)} ms`],
  ["idleCpu", "CPU time to an idle prompt", (n) => `${n.toFixed(0)} ms`],
  ["idleRss", "peak RSS idle", (n) => `${n.toFixed(0)} MB`],
  ["firstLine", "first line of the answer shown (from Enter)", (n) => `${n.toFixed(0)} ms`],
  ["streamKey", `key echo while a ${streamLines}-line answer streams`, (n) => `${n.toFixed(0)} ms`],
  ["streamKeyMax", "  (slowest key of a run)", (n) => `${n.toFixed(0)} ms`],
  ["drawn", `${streamLines}-line answer drawn (Enter to last line)`, (n) => `${(n / 1000).toFixed(2)} s`],
  ["streamCpu", "CPU time, launch to the answer drawn", (n) => `${n.toFixed(0)} ms`],
  ["streamRss", "peak RSS after the answer", (n) => `${n.toFixed(0)} MB`],
];
console.log(`| | ${apps.map((a) => a.name).join(" | ")} |\n|---|${apps.map(() => "---").join("|")}|`);
for (const [key, label, fmt] of rows) {
  const cells = apps.map((a) => {
    const xs = samples.get(a.name)!.map((f) => f[key]!).filter((x) => Number.isFinite(x));
    return xs.length ? `${fmt(median(xs))} [${fmt(quantile(xs, 0.1))}–${fmt(quantile(xs, 0.9))}]` : "–";
  });
  console.log(`| ${label} | ${cells.join(" | ")} |`);
}
console.log(`load average at end ${load()}`);
