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

// Issue 16 review point 3: the model's own `glob` and `type` filters select files by name; they must never select a
// denied one. Two layers hold it: the exclusions handed to the engine (grepExcludes) and the name filter applied to
// what the engine returns (searchHides). Each layer is run alone here, so dropping or reordering either one fails.
describe("Grep with glob and type filters: denied names stay hidden by each layer alone", () => {
  const GLOBS = ["*.pem", "**/*", "secrets/**", "{secrets,src}/**", "sec/**", "*.txt", "**/deep-name*", "**/.env", ".env", "envlink", "p.txt", "!src/**"];
  const TYPES = ["txt", "ts", "md"];
  const layers = {
    "name filter only (searchHides)": () => makeCtx(root, { searchHides: (p) => ev.searchHides(p) }),
    "engine exclusions only (grepExcludes)": () => makeCtx(root, { searchExcludes: (d) => ev.grepExcludes(d) }),
  };
  for (const [layer, mk] of Object.entries(layers))
    for (const engine of ["builtin", "rg"] as const)
      test(`${layer}, ${engine} engine`, async () => {
        if (engine === "rg" && !Bun.which("rg")) return;
        const leaks: string[] = [];
        const inputs = [...GLOBS.map((glob) => ({ glob })), ...TYPES.map((type) => ({ type })), { glob: "*.txt", type: "txt" }];
        for (const extra of inputs)
          for (const output_mode of ["files_with_matches", "content", "count"] as const) {
            const out = String((await createGrepTool({ engine }).run({ pattern: "CANARY", output_mode, ...extra }, mk())).content);
            for (const line of out.split("\n")) if (LEAKS.test(line) || /CANARY-(env|key|deep|private)/.test(line)) leaks.push(`${JSON.stringify(extra)} ${output_mode}: ${line}`);
          }
        expect(leaks).toEqual([]);
        // The filters still find what is not denied.
        const ts = String((await createGrepTool({ engine }).run({ pattern: "CANARY", type: "ts" }, mk())).content);
        expect(ts).toContain("app.ts");
      });
  test("without either layer the same searches do show denied names (the test can fail)", async () => {
    const out = String((await createGrepTool({ engine: "builtin" }).run({ pattern: "CANARY", glob: "*.txt" }, makeCtx(root))).content);
    expect(out).toMatch(/deep-name/);
  });
});
