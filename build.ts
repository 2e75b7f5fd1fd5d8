/**
 * `bun run build` compiles dist/yoke for this machine; `bun run build --all` cross-compiles every target.
 * Cross targets need no download from Bun's servers: each target's runtime comes from the `@oven/bun-<target>`
 * npm package (fetched with `npm pack` into a cache when not installed) and is handed to the compiler as its
 * executablePath. A target that cannot be had offline is skipped with one clear line.
 * `bun run build --target NAME` compiles that one target alone into dist/yoke-NAME (the image's builder uses it).
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { basename, join } from "node:path";
import pkg from "./package.json" with { type: "json" };
import { bundlePlainPackages, mcpDefaultValidatorStub, plainPackages, seccompForArch, type PlainBundle } from "./build-plugins.ts";
import { mcpLazySchemas } from "./build-mcp-schemas.ts";
import { shrinkBinary } from "./build-elf.ts";

const root = import.meta.dir;
// src/entry.ts answers `--version` with nothing else loaded and imports src/main.ts for everything else (issue 21).
const entry = join(root, "src/entry.ts");
const bunVersion = Bun.version;

type Target = { name: string; compile: Bun.Build.CompileTarget; npm: string; exe: string };
const TARGETS: Target[] = [
  { name: "linux-x64", compile: "bun-linux-x64", npm: "@oven/bun-linux-x64", exe: "bun" },
  { name: "linux-x64-musl", compile: "bun-linux-x64-musl", npm: "@oven/bun-linux-x64-musl", exe: "bun" },
  { name: "linux-arm64", compile: "bun-linux-arm64", npm: "@oven/bun-linux-aarch64", exe: "bun" },
  { name: "darwin-arm64", compile: "bun-darwin-arm64", npm: "@oven/bun-darwin-aarch64", exe: "bun" },
  { name: "darwin-x64", compile: "bun-darwin-x64", npm: "@oven/bun-darwin-x64", exe: "bun" },
  { name: "windows-x64", compile: "bun-windows-x64", npm: "@oven/bun-windows-x64", exe: "bun.exe" },
  // For CPUs without AVX2 (before ~2013) and Alpine on ARM: users asked for them (user-demand #16).
  { name: "linux-x64-baseline", compile: "bun-linux-x64-baseline", npm: "@oven/bun-linux-x64-baseline", exe: "bun" },
  { name: "linux-x64-musl-baseline", compile: "bun-linux-x64-baseline-musl", npm: "@oven/bun-linux-x64-musl-baseline", exe: "bun" },
  { name: "linux-arm64-musl", compile: "bun-linux-arm64-musl", npm: "@oven/bun-linux-aarch64-musl", exe: "bun" },
  { name: "windows-x64-baseline", compile: "bun-windows-x64-baseline", npm: "@oven/bun-windows-x64-baseline", exe: "bun.exe" },
];

const hostName = `${process.platform}-${process.arch}`;

/**
 * The bytecode layout profiles (compile.bytecodeOrder): which functions a configured one-turn run used, then a
 * three-turn run (its Write and Bash tool turns), recorded by `bun run bench/bytecode-order.ts`. The binary keeps that
 * bytecode together at the front of its embedded code, the first file's first, so a run reads (and keeps resident)
 * fewer pages of it: one-turn peak RSS −3.4 MiB, measured with bench/ (issue 21); the three-turn profile −1.0 MiB of a
 * three-turn run's. A profile from an older build still applies to the functions that did not change; a missing file
 * means no profile.
 */
const bytecodeOrder = ["bytecode-order.txt", "bytecode-order-three-turns.txt"].map((f) => join(root, "release", f)).filter((f) => existsSync(f));

async function compileOne(outfile: string, plain: PlainBundle[], target?: Target, executablePath?: string): Promise<boolean> {
  const result = await Bun.build({
    entrypoints: [entry],
    // mcpDefaultValidatorStub: the MCP client's ajv loads on first use (build-plugins.ts says what it saves).
    // plainPackages: code no measured start runs travels as compressed source without bytecode (build-plugins.ts).
    // mcpLazySchemas: the MCP SDK's protocol schemas are made on first use (build-mcp-schemas.ts says what it saves).
    plugins: [seccompForArch(target ? target.compile : hostName), mcpDefaultValidatorStub(), plainPackages(plain), mcpLazySchemas()],
    minify: true,
    sourcemap: "none",
    // Bytecode compiled at build time and embedded (ESM bytecode needs compile): the binary skips
    // parsing its ~600 KB bundle at every start. Measured with `bun run bench` on Bun 1.4.5: medians of 9 runs,
    // one-turn `-p` 68 → 35 ms, three turns 78 → 40 ms, `--version` 33 → 12 ms; +3.7 MiB of binary.
    bytecode: true,
    format: "esm",
    // Chunks per dynamic import: a start loads (and reads the bytecode of) only the chunks its path imports, not
    // the whole program. Measured with bench/ on Bun 1.4.5 (issue 21): `--version` 42 → 20 ms of CPU; size unchanged.
    splitting: true,
    define: { YOKE_VERSION: JSON.stringify(pkg.version) },
    compile: {
      outfile,
      ...(target ? { target: target.compile } : {}),
      ...(executablePath ? { executablePath } : {}),
      // A user's bunfig.toml or .env must never change how the binary behaves.
      autoloadBunfig: false,
      autoloadDotenv: false,
      autoloadTsconfig: false,
      autoloadPackageJson: false,
      // JavaScriptCore's JIT held back at start (src/util/jit-policy.ts releases it after the first model answer, in the
      // interactive screen and in subcommands): a start runs thousands of functions a few times each, and compiling
      // them costs more than it saves. Measured with bench/ on Bun 1.4.5 (issue 21), one-turn run: peak RSS
      // 60.6 → 55.4 MiB, CPU 275 → 180 ms (medians of 7, A/B alternating, with the bytecode profile below).
      jitPolicy: 1000,
      ...(bytecodeOrder.length ? { bytecodeOrder } : {}),
    },
  });
  if (!result.success) {
    for (const log of result.logs) console.error(String(log));
    return false;
  }
  // Linux binaries: the runtime's .bss is not stored as zeros (build-elf.ts says why and how it is checked).
  if (target ? target.name.startsWith("linux-") : process.platform === "linux") console.log(`${basename(outfile)}: ${shrinkBinary(outfile)}`);
  return true;
}

/** The target's Bun runtime from node_modules, or from an `npm pack` of its package in a cache folder. */
async function runtimeFor(t: Target): Promise<string | null> {
  const local = join(root, "node_modules", t.npm, "bin", t.exe);
  if (existsSync(local)) return local;
  const cache = join(buildCache, `${t.name}-${bunVersion}`);
  const exe = join(cache, "package", "bin", t.exe);
  if (existsSync(exe)) return exe;
  if (!npm) return null;
  mkdirSync(cache, { recursive: true });
  const pack = Bun.spawnSync([npm, "pack", `${t.npm}@${bunVersion}`, "--silent", "--pack-destination", cache], { stderr: "pipe", stdout: "pipe" });
  if (pack.exitCode !== 0) {
    rmSync(cache, { recursive: true, force: true }); // no empty folders left behind
    return null;
  }
  const tgz = readdirSync(cache).find((f) => f.endsWith(".tgz"));
  if (!tgz) return null;
  const untar = Bun.spawnSync(["tar", "-xzf", join(cache, tgz), "-C", cache]);
  return untar.exitCode === 0 && existsSync(exe) ? exe : null;
}

/** Where fetched runtimes are kept: $YOKE_BUILD_CACHE, else $XDG_CACHE_HOME/yoke/build, else ~/.cache/yoke/build. */
const buildCache = process.env.YOKE_BUILD_CACHE || join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "yoke", "build");
const npm = Bun.which("npm");

const all = process.argv.includes("--all");
const targetFlag = process.argv.indexOf("--target");
const only = targetFlag >= 0 ? process.argv[targetFlag + 1] : undefined;
// YOKE_BUILD_OUT: another output folder (tests build there, never over the dist/yoke other tests run).
const dist = process.env.YOKE_BUILD_OUT || join(root, "dist");
mkdirSync(dist, { recursive: true });
const started = performance.now();
// The plain packages' bundles (build-plugins.ts), made once for every target: plain JavaScript is the same on each.
const plainDir = mkdtempSync(join(tmpdir(), "yoke-plain-"));
process.on("exit", () => rmSync(plainDir, { recursive: true, force: true }));
const plain = await bundlePlainPackages(root, plainDir);
const mb = (p: string) => (statSync(p).size / 1048576).toFixed(1);
if (targetFlag >= 0) {
  const t = TARGETS.find((x) => x.name === only);
  if (!t) {
    console.error(`build --target: unknown target ${only ?? "(none given)"}; one of ${TARGETS.map((x) => x.name).join(", ")}`);
    process.exit(1);
  }
  const runtime = t.name === hostName ? process.execPath : await runtimeFor(t);
  if (!runtime) {
    console.error(`build --target ${t.name}: its Bun runtime (${t.npm}@${bunVersion}) is not installed and could not be fetched${npm ? "" : " (no npm)"}`);
    process.exit(1);
  }
  const out = join(dist, `yoke-${t.name}${t.exe.endsWith(".exe") ? ".exe" : ""}`);
  if (!(await compileOne(out, plain, t, runtime))) process.exit(1);
  console.log(`built ${out} (${mb(out)} MiB) in ${Math.round(performance.now() - started)} ms`);
  process.exit(0);
}
if (!(await compileOne(join(dist, process.platform === "win32" ? "yoke.exe" : "yoke"), plain))) process.exit(1);
console.log(`built dist/yoke (${hostName}, ${mb(join(dist, "yoke"))} MiB) in ${Math.round(performance.now() - started)} ms`);

if (all) {
  let failed = 0;
  let built = 0;
  if (!npm) console.log("npm is not on PATH: targets whose Bun runtime is not in node_modules or the build cache cannot be fetched");
  for (const t of TARGETS) {
    const out = join(dist, `yoke-${t.name}${t.exe.endsWith(".exe") ? ".exe" : ""}`);
    // The host's own target needs no other runtime: the running Bun is it.
    const isHost = t.name === hostName;
    const runtime = isHost ? process.execPath : await runtimeFor(t);
    if (!runtime) {
      console.log(`skipped ${t.name}: its Bun runtime (${t.npm}@${bunVersion}) is not installed and could not be fetched${npm ? "" : " (no npm)"}`);
      continue;
    }
    if (await compileOne(out, plain, t, runtime)) {
      if (!isHost) built++;
      console.log(`built ${out} (${mb(out)} MiB)`);
    }
    else {
      failed++;
      console.log(`failed ${t.name}: see the errors above`);
    }
  }
  if (built === 0) {
    console.error(`build --all: no cross target could be built (their Bun runtimes are neither in node_modules nor in ${buildCache}${npm ? ", and npm could not fetch them" : ", and npm is not on PATH"})`);
    process.exit(1);
  }
  if (failed) process.exit(1);
}
