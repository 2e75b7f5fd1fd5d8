/** Bundler plugins of build.ts (apart so test/build/ can run them on a small entry). */

/**
 * sandbox-runtime's seccomp helper is a native Linux executable per CPU (src/sandbox/helpers.ts embeds both): a Linux
 * binary carries only its own CPU's, others none (an empty file in its place, never selected there); 0.6–0.7 MiB less
 * per binary. `target`: a compile target (bun-linux-arm64-musl) or the host as `${process.platform}-${process.arch}`.
 */
export function seccompForArch(target: string): Bun.BunPlugin {
  const arch = /(?:^|-)linux-(x64|arm64)\b/.exec(target)?.[1] ?? "";
  const others = ["x64", "arm64"].filter((a) => a !== arch).join("|");
  return {
    name: "yoke-seccomp-for-arch",
    setup(build) {
      const filter = new RegExp(`sandbox-runtime[\\\\/]vendor[\\\\/]seccomp[\\\\/](${others})[\\\\/]apply-seccomp$`);
      build.onLoad({ filter }, () => ({ contents: "", loader: "file" }));
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
