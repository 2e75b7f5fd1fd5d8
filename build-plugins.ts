/** Bundler plugins of build.ts (apart so test/build/ can run them on a small entry). */

/**
 * sandbox-runtime's seccomp helper is a native Linux executable per CPU (src/sandbox/helpers.ts embeds both): a Linux
 * binary carries only its own CPU's, others none (an empty file in its place, never selected there); 0.6–0.7 MiB less
 * per binary. The one it carries is zstd-compressed (760 → 300 KB; helpers.ts decompresses it when it writes it out).
 * `target`: a compile target (bun-linux-arm64-musl) or the host as `${process.platform}-${process.arch}`.
 */
export function seccompForArch(target: string): Bun.BunPlugin {
  const arch = /(?:^|-)linux-(x64|arm64)\b/.exec(target)?.[1] ?? "";
  const others = ["x64", "arm64"].filter((a) => a !== arch).join("|");
  return {
    name: "yoke-seccomp-for-arch",
    setup(build) {
      const filter = new RegExp(`sandbox-runtime[\\\\/]vendor[\\\\/]seccomp[\\\\/](${others})[\\\\/]apply-seccomp$`);
      build.onLoad({ filter }, () => ({ contents: "", loader: "file" }));
      if (!arch) return;
      const own = new RegExp(`sandbox-runtime[\\\\/]vendor[\\\\/]seccomp[\\\\/]${arch}[\\\\/]apply-seccomp$`);
      build.onLoad({ filter: own }, async (a) => ({ contents: Bun.zstdCompressSync(await Bun.file(a.path).bytes(), { level: 19 }), loader: "file" }));
    },
  };
}

/**
 * Code the binary carries as compressed plain source, without bytecode: each package is bundled on its own
 * (bundlePlainPackages: CommonJS, zstd) and embedded as a file that a small stand-in module decompresses and evaluates
 * when the module that imports it loads. Bytecode is ~4× a module's minified source, so only code a start runs earns
 * it; these run in none of the measured starts (`--version`, a headless turn, Write → Bash → Read): the Bash parser is
 * required only for a command that is not plain words, the HTML converter imported only by WebFetch, the sandbox only
 * when enabled, the MCP SDK's ajv validator (ajv, its formats, fast-uri) only when a server lists a tool with an output
 * schema (src/mcp/schema-validator.ts), the YAML library only for a frontmatter block that is not flat `key: value`
 * lines (src/util/frontmatter.ts), citty only for a subcommand (`yoke mcp list` …), the EventSource client and parser
 * only for a remote (SSE or streamable HTTP) MCP server. test/build/plain-off-start.test.ts runs the bench's scenarios in its configured
 * project and fails if any of them loads one. Measured on Bun 1.4.5, linux-x64 (issue 21, binary ≤ 110 MiB): see the
 * README's start-up section. The terminal UI (pi-tui, 0.3 MiB of bytecode) keeps its bytecode: from plain source the
 * interactive screen drew its prompt ~10–35 ms later (bench/tui.ts).
 */
export const PLAIN_PACKAGES = [
  "mvdan-sh",
  "node-html-markdown",
  "@anthropic-ai/sandbox-runtime",
  "@modelcontextprotocol/sdk/validation/ajv",
  "yaml",
  "citty",
  "eventsource",
  "eventsource-parser/stream",
];

export type PlainBundle = { name: string; file: string; names: string[] };

/** Bundles each plain package (minified CommonJS for Bun, zstd-compressed) into `outdir`, with its export names. */
export async function bundlePlainPackages(root: string, outdir: string): Promise<PlainBundle[]> {
  const out: PlainBundle[] = [];
  for (const name of PLAIN_PACKAGES) {
    const r = await Bun.build({ entrypoints: [Bun.resolveSync(name, root)], outdir, naming: `${out.length}.[ext]`, target: "bun", format: "cjs", minify: true });
    if (!r.success) throw new Error(`plain package ${name}: ${r.logs.map(String).join("\n")}`);
    const js = r.outputs[0]!.path;
    const file = `${js}.zst`;
    await Bun.write(file, Bun.zstdCompressSync(await Bun.file(js).bytes(), { level: 19 }));
    // The names it exports, from loading it here: the stand-in must offer each one the bundle's code may import.
    const names = Object.keys(await import(name)).filter((n) => n !== "default" && n !== "__esModule");
    out.push({ name, file, names });
  }
  return out;
}

/** A plain package's YOKE_TIMING mark: `yoke:plain-<this>` (word characters and dashes, as bench/timing.ts reads marks). */
export const markName = (name: string): string => name.replace(/\W+/g, "-").replace(/^-+|-+$/g, "");

/** The stand-in module's source: `load()` decompresses and evaluates the bundle once (Bun's CommonJS output is one function expression). */
function standIn(b: PlainBundle): string {
  const head = [
    `import { readFileSync } from "node:fs";`,
    `import file from ${JSON.stringify(b.file)} with { type: "file" };`,
    `let real;`,
    // Synchronous: the Bash parser is require()d from a synchronous function.
    `function load() {`,
    `  if (real) return real;`,
    // YOKE_TIMING shows which plain packages a run evaluated (test/build/plain-off-start.test.ts: none in a measured start).
    `  performance.mark(${JSON.stringify(`yoke:plain-${markName(b.name)}`)});`,
    `  const source = new TextDecoder().decode(Bun.zstdDecompressSync(readFileSync(file)));`,
    `  const module = { exports: {} };`,
    `  (0, eval)(source + "\\n//# sourceURL=" + ${JSON.stringify(b.name)})(module.exports, import.meta.require, module, file, "/");`,
    `  return (real = module.exports);`,
    `}`,
  ];
  const ns = `const ns = load();`;
  const named = b.names.map((n, i) => `const _${i} = ns[${JSON.stringify(n)}];`);
  return [...head, ns, ...named, `export { ${b.names.map((n, i) => `_${i} as ${n}`).join(", ")} };`, `export default "default" in ns ? ns.default : ns;`].join("\n");
}

/** Resolves each plain package, where the bundle's code imports it, to its stand-in. */
export function plainPackages(bundles: PlainBundle[]): Bun.BunPlugin {
  const esc = (n: string) => n.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  return {
    name: "yoke-plain-packages",
    setup(build) {
      build.onResolve({ filter: new RegExp(`^(${bundles.map((b) => esc(b.name)).join("|")})$`) }, (a) => ({ path: String(bundles.findIndex((b) => b.name === a.path)), namespace: "yoke-plain" }));
      build.onLoad({ filter: /.*/, namespace: "yoke-plain" }, (a) => ({ loader: "js", contents: standIn(bundles[Number(a.path)]!) }));
    },
  };
}

/**
 * The MCP SDK's Client imports its default JSON Schema validator (ajv with every format) and makes one in its
 * constructor; yoke hands every Client its own (src/mcp/schema-validator.ts), which loads that same validator through
 * the package's `validation/ajv` export on first use. This plugin stubs the Client's eager import in the bundle, so ajv
 * is run only by a run whose servers declare output schemas. Configured one-turn run (bench/ab.ts, 9 A/B runs, Bun 1.4.5):
 * peak RSS 61.6 -> 61.1 MiB, CPU 322 -> 303 ms (issue 21). The stub throws if anything constructs it, never validating nothing.
 */
export function mcpDefaultValidatorStub(): Bun.BunPlugin {
  return {
    name: "yoke-mcp-default-validator-stub",
    setup(build) {
      build.onLoad({ filter: /@modelcontextprotocol[\\/]sdk[\\/]dist[\\/]esm[\\/]validation[\\/]ajv-provider\.js$/ }, () => ({
        contents: 'export class AjvJsonSchemaValidator { constructor() { throw new Error("yoke: an MCP Client was made without src/mcp/schema-validator.ts (build-plugins.ts)"); } }',
        loader: "js",
      }));
    },
  };
}
