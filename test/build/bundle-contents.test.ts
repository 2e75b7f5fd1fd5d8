// Issue 21 point 4 (binary ≤ 110 MiB, peak memory of a one-turn run ≤ 50 MiB): what the compiled binary carries. A source
// run loads every module a package imports; only the bundle shows what tree-shaking kept, so this bundles src/main.ts the
// way build.ts does (minus compile and bytecode, which do not change what is kept) and reads the metafile.
import { beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { repoRoot } from "../helpers/binary.ts";
import { tempDir } from "../helpers/tmp.ts";

let inputs: Map<string, number>;
beforeAll(async () => {
  const r = await Bun.build({
    entrypoints: [join(repoRoot(), "src/main.ts")],
    outdir: tempDir("yoke-bundle-"),
    target: "bun",
    format: "esm",
    minify: true,
    splitting: true,
    metafile: true,
    define: { YOKE_VERSION: '"0.0.0"' },
  });
  if (!r.success) throw new Error(r.logs.map(String).join("\n"));
  inputs = new Map();
  for (const out of Object.values(r.metafile!.outputs))
    for (const [path, v] of Object.entries(out.inputs)) inputs.set(path, (inputs.get(path) ?? 0) + v.bytesInOutput);
}, 120_000);

const kept = (re: RegExp) => [...inputs].filter(([p, bytes]) => re.test(p) && bytes > 0).map(([p]) => p);

describe("what the bundle keeps of @anthropic-ai/sdk", () => {
  test("the client, the Messages resource and streaming are in", () => {
    expect(kept(/@anthropic-ai\/sdk\/client\.mjs$/).length).toBe(1);
    expect(kept(/@anthropic-ai\/sdk\/resources\/messages\/messages\.mjs$/).length).toBe(1);
    expect(kept(/@anthropic-ai\/sdk\/core\/streaming\.mjs$/).length).toBe(1);
  });

  test("no resource yoke never calls: beta, files, skills, models, organization, user profiles, webhooks", () => {
    // Their modules' error classes stay (the client maps error codes to them); their resource code must not: the
    // whole package was 412 KiB of minified output when the client came from the package's default export, 116 KiB
    // with the base client and the Messages resource.
    expect(kept(/@anthropic-ai\/sdk\//).reduce((sum, p) => sum + inputs.get(p)!, 0)).toBeLessThan(160 * 1024);
    expect(kept(/node_modules\/(standardwebhooks|fast-sha256|@stablelib)\//)).toEqual([]);
  });
});
