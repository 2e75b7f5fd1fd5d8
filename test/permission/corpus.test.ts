import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { LoadedSettings } from "../../src/config/load.ts";
import { createPermissionEvaluator } from "../../src/permission/index.ts";
import type { PermissionMode } from "../../src/permission/types.ts";
import { BYPASS_ATTEMPTS, type CorpusCase, ORDINARY_ALLOWED } from "../fixtures/permission-corpus.ts";
import { corpusProject, substCwd } from "../helpers/permission-project.ts";

// One project for every case; each case's rules are handed to the evaluator directly.
const { cwd, home } = corpusProject({});

function run(c: CorpusCase) {
  const settings: LoadedSettings = {
    merged: { permissions: c.rules },
    sources: [{ level: "project", path: join(cwd, ".claude", "settings.json"), ruleRoot: cwd, settings: { permissions: c.rules } }],
  };
  const ev = createPermissionEvaluator({ settings, cwd, mode: c.mode as PermissionMode | undefined, env: { HOME: home, PATH: "/usr/bin" } });
  const input = substCwd(c.input, cwd);
  const readOnly = ["Read", "Glob", "Grep"].includes(c.tool);
  return ev.decide({ toolName: c.tool, input, readOnly, cwd });
}

describe("bypass corpus (contracts §3.1, §3.2): never allowed", () => {
  test("corpus is big enough", () => {
    expect(BYPASS_ATTEMPTS.length).toBeGreaterThanOrEqual(60);
    expect(ORDINARY_ALLOWED.length).toBeGreaterThanOrEqual(40);
  });
  for (const c of BYPASS_ATTEMPTS) {
    test(`${c.name} → ${c.expect}`, () => {
      const d = run(c);
      expect(d.behavior).not.toBe("allow");
      expect({ behavior: d.behavior, reason: d.reason }).toMatchObject({ behavior: c.expect });
    });
  }
});

describe("ordinary commands allowed by matching rules", () => {
  for (const c of ORDINARY_ALLOWED) {
    test(c.name, () => {
      const d = run(c);
      expect({ behavior: d.behavior, reason: d.reason }).toMatchObject({ behavior: "allow" });
    });
  }
});
