// Issue 16 point 13, decided statically: every attempt of the attack corpus that the permission evaluator alone
// decides (all but the hook profiles) is never allowed, in each of its modes; every ordinary command is allowed.
// The same corpus runs end to end through the binary in test/e2e/attack-corpus.test.ts.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { createPermissionEvaluator } from "../../src/permission/index.ts";
import { ATTEMPTS, ORDINARY, PROFILES, type Mode, type Profile } from "../fixtures/attack-corpus/corpus.ts";
import { attackProject, fillInput } from "../helpers/attack-project.ts";
import type { LoadedSettings } from "../../src/config/load.ts";

const projects = new Map<Profile, ReturnType<typeof attackProject>>();
const project = (p: Profile) => {
  if (!projects.has(p)) projects.set(p, attackProject(p));
  return projects.get(p)!;
};

function decide(profile: Profile, mode: Mode, toolName: string, input: Record<string, unknown>) {
  const p = project(profile);
  const settings: LoadedSettings = { merged: PROFILES[profile], sources: [{ level: "user", path: p.settingsFile, ruleRoot: join(p.home, ".claude"), settings: PROFILES[profile] as never }] };
  const ev = createPermissionEvaluator({ settings, cwd: p.cwd, mode, env: { HOME: p.home, PATH: process.env.PATH, ANTHROPIC_API_KEY: "sk-ant-fake-test-key" } });
  return ev.decide({ toolName, input: fillInput(input, p, 1), readOnly: ["Read", "Grep", "Glob"].includes(toolName), cwd: p.cwd });
}

describe("attack corpus, static (issue 16): never allowed", () => {
  test("the corpus is whole", () => {
    expect(ATTEMPTS.length).toBeGreaterThanOrEqual(200);
    expect(ORDINARY.length).toBeGreaterThanOrEqual(60);
    expect(new Set(ATTEMPTS.map((a) => a.id)).size).toBe(ATTEMPTS.length);
  });
  for (const a of ATTEMPTS) {
    if (a.profile === "rewrite" || a.profile === "guard") continue;
    test(`${a.id} [${a.class}] ${JSON.stringify(a.input)}`, () => {
      for (const mode of a.modes ?? ["default", "acceptEdits"]) {
        const d = decide(a.profile ?? "strict", mode, a.tool, a.input);
        expect({ mode, behavior: d.behavior, reason: d.reason }).not.toMatchObject({ behavior: "allow" });
      }
    });
  }
});

describe("ordinary commands, static: allowed", () => {
  for (const o of ORDINARY)
    test(`${o.id} ${JSON.stringify(o.input)}`, () => {
      const d = decide("ordinary", o.mode, o.tool, o.input);
      expect({ behavior: d.behavior, reason: d.reason }).toMatchObject({ behavior: "allow" });
    });
});
