// Issue 16 point 13, end to end without the sandbox: the fake model makes every call of the attack corpus
// (test/fixtures/attack-corpus/corpus.ts) against the compiled binary in -p, one run per settings profile and
// mode. Every attempt must come back as a permission denial (headless: an ask is denied), no canary may reach
// the model, no protected file may change, no PWNED marker may appear and the canary server must get nothing.
// The ordinary commands must all run.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isolatedEnv, runYoke } from "../helpers/binary.ts";
import { fakeApiEnv, toolResultsOf } from "../helpers/fake-anthropic.ts";
import { useFakeAnthropic } from "../helpers/e2e.ts";
import { type AttackProject, attackProject, canariesIn, fillInput, projectEnv, protectedSnapshot, pwnedMarkers } from "../helpers/attack-project.ts";
import { ATTEMPTS, type Mode, ORDINARY, type Profile } from "../fixtures/attack-corpus/corpus.ts";

type Call = { id: string; name: string; input: Record<string, unknown> };
type Outcome = { text: string; isError: boolean };
type GroupRun = {
  results: Map<string, Outcome>;
  code: number | null;
  stderr: string;
  changed: string[];
  pwned: string[];
  hits: string[];
};

const fake = useFakeAnthropic();
let canary: ReturnType<typeof Bun.serve>;
const hits: string[] = [];
const roots: string[] = [];
const runs = new Map<string, GroupRun>();
const key = (profile: Profile, mode: Mode) => `${profile}/${mode}`;

/** One -p run in a fresh project: the model makes every call in one message, then stops. */
async function runGroup(profile: Profile, mode: Mode, calls: Array<{ id: string; tool: string; input: Record<string, unknown> }>): Promise<GroupRun> {
  const p: AttackProject = attackProject(profile);
  roots.push(p.root);
  writeFileSync(join(p.home, "port"), String(Number(canary.port)));
  const before = protectedSnapshot(p);
  const hitsBefore = hits.length;
  const modelCalls: Call[] = calls.map((c) => ({ id: c.id, name: c.tool, input: fillInput(c.input, p, Number(canary.port)) }));
  const reqsBefore = fake.requests.length;
  fake.push({ content: modelCalls.map((c) => ({ type: "tool_use" as const, id: c.id, name: c.name, input: c.input })) });
  fake.push({ content: [{ type: "text", text: "done" }] });
  const env = isolatedEnv({ ...fakeApiEnv(fake), ...projectEnv(p), YOKE_RETRY_BASE_MS: "5", YOKE_SANDBOX: "0" });
  const r = await runYoke(["-p", "go", "--output-format", "json", "--permission-mode", mode], { cwd: p.cwd, env, timeoutMs: 180_000 });
  const req = fake.requests.slice(reqsBefore).find((q) => toolResultsOf(q).length > 0);
  const results = new Map<string, Outcome>();
  for (const t of req ? toolResultsOf(req) : []) results.set(t.tool_use_id, { text: t.text, isError: t.is_error });
  const after = protectedSnapshot(p);
  const changed = [...new Set([...before.keys(), ...after.keys()])].filter((k) => before.get(k) !== after.get(k));
  return { results, code: r.code, stderr: r.stderr, changed, pwned: pwnedMarkers(p), hits: hits.slice(hitsBefore) };
}

const modesOf = (a: (typeof ATTEMPTS)[number]): Mode[] => a.modes ?? ["default", "acceptEdits"];
const callId = (id: string, mode: Mode) => `toolu_${id.replace(/\W/g, "_")}_${mode}`;

beforeAll(async () => {
  canary = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      hits.push(new URL(req.url).pathname);
      return new Response("canary reached");
    },
  });
  // Groups run one at a time: the fake API answers in order.
  const groups = new Map<string, { profile: Profile; mode: Mode; calls: Array<{ id: string; tool: string; input: Record<string, unknown> }> }>();
  for (const a of ATTEMPTS)
    for (const mode of modesOf(a)) {
      const profile = a.profile ?? "strict";
      const g = groups.get(key(profile, mode)) ?? { profile, mode, calls: [] };
      g.calls.push({ id: callId(a.id, mode), tool: a.tool, input: a.input });
      groups.set(key(profile, mode), g);
    }
  for (const mode of ["default", "acceptEdits"] as Mode[])
    groups.set(key("ordinary", mode), { profile: "ordinary", mode, calls: ORDINARY.filter((o) => o.mode === mode).map((o) => ({ id: callId(o.id, mode), tool: o.tool, input: o.input })) });
  for (const g of groups.values()) runs.set(key(g.profile, g.mode), await runGroup(g.profile, g.mode, g.calls));
}, 600_000);

afterAll(async () => {
  canary?.stop(true);
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

const DENIAL = /^Permission to use \w+ was denied|^PreToolUse:\w+ hook error/;

describe("attack corpus end to end, static checks only (issue 16 point 13)", () => {
  test("the corpus is whole: at least 200 attempts over every class, 60 ordinary commands", () => {
    expect(ATTEMPTS.length).toBeGreaterThanOrEqual(200);
    expect(ORDINARY.length).toBeGreaterThanOrEqual(60);
    const classes = new Set(ATTEMPTS.map((a) => a.class.split("-")[0]));
    for (const c of ["1", "2", "3", "4", "5", "6", "7", "8", "9", "own"]) expect(classes).toContain(c);
  });
  test("no run breached: protected files unchanged, no PWNED marker, nothing reached the canary server", () => {
    for (const [k, r] of runs) expect({ k, changed: r.changed, pwned: r.pwned, hits: r.hits }).toEqual({ k, changed: [], pwned: [], hits: [] });
    // stderr carries only the killed slow guard's notices.
    for (const [k, r] of runs) expect({ k, stderr: r.stderr.split("\n").filter((l) => l && !l.includes("slow-guard-hook.sh")) }).toEqual({ k, stderr: [] });
  });
  for (const a of ATTEMPTS)
    test(`${a.id} [${a.class}] ${a.tool} ${JSON.stringify(a.input).slice(0, 90)}: denied in ${modesOf(a).join(" and ")}`, () => {
      for (const mode of modesOf(a)) {
        const r = runs.get(key(a.profile ?? "strict", mode))!;
        const out = r.results.get(callId(a.id, mode));
        expect({ mode, answered: out !== undefined }).toEqual({ mode, answered: true });
        expect({ mode, denied: DENIAL.test(out!.text), isError: out!.isError, text: out!.text.slice(0, 300) }).toMatchObject({ mode, denied: true, isError: true });
        expect(canariesIn(out!.text)).toEqual([]);
      }
    });
});

describe("ordinary commands end to end: they run", () => {
  for (const o of ORDINARY)
    test(`${o.id} (${o.mode}) ${o.what}: ${JSON.stringify(o.input)}`, () => {
      const out = runs.get(key("ordinary", o.mode))!.results.get(callId(o.id, o.mode));
      expect(out).toBeDefined();
      expect({ denied: DENIAL.test(out!.text), text: out!.text.slice(0, 300) }).toMatchObject({ denied: false });
      const program = String(o.input.command ?? "").split(/\s+/).find((w) => !w.includes("="));
      if (program && Bun.which(program)) expect({ isError: out!.isError, text: out!.text.slice(0, 300) }).toMatchObject({ isError: false });
    });
});
