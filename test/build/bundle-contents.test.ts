// Issue 21 point 4 (binary ≤ 110 MiB, peak memory of a one-turn run ≤ 50 MiB): what the compiled binary carries. A source
// run loads every module a package imports; only the bundle shows what tree-shaking kept, so this bundles src/main.ts the
// way build.ts does (minus compile and bytecode, which do not change what is kept) and reads the metafile.
import { beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../helpers/binary.ts";
import { tempDir } from "../helpers/tmp.ts";
import { bundlePlainPackages, mcpDefaultValidatorStub, PLAIN_PACKAGES, plainPackages, seccompForArch } from "../../build-plugins.ts";

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
    plugins: [mcpDefaultValidatorStub()],
  });
  if (!r.success) throw new Error(r.logs.map(String).join("\n"));
  inputs = new Map();
  for (const out of Object.values(r.metafile!.outputs))
    for (const [path, v] of Object.entries(out.inputs)) inputs.set(path, (inputs.get(path) ?? 0) + v.bytesInOutput);
}, 120_000);

const kept = (re: RegExp) => [...inputs].filter(([p, bytes]) => re.test(p) && bytes > 0).map(([p]) => p);

describe("the Messages API call is read by @anthropic-ai/sdk's streaming and error modules, without its client (messages-client.ts)", () => {
  test("the SDK's core/streaming and core/error are in the binary; its client, resources and what they import are not", () => {
    // Its client and Messages resource were ~116 KiB of minified output, loaded on every run's way to the first request,
    // and cost a one-turn run ~1 MiB of peak RSS and ~20 ms of CPU (issue 21; the README's start-up section).
    const sdk = kept(/node_modules\/@anthropic-ai\/sdk\//).map((p) => p.replace(/^.*node_modules\/@anthropic-ai\/sdk\//, ""));
    expect(sdk).toContain("core/streaming.mjs");
    expect(sdk).toContain("core/error.mjs");
    expect(sdk.filter((p) => !/^(core\/(streaming|error)|internal\/)/.test(p))).toEqual([]);
    expect(kept(/node_modules\/(@opentelemetry|standardwebhooks|fast-sha256|@stablelib)\//)).toEqual([]);
  });
});

describe("the MCP client's JSON Schema validator (ajv) loads on first use, not with the client (build-plugins.ts)", () => {
  test("the Client's eager import of the SDK's ajv validator is a stub; yoke's lazy validator reaches the package's own by require", () => {
    const eager = [...inputs].find(([p]) => /@modelcontextprotocol\/sdk\/dist\/esm\/validation\/ajv-provider\.js$/.test(p));
    expect(eager?.[1] ?? 0).toBeLessThan(300);
    expect(kept(/@modelcontextprotocol\/sdk\/dist\/cjs\/validation\/ajv-provider\.js$/).length).toBe(1);
    expect(kept(/src\/mcp\/schema-validator\.ts$/).length).toBe(1);
  });
});

describe("the sandbox's seccomp helper: each Linux binary carries its own CPU's only (build-plugins.ts)", () => {
  /** Which CPUs' helpers a bundle of src/sandbox/helpers.ts for `target` embeds (an ELF's e_machine: 0x3e x64, 0xb7 arm64). */
  const embeddedHelpers = async (target: string) => {
    const outdir = tempDir("yoke-seccomp-");
    const r = await Bun.build({ entrypoints: [join(repoRoot(), "src/sandbox/helpers.ts")], outdir, target: "bun", plugins: [seccompForArch(target)] });
    if (!r.success) throw new Error(r.logs.map(String).join("\n"));
    const found = { x64: false, arm64: false };
    for (const f of readdirSync(outdir).filter((n) => n.startsWith("apply-seccomp"))) {
      const raw = readFileSync(join(outdir, f));
      if (raw.length === 0) continue;
      // Carried zstd-compressed (src/sandbox/helpers.ts decompresses it when it writes it out): never a bare ELF.
      expect([...raw.subarray(0, 4)]).toEqual([0x28, 0xb5, 0x2f, 0xfd]);
      const b = Bun.zstdDecompressSync(raw);
      if (b[18] === 0x3e) found.x64 = true;
      else if (b[18] === 0xb7) found.arm64 = true;
    }
    return found;
  };

  test.each([
    ["linux-x64", true, false],
    ["bun-linux-x64-musl", true, false],
    ["bun-linux-x64-baseline", true, false],
    ["bun-linux-arm64", false, true],
    ["bun-linux-arm64-musl", false, true],
    ["bun-darwin-arm64", false, false],
    ["bun-windows-x64", false, false],
  ])("%s: x64 helper %p, arm64 helper %p", async (target, x64, arm64) => {
    expect(await embeddedHelpers(target)).toEqual({ x64, arm64 });
  });
});

describe("plain packages (build-plugins.ts): in the binary as compressed source, outside the bytecoded bundle", () => {
  test("none of their code is in the bundle; each is a zstd file the stand-in names, with every export of the package", async () => {
    const dir = tempDir("yoke-plain-");
    const plain = await bundlePlainPackages(repoRoot(), dir);
    expect(plain.map((p) => p.name)).toEqual(PLAIN_PACKAGES);
    const r = await Bun.build({
      entrypoints: [join(repoRoot(), "src/main.ts")],
      outdir: tempDir("yoke-bundle-plain-"),
      target: "bun",
      format: "esm",
      minify: true,
      splitting: true,
      metafile: true,
      plugins: [mcpDefaultValidatorStub(), plainPackages(plain)],
      define: { YOKE_VERSION: '"0.0.0"' },
    });
    if (!r.success) throw new Error(r.logs.map(String).join("\n"));
    const paths = Object.values(r.metafile!.outputs).flatMap((o) => Object.keys(o.inputs));
    // Their own code and what only they use (node-forge is the sandbox's, he the converter's).
    const theirs = /node_modules\/(mvdan-sh|node-html-markdown|node-html-parser|he|@anthropic-ai\/sandbox-runtime\/dist|node-forge|ajv|ajv-formats|fast-uri|yaml|citty|eventsource|eventsource-parser)\//;
    expect(paths.filter((p) => theirs.test(p))).toEqual([]);
    // The MCP client itself stays (only its validator, loaded on first use by src/mcp/schema-validator.ts, is plain).
    expect(paths.some((p) => /@modelcontextprotocol\/sdk\/dist\/esm\/client\/index\.js$/.test(p))).toBe(true);
    for (const b of plain) {
      const js = new TextDecoder().decode(Bun.zstdDecompressSync(readFileSync(b.file)));
      expect(js.startsWith("// @bun @bun-cjs\n(function(exports, require, module, __filename, __dirname) {")).toBe(true);
      expect(b.names.length).toBeGreaterThan(0);
    }
  }, 120_000);
});
