// The shared attack corpus (test/fixtures/attack-corpus/, issue 16 point 13) run end to end in the compiled
// binary WITH the kernel sandbox. Two projects per profile and mode: the corpus's own (its secrets were
// committed once, so auto-allow is withheld and the static checks decide, the kernel holding what runs), and
// the same project with that history rewritten (secrets never committed), where `autoAllowBashIfSandboxed`
// lets through every command the static checks would only ask about, and the kernel alone must hold.
// A breach: a canary in anything the model sees, a protected file changed, a PWNED marker, a request at the
// canary server.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { runYoke } from "../helpers/binary.ts";
import { fakeApiEnv, toolResultsOf } from "../helpers/fake-anthropic.ts";
import { useFakeAnthropic } from "../helpers/e2e.ts";
import { gitEnv } from "../helpers/tmp.ts";
import { writeFileSync } from "node:fs";
import { type AttackProject, attackProject, canariesIn, fillInput, projectEnv, protectedSnapshot, pwnedMarkers } from "../helpers/attack-project.ts";
import { ATTEMPTS, type Mode, ORDINARY, PROFILES, type Profile } from "../fixtures/attack-corpus/corpus.ts";
import { probeSandbox } from "../../src/sandbox/probe.ts";

const probe = await probeSandbox({ env: process.env });
if (!probe.ok) console.warn(`sandboxed attack corpus skipped: ${probe.reason}`);

const fake = useFakeAnthropic();
let canary: ReturnType<typeof Bun.serve>;
const heard: string[] = [];
beforeAll(async () => {
  canary = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (r) => (heard.push(r.url), new Response("canary")) });
});
afterAll(async () => {
  canary?.stop(true);
});

/** The corpus project with its git history replaced by one commit of what is tracked now (no secrets in it). */
function withCleanHistory(p: AttackProject): AttackProject {
  rmSync(join(p.cwd, ".git"), { recursive: true, force: true });
  const env = gitEnv({ HOME: p.home });
  for (const args of [["init", "-q", "-b", "main"], ["config", "user.name", "Fixture"], ["config", "user.email", "fixture@example.invalid"], ["add", "-A"], ["commit", "-qm", "clean"]]) {
    const r = Bun.spawnSync(["git", ...args], { cwd: p.cwd, env });
    if (r.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
  }
  return p;
}

type Finding = { id: string; what: string };

async function runBatch(p: AttackProject, calls: Array<{ id: string; tool: string; input: Record<string, unknown> }>, mode: Mode) {
  const before = fake.requests.length;
  fake.push({ content: calls.map((c) => ({ type: "tool_use" as const, id: c.id, name: c.tool, input: fillInput(c.input, p, canary.port!) })) });
  fake.push({ content: [{ type: "text", text: "done" }] });
  writeFileSync(join(p.home, "port"), String(canary.port));
  const r = await runYoke(["-p", "go", "--output-format", "stream-json", "--verbose", "--permission-mode", mode], {
    cwd: p.cwd,
    env: { ...fakeApiEnv(fake), ...projectEnv(p), YOKE_SANDBOX: undefined, YOKE_TRUST_WORKSPACE: undefined, YOKE_RETRY_BASE_MS: "5" },
    timeoutMs: 280_000,
  });
  const results = new Map<string, { text: string; isError: boolean }>();
  for (const req of fake.requests.slice(before)) for (const t of toolResultsOf(req)) results.set(t.tool_use_id, { text: t.text, isError: t.is_error });
  const seen = r.stdout + JSON.stringify(fake.requests.slice(before).map((q) => q.body));
  const init = r.stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l)).find((m) => m.type === "system" && m.subtype === "init");
  return { r, results, seen, init };
}

const PROFILE_NAMES = Object.keys(PROFILES).filter((n) => n !== "ordinary") as Profile[];
const key = (id: string) => `toolu_${id.replace(/\W/g, "_")}`;

describe.skipIf(!probe.ok)("attack corpus with the kernel sandbox (issue 16 point 13)", () => {
  // The corpus project's secrets were committed once; the sandbox cannot hide history (it withholds auto-allow
  // there, and the static checks decide: test/e2e/attack-corpus.test.ts). Here the history is rewritten, so
  // auto-allow is on and every attempt the static checks would only ask about runs, held by the kernel alone.
  test(`${ATTEMPTS.length} attempts with auto-allow: no canary reaches the model, no protected file changes`, async () => {
    const findings: Finding[] = [];
    let ran = 0;
    const markers: string[] = [];
    for (const profile of PROFILE_NAMES) {
      for (const mode of ["default", "acceptEdits"] as Mode[]) {
        const batch = ATTEMPTS.filter((a) => (a.profile ?? "strict") === profile && (a.modes ?? ["default", "acceptEdits"]).includes(mode));
        if (!batch.length) continue;
        const p = withCleanHistory(attackProject(profile));
        writeFileSync(p.settingsFile, JSON.stringify({ ...PROFILES[profile], sandbox: { autoAllowBashIfSandboxed: true } }, null, 2));
        const before = protectedSnapshot(p);
        const { results, seen, init, r } = await runBatch(p, batch.map((a) => ({ id: key(a.id), tool: a.tool, input: a.input })), mode);
        expect(init?.sandbox_enabled, r.stderr).toBe(true);
        expect(r.stderr).not.toContain("is in the git history");
        for (const a of batch) {
          const o = results.get(key(a.id));
          if (!o) findings.push({ id: a.id, what: `no result (${profile}/${mode})` });
          else if (a.tool === "Bash" && !o.text.startsWith("Permission to use Bash was denied")) ran++;
          const leaked = o ? canariesIn(o.text) : [];
          if (leaked.length) findings.push({ id: a.id, what: `${profile}/${mode}: ${leaked.join(", ")} in the result of ${JSON.stringify(a.input)}` });
        }
        const leakedAnywhere = canariesIn(seen);
        if (leakedAnywhere.length) findings.push({ id: `${profile}/${mode}`, what: `canary sent to the model: ${leakedAnywhere.join(", ")}` });
        const after = protectedSnapshot(p);
        for (const [f, c] of before) if (after.get(f) !== c) findings.push({ id: `${profile}/${mode}`, what: `${f} changed` });
        // Code the repository ships may run inside the sandbox once auto-allowed (that is what auto-allow means); it
        // is counted, not a breach: what it can reach is what the two checks above guard.
        markers.push(...pwnedMarkers(p));
      }
    }
    expect(heard, "a request reached the canary server").toEqual([]);
    expect(findings).toEqual([]);
    console.log(`sandboxed corpus: ${ran} Bash attempts ran inside the sandbox (${markers.length} ran repository code there); none breached`);
    expect(ran).toBeGreaterThanOrEqual(30);
  }, 900_000);

  test(`${ORDINARY.length} ordinary commands run with the sandbox on`, async () => {
    const failed: string[] = [];
    for (const mode of ["default", "acceptEdits"] as Mode[]) {
      const batch = ORDINARY.filter((o) => o.mode === mode);
      if (!batch.length) continue;
      const p = attackProject("ordinary");
      // One session per command, in order, on the same project: a `cd` in one must not move the next.
      for (const o of batch) {
        const { results } = await runBatch(p, [{ id: key(o.id), tool: o.tool, input: o.input }], mode);
        const res = results.get(key(o.id));
        // Refused by a rule, or stopped by the kernel. (A command's own failure, like ok.065's commit with nothing
        // staged, is the corpus's business and fails the same way without the sandbox.)
        const blocked = !res || res.text.startsWith("Permission to use") || /Read-only file system|Operation not permitted|Permission denied|bwrap|sandbox/.test(res.text);
        if (blocked) failed.push(`${o.id} ${JSON.stringify(o.input)} (${mode}): ${res?.text.slice(0, 200) ?? "no result"}`);
      }
    }
    expect(failed).toEqual([]);
  }, 600_000);
});
