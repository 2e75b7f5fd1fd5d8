/**
 * The interactive session side by side with the real Claude Code (issue 12 point 9): both compiled binaries in tmux,
 * both against the same fake Anthropic API on 127.0.0.1 (never the network), measured the same way from outside:
 *   1. time from launch to the first frame (any text on the screen) and to the drawn input prompt;
 *   2. keystroke-to-screen latency at an idle prompt and while a 2,000-line answer streams (a key sent with
 *      send-keys until capture-pane shows it: includes tmux's own round trip, the same for both);
 *   3. peak RSS (VmHWM of the process in the pane) of an idle session and after the 2,000-line answer.
 * Claude Code is the Agent SDK's bundled binary (CLAUDE_BIN overrides), with onboarding, folder trust and the API key
 * pre-accepted in a throwaway config dir, and its non-essential traffic off.
 *   nice -n 19 bun bench/tui-vs-claude.ts [runs] [stream lines]
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isolatedEnv, repoRoot, yokeBin } from "../test/helpers/binary.ts";
import { fakeApiEnv, startFakeAnthropic, type FakeAnthropic } from "../test/helpers/fake-anthropic.ts";
import { tempDir } from "../test/helpers/tmp.ts";

const runs = Number(process.argv[2] ?? 5);
const streamLines = Number(process.argv[3] ?? 2000);
/** How long the stream may take before its end is reported as not reached (a starved `nice -n 19` run is slow). */
const streamLimitMs = Number(process.env.BENCH_STREAM_LIMIT_MS ?? 240_000);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const claudeBin = process.env.CLAUDE_BIN ?? join(repoRoot(), "node_modules", "@anthropic-ai", "claude-agent-sdk-linux-x64", "claude");
let n = 0;

type App = {
  name: string;
  argv: string[];
  env(fake: FakeAnthropic, cwd: string): Record<string, string>;
  /** The input prompt is drawn. */
  prompt(screen: string): boolean;
  /** The session can send a prompt to the model (yoke composes behind its drawn prompt). */
  ready(screen: string): boolean;
};

const yoke: App = {
  name: "yoke",
  argv: [yokeBin()],
  env: (fake) => isolatedEnv({ ...fakeApiEnv(fake), YOKE_MEMORY_EXTRACTION: "0", YOKE_SESSION_MEMORY: "0" }),
  // The editor between its two rules.
  prompt: (s) => /^─{20,}\n.*\n─{20,}$/m.test(s),
  ready: (s) => s.includes("context"),
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

const hwmMb = (pid: number) => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;

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

async function startup(app: App) {
  const first: number[] = [];
  const prompt: number[] = [];
  const ready: number[] = [];
  const idleKeys: number[] = [];
  const idleRss: number[] = [];
  for (let i = 0; i < runs; i++) {
    const fake = await startFakeAnthropic({ script: [] });
    const cwd = tempDir("yoke-bench-cwd-");
    const t = term(app.argv, app.env(fake, cwd), cwd);
    try {
      first.push(await t.until((s) => s.trim() !== "", "a first frame"));
      prompt.push(await t.until(app.prompt, "the input prompt"));
      ready.push(await t.until(app.ready, "the ready session"));
      idleKeys.push(median(await keyLatencies(t, "qzxjvk")));
      idleRss.push(hwmMb(t.pid()));
    } finally {
      t.kill();
      await fake.stop();
    }
  }
  return { first: median(first), prompt: median(prompt), ready: median(ready), idleKey: median(idleKeys), idleRss: median(idleRss) };
}

async function streaming(app: App) {
  const long = Array.from({ length: streamLines }, (_, i) => `line ${i}: streamed text with some words in it`).join("\n");
  const last = `line ${streamLines - 1}:`;
  const fake = await startFakeAnthropic({ chunkDelayMs: 2, script: [{ content: [{ type: "text", text: long }] }] });
  const cwd = tempDir("yoke-bench-cwd-");
  const t = term(app.argv, app.env(fake, cwd), cwd);
  try {
    await t.until(app.ready, "the ready session");
    t.type("stream please");
    t.tmux("send-keys", "-t", "t", "Enter");
    await t.until((s) => s.includes("line 5:"), "the stream");
    const lat = await keyLatencies(t, "qzxjvkwqzx", (s) => s.includes(last));
    const end = await t.until((s) => s.includes(last), "the end of the stream", streamLimitMs).catch(() => null);
    const reached = Math.max(...[...t.screen().matchAll(/line (\d+):/g)].map((m) => Number(m[1])), 0);
    const rss = hwmMb(t.pid());
    return { key: lat.length ? median(lat) : NaN, keyMax: lat.length ? Math.max(...lat) : NaN, keys: lat.length, rss, end, reached };
  } finally {
    t.kill();
    await fake.stop();
  }
}

const apps = existsSync(claude.argv[0]!) ? [yoke, claude] : [yoke];
if (apps.length === 1) console.log(`(no Claude Code binary at ${claude.argv[0]}; set CLAUDE_BIN to compare)`);
const load = () => readFileSync("/proc/loadavg", "utf8").split(" ")[0];
console.log(`load average at start ${load()}; ${runs} runs each; medians`);
for (const app of apps) {
  const s = await startup(app);
  const st = await streaming(app);
  console.log(
    `${app.name.padEnd(6)} first frame ${s.first.toFixed(0)} ms · input prompt ${s.prompt.toFixed(0)} ms · ready ${s.ready.toFixed(0)} ms · ` +
      `key echo idle ${s.idleKey.toFixed(0)} ms, streaming ${st.key.toFixed(0)} ms (max ${st.keyMax.toFixed(0)}, ${st.keys} keys) · ` +
      `peak RSS idle ${s.idleRss.toFixed(0)} MB, after the stream ${st.rss.toFixed(0)} MB · ` +
      (st.end === null ? `stream not finished after ${streamLimitMs / 1000} s (line ${st.reached} of ${streamLines})` : `${streamLines}-line stream drawn ${(st.end / 1000).toFixed(1)} s after launch`),
  );
}
console.log(`load average at end ${load()}`);
