/**
 * sandbox-runtime's helper files (the seccomp loader, the JVM proxy agent) travel inside the compiled
 * binary as embedded files. The kernel can only exec a real file, so they are written once to a
 * content-addressed folder under yoke's config dir; in a source checkout the package's own copies are used.
 */
import { accessSync, chmodSync, constants, existsSync, mkdirSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import seccompArm64 from "@anthropic-ai/sandbox-runtime/vendor/seccomp/arm64/apply-seccomp" with { type: "file" };
import seccompX64 from "@anthropic-ai/sandbox-runtime/vendor/seccomp/x64/apply-seccomp" with { type: "file" };
import javaAgent from "@anthropic-ai/sandbox-runtime/vendor/java-proxy-agent/srt-proxy-agent.jar" with { type: "file" };

export type HelperPaths = { applySeccomp?: string; javaAgent?: string };

const embedded = (p: string) => p.startsWith("/$bunfs/") || p.startsWith("B:/~BUN/");

async function materialize(src: string, dir: string, name: string, mode: number): Promise<string> {
  if (!embedded(src)) return src;
  const raw = new Uint8Array(await Bun.file(src).arrayBuffer());
  // build-plugins.ts embeds the seccomp helper zstd-compressed (an ELF starts 7f 45 4c 46, a zstd frame 28 b5 2f fd).
  const bytes = raw[0] === 0x28 && raw[1] === 0xb5 && raw[2] === 0x2f && raw[3] === 0xfd ? Bun.zstdDecompressSync(raw) : raw;
  const folder = join(dir, Bun.hash(bytes).toString(16));
  const dst = join(folder, name);
  if (existsSync(dst)) return dst;
  mkdirSync(folder, { recursive: true });
  // Written under a temporary name and renamed, so a concurrent yoke never execs half a file.
  const tmp = `${dst}.${process.pid}.tmp`;
  writeFileSync(tmp, bytes);
  chmodSync(tmp, mode);
  renameSync(tmp, dst);
  return dst;
}

/** Real paths of the helpers for this machine's architecture. Throws when a helper cannot be written. */
export async function helperPaths(yokeDir: string): Promise<HelperPaths> {
  const dir = join(yokeDir, "sandbox");
  const seccomp = process.arch === "x64" ? seccompX64 : process.arch === "arm64" ? seccompArm64 : undefined;
  return {
    applySeccomp: seccomp ? await materialize(seccomp, dir, "apply-seccomp", 0o755) : undefined,
    javaAgent: await materialize(javaAgent, dir, "srt-proxy-agent.jar", 0o644),
  };
}

/**
 * Why helperPaths could not write the helpers under `yokeDir`, or undefined when it can (or need not: in a source
 * checkout they are the package's own files). The probe asks before the sandbox is called available, so a config
 * folder on a read-only filesystem turns the sandbox off with this reason rather than failing every command.
 */
export function helperFolderProblem(yokeDir: string): string | undefined {
  if (![seccompX64, seccompArm64, javaAgent].some(embedded)) return undefined;
  const want = join(yokeDir, "sandbox");
  let p = want;
  while (!existsSync(p) && dirname(p) !== p) p = dirname(p);
  try {
    if (!statSync(p).isDirectory()) return `the sandbox's helpers (its seccomp filter's loader) cannot be written to ${want}: ${p} is not a folder`;
    accessSync(p, constants.W_OK | constants.X_OK);
    return undefined;
  } catch {
    return `the sandbox's helpers (its seccomp filter's loader) cannot be written to ${want}: ${p} is not writable (set YOKE_CONFIG_DIR to a writable folder)`;
  }
}
