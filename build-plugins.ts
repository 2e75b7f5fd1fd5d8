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
 * Packages the binary carries as compressed plain source, without bytecode: each is bundled on its own
 * (bundlePlainPackages, CommonJS, zstd) and embedded as a file that a small stand-in module decompresses and evaluates
 * the first time the package is used. Bytecode is ~3× a module's minified source, so only code a start runs earns it;
 * these run in none of the measured starts (`--version`, a headless turn, Write → Bash → Read): the Bash parser only for
 * a command that is not plain words, the HTML converter only in WebFetch, the terminal UI only interactive, the sandbox
 * only when enabled. Measured on Bun 1.4.5, linux-x64 (issue 21, binary ≤ 110 MiB): see the README's start-up section.
 */
export const PLAIN_PACKAGES = ["mvdan-sh", "node-html-markdown", "@mariozechner/pi-tui", "@anthropic-ai/sandbox-runtime"];

export type PlainBundle = { file: string; names: string[] };

/** Bundles each plain package (minified CommonJS for Bun, zstd-compressed) into `outdir`, with its export names. */
export async function bundlePlainPackages(root: string, outdir: string): Promise<Map<string, PlainBundle>> {
  const out = new Map<string, PlainBundle>();
  for (const pkg of PLAIN_PACKAGES) {
    const r = await Bun.build({ entrypoints: [Bun.resolveSync(pkg, root)], outdir, naming: `${out.size}.[ext]`, target: "bun", format: "cjs", minify: true });
    if (!r.success) throw new Error(`plain package ${pkg}: ${r.logs.map(String).join("\n")}`);
    const js = r.outputs[0]!.path;
    const file = `${js}.zst`;
    await Bun.write(file, Bun.zstdCompressSync(await Bun.file(js).bytes(), { level: 19 }));
    // The names it exports, from loading it here: the stand-in must offer each one the bundle's code may import.
    const names = Object.keys(await import(pkg)).filter((n) => n !== "default" && n !== "__esModule");
    out.set(pkg, { file, names });
  }
  return out;
}

/**
 * Resolves each plain package, imported by name from anywhere in the bundle, to its stand-in: the first import or
 * require() of it decompresses and evaluates its bundle (Bun's CommonJS output is one function expression).
 */
export function plainPackages(bundles: Map<string, PlainBundle>): Bun.BunPlugin {
  const names = [...bundles.keys()].map((n) => n.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&"));
  return {
    name: "yoke-plain-packages",
    setup(build) {
      build.onResolve({ filter: new RegExp(`^(${names.join("|")})$`) }, (a) => ({ path: a.path, namespace: "yoke-plain" }));
      build.onLoad({ filter: /.*/, namespace: "yoke-plain" }, (a) => {
        const b = bundles.get(a.path)!;
        return {
          loader: "js",
          contents: [
            `import { readFileSync } from "node:fs";`,
            `import file from ${JSON.stringify(b.file)} with { type: "file" };`,
            // Synchronous: the Bash parser is require()d from a synchronous function.
            `const source = new TextDecoder().decode(Bun.zstdDecompressSync(readFileSync(file)));`,
            `const module = { exports: {} };`,
            `(0, eval)(source + "\\n//# sourceURL=" + ${JSON.stringify(a.path)})(module.exports, import.meta.require, module, file, "/");`,
            `const ns = module.exports;`,
            `const { ${b.names.map((n, i) => `${JSON.stringify(n)}: _${i}`).join(", ")} } = ns;`,
            `export { ${b.names.map((n, i) => `_${i} as ${n}`).join(", ")} };`,
            `export default "default" in ns ? ns.default : ns;`,
          ].join("\n"),
        };
      });
    },
  };
}
