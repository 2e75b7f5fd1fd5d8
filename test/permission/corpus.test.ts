import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { LoadedSettings } from "../../src/config/load.ts";
import { createPermissionEvaluator } from "../../src/permission/index.ts";
import type { PermissionMode } from "../../src/permission/types.ts";
import { BYPASS_ATTEMPTS, type CorpusCase, ORDINARY_ALLOWED, PROJECT_FILES, PROJECT_LINKS } from "../fixtures/permission-corpus.ts";

const root = realpathSync(mkdtempSync(join(tmpdir(), "yoke-perm-corpus-")));
const home = join(root, "home");
const cwd = join(root, "proj");
mkdirSync(home, { recursive: true });
for (const [f, c] of Object.entries(PROJECT_FILES)) {
  mkdirSync(dirname(join(cwd, f)), { recursive: true });
  writeFileSync(join(cwd, f), c);
}
for (const [l, t] of Object.entries(PROJECT_LINKS)) symlinkSync(t, join(cwd, l));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const subst = (v: unknown): unknown =>
  typeof v === "string" ? v.replaceAll("${CWD}", cwd) : v;

function run(c: CorpusCase) {
  const settings: LoadedSettings = {
    merged: { permissions: c.rules },
    sources: [{ level: "project", path: join(cwd, ".claude", "settings.json"), ruleRoot: cwd, settings: { permissions: c.rules } }],
  };
  const ev = createPermissionEvaluator({ settings, cwd, mode: c.mode as PermissionMode | undefined, env: { HOME: home, PATH: "/usr/bin" } });
  const input = Object.fromEntries(Object.entries(c.input).map(([k, v]) => [k, subst(v)]));
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
