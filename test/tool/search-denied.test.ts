// Issue 16, red-team pass: Glob and Grep never show what lies under a Read-denied path, by content or by name.
// The evaluator decides what is hidden (searchHides / grepExcludes); the tools only filter (DESIGN rule 5).
// Files are not git-ignored here, so nothing but the rules keeps them out.
import { afterAll, describe, expect, test } from "bun:test";
import { symlinkSync } from "node:fs";
import path from "node:path";
import { createPermissionEvaluator } from "../../src/permission/index.ts";
import { createGlobTool } from "../../src/tool/builtin/glob.ts";
import { createGrepTool } from "../../src/tool/builtin/grep.ts";
import { settingsOf } from "../permission/settings-fixture.ts";
import { makeCtx, removeTempDirs, tempDir, writeTree } from "./search-ctx.ts";

const root = tempDir("yoke-search-denied-");
writeTree(root, {
  ".env": "TOKEN=CANARY-env\n",
  "secrets/key.pem": "CANARY-key\n",
  "secrets/inner/deep-name-CANARY.txt": "CANARY-deep\n",
  "private/p.txt": "CANARY-private\n",
  "src/app.ts": "export const app = 'CANARY-not-secret';\n",
  "README.md": "readme\n",
});
symlinkSync("secrets", path.join(root, "sec"));
symlinkSync(".env", path.join(root, "envlink"));
afterAll(removeTempDirs);

const ev = createPermissionEvaluator({
  settings: settingsOf({ ruleRoot: root, permissions: { deny: ["Read(./.env)", "Read(./secrets/**)", "Read(./private/)"] } }),
  cwd: root,
  env: { HOME: path.join(root, "home") },
});
const ctx = () => makeCtx(root, { searchHides: (p) => ev.searchHides(p), searchExcludes: (d) => ev.grepExcludes(d) });
const glob = async (input: { pattern: string; path?: string }) => String((await createGlobTool().run(input, ctx())).content);
const LEAKS = /secrets|key\.pem|deep-name|private|p\.txt|\.env\b|envlink/;

describe("Glob", () => {
  test("whole-tree patterns list no name under a denied path, nor a link to one", async () => {
    for (const pattern of ["**/*", "**", "*", ".*", "**/*.pem", "**/*CANARY*", "s*/**", "*/*", "{secrets,src}/**", "**/inner/*", "sec/*", "envlink"]) {
      const out = await glob({ pattern });
      expect({ pattern, out: out.split("\n").filter((l) => LEAKS.test(l)) }).toEqual({ pattern, out: [] });
    }
    expect(await glob({ pattern: "**/*" })).toContain(path.join(root, "src/app.ts"));
  });
  test("a Glob rooted in the denied folder is denied by the evaluator before it runs", () => {
    for (const input of [{ pattern: "secrets/*" }, { pattern: "*", path: "secrets" }, { pattern: "**/*", path: path.join(root, "private") }])
      expect(ev.decide({ toolName: "Glob", input, readOnly: true, cwd: root }).behavior).toBe("deny");
  });
});

describe("Grep", () => {
  for (const output_mode of ["files_with_matches", "content", "count"] as const)
    for (const engine of ["builtin", "rg"] as const)
      test(`${output_mode} (${engine}): no content and no file name from a denied path`, async () => {
        if (engine === "rg" && !Bun.which("rg")) return;
        const r = await createGrepTool({ engine }).run({ pattern: "CANARY", output_mode }, ctx());
        const out = String(r.content);
        expect(out).not.toMatch(/CANARY-(env|key|deep|private)/);
        expect(out.split("\n").filter((l) => LEAKS.test(l))).toEqual([]);
        expect(out).toContain("app.ts");
      });
});
