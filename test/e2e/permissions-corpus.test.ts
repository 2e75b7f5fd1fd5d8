// End-to-end (issue 5): every case of the permission corpus decided by the compiled binary through
// `yoke permissions explain --batch`, with the rules in a real project's .claude/settings.json.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runYoke, TRUST_WORKSPACE, yokeBin } from "../helpers/binary.ts";
import { corpusProject, substCwd } from "../helpers/permission-project.ts";
import { BYPASS_ATTEMPTS, type CorpusCase, type CorpusRules, ORDINARY_ALLOWED } from "../fixtures/permission-corpus.ts";

type Answer = { decision: string; headless: string; mode: string; reason: string; rule?: { text: string; file: string; list: string; index: number }; error?: string };

const groups = new Map<CorpusRules, CorpusCase[]>();
for (const c of [...BYPASS_ATTEMPTS, ...ORDINARY_ALLOWED]) groups.set(c.rules, [...(groups.get(c.rules) ?? []), c]);
const answers = new Map<CorpusCase, { answer: Answer; settingsFile: string }>();
const roots: string[] = [];

beforeAll(async () => {
  yokeBin();
  // One binary process per rule set (each case's mode travels in its batch line); two at a time.
  const jobs = [...groups.entries()];
  const work = async () => {
    for (let job = jobs.shift(); job; job = jobs.shift()) {
      const [rules, cases] = job;
      const p = corpusProject(rules);
      roots.push(p.root);
      const lines = cases.map((c) => JSON.stringify({ tool: c.tool, input: substCwd(c.input, p.cwd), ...(c.mode ? { mode: c.mode } : {}) }));
      const batch = join(p.root, "batch.jsonl");
      writeFileSync(batch, `${lines.join("\n")}\n`);
      const r = await runYoke(["permissions", "explain", "--batch", batch], { cwd: p.cwd, env: { HOME: p.home, IS_SANDBOX: "1", ...TRUST_WORKSPACE } });
      if (r.code !== 0) throw new Error(`explain --batch exited ${r.code}: ${r.stderr}`);
      const out = r.stdout.trim().split("\n").map((l) => JSON.parse(l) as Answer);
      if (out.length !== cases.length) throw new Error(`expected ${cases.length} answers, got ${out.length}: ${r.stdout}${r.stderr}`);
      cases.forEach((c, i) => answers.set(c, { answer: out[i]!, settingsFile: p.settingsFile }));
    }
  };
  await Promise.all([work(), work()]);
  // Some forty starts of the binary: 26 s on a busy machine, more with both cores taken.
}, 240_000);
afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

describe("bypass corpus through the binary (contracts §3.1–3.3): never allowed, headless always denied", () => {
  test("the corpus is whole", () => {
    expect(BYPASS_ATTEMPTS.length).toBeGreaterThanOrEqual(60);
    expect(answers.size).toBe(BYPASS_ATTEMPTS.length + ORDINARY_ALLOWED.length);
  });
  for (const c of BYPASS_ATTEMPTS) {
    test(`${c.name} → ${c.expect}`, () => {
      const { answer, settingsFile } = answers.get(c)!;
      expect(answer.error).toBeUndefined();
      expect({ decision: answer.decision, reason: answer.reason }).toMatchObject({ decision: c.expect });
      expect(answer.headless).toBe("deny");
      expect(answer.reason.length).toBeGreaterThan(10);
      expect(answer.mode).toBe(c.mode ?? "default");
      // A deny that a rule caused names that rule and the settings file it lives in.
      if (answer.rule) {
        expect(answer.rule.file).toBe(settingsFile);
        expect(answer.reason).toContain(answer.rule.text);
      }
      if (answer.decision === "deny" && !c.mode) expect(answer.rule?.list).toBe("deny");
    });
  }
});

describe("ordinary commands through the binary: allowed, naming the rule or the built-in check", () => {
  for (const c of ORDINARY_ALLOWED) {
    test(c.name, () => {
      const { answer, settingsFile } = answers.get(c)!;
      expect({ decision: answer.decision, reason: answer.reason }).toMatchObject({ decision: "allow" });
      expect(answer.headless).toBe("allow");
      if (answer.rule) {
        expect(answer.rule.file).toBe(settingsFile);
        expect(answer.rule.list).toBe("allow");
        expect(answer.reason).toContain(answer.rule.text);
      } else expect(answer.reason).toMatch(/read-only|acceptEdits mode|inside the working directories/);
    });
  }
});
