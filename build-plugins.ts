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
