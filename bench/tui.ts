/**
 * The interactive session (issue 12 point 9), the compiled binary in tmux against the fake API on localhost:
 *   1. time from `yoke` to a drawn input prompt that takes keys (YOKE_TIMING's prompt-drawn mark, since process
 *      start), next to the same binary's time to main (what the runtime costs before any yoke code);
 *   2. keystroke-to-screen latency while a 2,000-line answer streams (a key sent with send-keys until capture-pane
 *      shows it; includes tmux's own round trip);
 *   3. peak RSS (VmHWM) of an idle session and after a 200-turn session.
 * With CLAUDE_BIN set, (1) is also measured for the real `claude` as the time until its screen shows a prompt.
 * The fake API runs in its own process (bench/fake-process.ts): this one blocks in tmux calls while it polls.
 *   bun bench/tui.ts [turns]
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { isolatedEnv, yokeBin } from "../test/helpers/binary.ts";
import { fakeApiEnv } from "../test/helpers/fake-anthropic.ts";
import { startFakeProcess } from "./fake-process.ts";
import { tempDir } from "../test/helpers/tmp.ts";

const turns = Number(process.argv[2] ?? 200);
const bin = yokeBin();
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
let n = 0;

function term(argv: string[], env: Record<string, string>, cwd: string) {
  const sock = `yoke-bench-${process.pid}-${++n}`;
  const tmux = (...a: string[]) => spawnSync("tmux", ["-L", sock, "-f", "/dev/null", ...a], { encoding: "utf8" }).stdout;
  const command = ["env", "-i", ...Object.entries({ TERM: "xterm-256color", ...env }).map(([k, v]) => `${k}=${v}`), ...argv];
  tmux("start-server", ";", "set-option", "-g", "remain-on-exit", "on", ";", "new-session", "-d", "-s", "t", "-x", "120", "-y", "40", "-c", cwd, ...command);
  const screen = () => tmux("capture-pane", "-p", "-t", "t");
  return {
    tmux,
    screen,
    pid: () => Number(tmux("display-message", "-p", "-t", "t", "#{pane_pid}").trim()),
    async waitFor(test: (s: string) => boolean, limitMs = 60_000) {
      const end = Date.now() + limitMs;
      for (;;) {
        const s = screen();
        if (test(s)) return s;
        if (Date.now() > end) throw new Error(`bench: timed out; screen:\n${s}`);
        await Bun.sleep(2);
      }
    },
    kill: () => tmux("kill-server"),
  };
}

const hwmMb = (pid: number) => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;

async function startup(runs = 9) {
  const drawn: number[] = [];
  const mains: number[] = [];
  for (let i = 0; i < runs; i++) {
    const env = isolatedEnv({ ANTHROPIC_API_KEY: "x", YOKE_TIMING: "1" });
    const t = term([bin], env, tempDir());
    await t.waitFor((s) => s.includes("context"));
    t.tmux("send-keys", "-t", "t", "C-d");
    const s = await t.waitFor((x) => x.includes("yoke timing"));
    t.kill();
    const mark = (k: string) => Number(new RegExp(`${k}=([\\d.]+)`).exec(s)![1]);
    drawn.push(mark("prompt-drawn"));
    mains.push(mark("main"));
  }
  console.log(`startup: input prompt drawn at ${median(drawn).toFixed(0)} ms after process start (median of ${runs}); main at ${median(mains).toFixed(0)} ms, so ${(median(drawn) - median(mains)).toFixed(0)} ms of yoke's own`);
  if (process.env.CLAUDE_BIN) {
    const cc: number[] = [];
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      const t = term([process.env.CLAUDE_BIN], isolatedEnv({ ANTHROPIC_API_KEY: "x" }), tempDir());
      await t.waitFor((s) => />\s*$/m.test(s) || s.includes("? for shortcuts"));
      cc.push(performance.now() - t0);
      t.kill();
    }
    console.log(`startup: claude's prompt visible after ${median(cc).toFixed(0)} ms (median of ${runs}, measured from outside)`);
  }
}

async function latencyAndMemory() {
  const long = Array.from({ length: 2000 }, (_, i) => `line ${i}: streamed text with some words in it`).join("\n");
  const fake = await startFakeProcess([{ content: [{ type: "text", text: long }] }], 2);
  const env = isolatedEnv({ ...fakeApiEnv(fake), YOKE_MEMORY_EXTRACTION: "0", YOKE_SESSION_MEMORY: "0" });
  const t = term([bin], env, tempDir());
  await t.waitFor((s) => s.includes("context"));
  const idle = hwmMb(t.pid());
  t.tmux("send-keys", "-t", "t", "-l", "stream please");
  t.tmux("send-keys", "-t", "t", "Enter");
  await t.waitFor((s) => s.includes("line 5:"));
  const lat: number[] = [];
  for (let i = 0; i < 10 && !t.screen().includes("line 1999:"); i++) {
    const ch = String.fromCharCode(97 + i);
    const t0 = performance.now();
    t.tmux("send-keys", "-t", "t", "-l", ch);
    await t.waitFor((s) => s.split("\n").some((l) => l.trimEnd().endsWith("abcdefghij".slice(0, i + 1))));
    lat.push(performance.now() - t0);
  }
  console.log(`keystroke to screen while a 2,000-line answer streams: median ${median(lat).toFixed(0)} ms, max ${Math.max(...lat).toFixed(0)} ms (${lat.length} keys)`);
  t.kill();
  await fake.stop();

  const fake2 = await startFakeProcess(Array.from({ length: turns }, (_, i) => ({ content: [{ type: "text" as const, text: `answer ${i}\n\n${"- a point worth making\n".repeat(10)}` }] })));
  const env2 = isolatedEnv({ ...fakeApiEnv(fake2), YOKE_MEMORY_EXTRACTION: "0", YOKE_SESSION_MEMORY: "0" });
  const t2 = term([bin], env2, tempDir());
  await t2.waitFor((s) => s.includes("context"));
  const t0 = performance.now();
  for (let i = 0; i < turns; i++) {
    t2.tmux("send-keys", "-t", "t", "-l", `question ${i}`);
    t2.tmux("send-keys", "-t", "t", "Enter");
    await t2.waitFor((s) => s.includes(`answer ${i}`));
  }
  console.log(`peak RSS: idle session ${idle.toFixed(0)} MB; after ${turns} turns ${hwmMb(t2.pid()).toFixed(0)} MB (${((performance.now() - t0) / 1000).toFixed(1)} s for the turns)`);
  t2.kill();
  await fake2.stop();
}

await startup();
await latencyAndMemory();
