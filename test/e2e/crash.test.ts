// Crash safety (issue 7 item 6): SIGKILL the compiled binary at random points of a scripted multi-turn
// run, then --resume: it must succeed and the resumed request must hold every completed turn.
import { beforeAll, expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fakeApiEnv, startFakeAnthropic } from "../helpers/fake-anthropic.ts";
import { isolatedEnv, runYoke, spawnYoke, yokeBin, TRUST_WORKSPACE } from "../helpers/binary.ts";
import { tempDir } from "../helpers/tmp.ts";

const RUNS = 52;
const PARALLEL = 6;

beforeAll(() => void yokeBin());

function transcriptOf(env: Record<string, string>, id: string): string | null {
  const projects = join(env.YOKE_CONFIG_DIR!, "projects");
  if (!existsSync(projects)) return null;
  for (const d of readdirSync(projects)) {
    const p = join(projects, d, `${id}.jsonl`);
    if (existsSync(p)) return p;
  }
  return null;
}

/** Complete lines only: a torn last line is what a kill may leave, and is not a completed write. */
function completeLines(path: string): any[] {
  const raw = readFileSync(path, "utf8");
  const parts = raw.split("\n");
  parts.pop(); // after the last newline: '' or a torn line
  return parts.map((l) => JSON.parse(l));
}

type Outcome = { killedAt: number; hadFile: boolean; blocks: number; results: number };

async function oneRun(seed: number): Promise<Outcome> {
  const rnd = (n: number) => Math.floor(Math.random() * n);
  const fake = await startFakeAnthropic();
  try {
    const cwd = tempDir("yoke-crash-");
    await Bun.write(join(cwd, ".claude/settings.json"), JSON.stringify({ permissions: { allow: ["Write", "Read"] } }));
    const env = isolatedEnv({ ...TRUST_WORKSPACE, ...fakeApiEnv(fake), YOKE_RETRY_BASE_MS: "5" });
    const id = randomUUID();
    const file = join(cwd, `f${seed}.txt`);
    fake.push(
      { content: [{ type: "text", text: `writing ${seed}` }, { type: "tool_use", name: "Write", input: { file_path: file, content: `v${seed}\n` } }], delayMs: rnd(120) },
      { content: [{ type: "tool_use", name: "Read", input: { file_path: file } }], delayMs: rnd(120) },
      { content: [{ type: "text", text: `read it ${seed}` }, { type: "tool_use", name: "Write", input: { file_path: `${file}.2`, content: "two\n" } }], delayMs: rnd(120) },
      { content: [{ type: "text", text: `all done ${seed}` }], delayMs: rnd(120) },
    );
    const proc = spawnYoke(["-p", `crash task ${seed}`, "--session-id", id], { cwd, env });
    // Kill points are measured from the first model request, so slow startups under load do not eat them;
    // one run in eight is killed during startup instead.
    const early = rnd(8) === 0;
    let exited = false;
    void proc.exited.then(() => (exited = true));
    if (!early) for (let i = 0; i < 400 && fake.requests.length === 0 && !exited; i++) await Bun.sleep(10);
    const killedAt = early ? rnd(150) : rnd(550);
    await Promise.race([proc.exited, Bun.sleep(killedAt)]);
    proc.kill("SIGKILL");
    await proc.exited;

    const path = transcriptOf(env, id);
    if (!path) return { killedAt, hadFile: false, blocks: 0, results: 0 };
    const lines = completeLines(path);
    const assistantBlocks = lines.filter((l) => l.type === "assistant").map((l) => l.message.content[0]);
    const toolResults = lines.filter((l) => l.type === "user" && Array.isArray(l.message.content)).flatMap((l) => l.message.content.filter((b: any) => b.type === "tool_result"));
    const prompt = lines.some((l) => l.type === "user" && l.message.content === `crash task ${seed}`);

    // A fresh fake for the resume: the first one may still hold unused replies.
    const fake2 = await startFakeAnthropic({ script: [{ content: [{ type: "text", text: "resumed fine" }] }] });
    let r;
    try {
      r = await runYoke(["-p", "carry on", "--resume", id], { cwd, env: { ...env, ANTHROPIC_BASE_URL: fake2.url } });
    } finally {
      await fake2.stop();
    }
    if (r.code !== 0) throw new Error(`run ${seed} (killed at ${killedAt} ms): resume exited ${r.code}: ${r.stderr}`);
    expect(r.stdout).toBe("resumed fine\n");
    expect(fake2.rejected).toBe(0);
    const req = fake2.requests.find((q) => q.path === "/v1/messages");
    const sent = JSON.stringify(req?.body.messages ?? []);
    if (prompt) expect(sent).toContain(`crash task ${seed}`);
    for (const b of assistantBlocks) {
      if (b.type === "tool_use") expect(sent).toContain(b.id);
      else if (b.type === "text" && b.text) expect(sent).toContain(JSON.stringify(b.text).slice(1, -1));
    }
    for (const t of toolResults) {
      const idx = sent.indexOf(`"tool_use_id":"${t.tool_use_id}"`);
      expect(idx).toBeGreaterThan(-1);
      // the recorded result, not the "interrupted" placeholder
      expect(sent).toContain(JSON.stringify(typeof t.content === "string" ? t.content : t.content).slice(1, 30));
    }
    return { killedAt, hadFile: true, blocks: assistantBlocks.length, results: toolResults.length };
  } finally {
    await fake.stop();
  }
}

test(`SIGKILL at ${RUNS} random points; every resume succeeds and holds every completed turn`, async () => {
  const outcomes: Outcome[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      while (next < RUNS) {
        const seed = next++;
        outcomes.push(await oneRun(seed));
      }
    }),
  );
  expect(outcomes.length).toBe(RUNS);
  const resumed = outcomes.filter((o) => o.hadFile);
  // The kill points must actually spread over the run: early kills, mid-tool kills, finished runs.
  expect(resumed.length).toBeGreaterThanOrEqual(RUNS / 2);
  process.stderr.write(`crash test: ${resumed.length}/${RUNS} runs left a transcript; (assistant blocks/tool results) seen: ${[...new Set(resumed.map((o) => `${o.blocks}/${o.results}`))].sort().join(" ")}\n`);
  const distinct = new Set(resumed.map((o) => `${o.blocks}/${o.results}`));
  expect(distinct.size).toBeGreaterThanOrEqual(3);
}, 90_000);
