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
 * when the package is first needed. Bytecode is ~4× a module's minified source, so only code a start runs earns it;
 * these run in none of the measured starts (`--version`, a headless turn, Write → Bash → Read). When the package loads:
 * - `import`: when the module that imports it loads. The Bash parser is required only for a command that is not plain
 *   words, the HTML converter imported only by WebFetch, the terminal UI only interactive, the sandbox only when enabled.
 * - `validator`: the MCP SDK's default output-schema validator (ajv and its formats), which every Client made at its
 *   construction: made on the first validation of a tool's structured output instead (a schema ajv cannot compile fails
 *   that tool's call, not the server's tool listing).
 * Measured on Bun 1.4.5, linux-x64 (issue 21, binary ≤ 110 MiB): see the README's start-up section.
 */
export type PlainPackage = {
  /** The package (or package subpath) bundled, and the specifier the bundle's code imports it by. */
  name: string;
  load: "import" | "validator";
  /** Only this importer's import of `specifier` is replaced (default: every import of `name`). */
  specifier?: string;
  importer?: RegExp;
};
export const PLAIN_PACKAGES: PlainPackage[] = [
  { name: "mvdan-sh", load: "import" },
  { name: "node-html-markdown", load: "import" },
  { name: "@mariozechner/pi-tui", load: "import" },
  { name: "@anthropic-ai/sandbox-runtime", load: "import" },
  {
    name: "@modelcontextprotocol/sdk/validation/ajv",
    load: "validator",
    specifier: "../validation/ajv-provider.js",
    importer: /@modelcontextprotocol[\\/]sdk[\\/]dist[\\/]esm[\\/]client[\\/]index\.js$/,
  },
];

export type PlainBundle = PlainPackage & { file: string; names: string[] };

/** Bundles each plain package (minified CommonJS for Bun, zstd-compressed) into `outdir`, with its export names. */
export async function bundlePlainPackages(root: string, outdir: string): Promise<PlainBundle[]> {
  const out: PlainBundle[] = [];
  for (const p of PLAIN_PACKAGES) {
    const r = await Bun.build({ entrypoints: [Bun.resolveSync(p.name, root)], outdir, naming: `${out.length}.[ext]`, target: "bun", format: "cjs", minify: true });
    if (!r.success) throw new Error(`plain package ${p.name}: ${r.logs.map(String).join("\n")}`);
    const js = r.outputs[0]!.path;
    const file = `${js}.zst`;
    await Bun.write(file, Bun.zstdCompressSync(await Bun.file(js).bytes(), { level: 19 }));
    // The names it exports, from loading it here: the stand-in must offer each one the bundle's code may import.
    const names = Object.keys(await import(p.name)).filter((n) => n !== "default" && n !== "__esModule");
    out.push({ ...p, file, names });
  }
  return out;
}

/** The stand-in module's source: `load()` decompresses and evaluates the bundle once (Bun's CommonJS output is one function expression). */
function standIn(b: PlainBundle): string {
  const head = [
    `import { readFileSync } from "node:fs";`,
    `import file from ${JSON.stringify(b.file)} with { type: "file" };`,
    `let real;`,
    // Synchronous: the Bash parser is require()d from a synchronous function.
    `function load() {`,
    `  if (real) return real;`,
    `  const source = new TextDecoder().decode(Bun.zstdDecompressSync(readFileSync(file)));`,
    `  const module = { exports: {} };`,
    `  (0, eval)(source + "\\n//# sourceURL=" + ${JSON.stringify(b.name)})(module.exports, import.meta.require, module, file, "/");`,
    `  return (real = module.exports);`,
    `}`,
  ];
  const exportAll = (value: (n: string) => string) => [
    ...b.names.map((n, i) => `const _${i} = ${value(n)};`),
    `export { ${b.names.map((n, i) => `_${i} as ${n}`).join(", ")} };`,
  ];
  if (b.load === "import") return [...head, `const ns = load();`, ...exportAll((n) => `ns[${JSON.stringify(n)}]`), `export default "default" in ns ? ns.default : ns;`].join("\n");
  return [
    ...head,
    `export class AjvJsonSchemaValidator {`,
    `  constructor(ajv) { this._ajv = ajv; }`,
    `  getValidator(schema) {`,
    `    let check;`,
    `    return (input) => (check ??= (this._real ??= new (load().AjvJsonSchemaValidator)(this._ajv)).getValidator(schema))(input);`,
    `  }`,
    `}`,
  ].join("\n");
}

/** Resolves each plain package, where the bundle's code imports it, to its stand-in. */
export function plainPackages(bundles: PlainBundle[]): Bun.BunPlugin {
  const esc = (n: string) => n.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  return {
    name: "yoke-plain-packages",
    setup(build) {
      build.onResolve({ filter: new RegExp(`^(${bundles.map((b) => esc(b.specifier ?? b.name)).join("|")})$`) }, (a) => {
        const i = bundles.findIndex((b) => (b.specifier ?? b.name) === a.path && (!b.importer || b.importer.test(a.importer)));
        return i < 0 ? undefined : { path: String(i), namespace: "yoke-plain" };
      });
      build.onLoad({ filter: /.*/, namespace: "yoke-plain" }, (a) => ({ loader: "js", contents: standIn(bundles[Number(a.path)]!) }));
    },
  };
}
