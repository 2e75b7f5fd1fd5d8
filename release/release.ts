/**
 * `bun run release [--base-url URL] [--from DIR] [--out DIR] [--fast]`: the files of a release.
 *
 * Every binary of `bun run build --all` (or the `yoke-<target>` binaries already in `--from DIR`) is packed as
 * `yoke-<target>.tar.gz`, named by target alone so a
 * `latest` URL always names the same files, (the binary as `yoke` or `yoke.exe`, with the README), `SHA256SUMS` lists
 * them in `sha256sum -c` form, and `install.sh` is copied with the release's base URL written in, so the script a
 * user pipes from that URL downloads from the same place. Output: dist/release (or --out).
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import pkg from "../package.json" with { type: "json" };

const root = resolve(import.meta.dir, "..");
const argv = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = argv.indexOf(`--${name}`);
  if (i < 0) return undefined;
  const v = argv[i + 1];
  if (!v || v.startsWith("--")) fail(`--${name} needs a value`);
  return v;
};
function fail(msg: string): never {
  process.stderr.write(`release: ${msg}\n`);
  process.exit(1);
}
// --fast: gzip -1, for tests that pack the real binary (the default level takes seconds per 100 MiB).
const fast = argv.includes("--fast");
for (let i = 0; i < argv.length; i++) {
  const a = argv[i]!;
  if (a === "--fast") continue;
  if (!["--base-url", "--from", "--out"].includes(a)) fail(`unknown argument ${a} (use --base-url URL, --from DIR, --out DIR, --fast)`);
  i++;
}

const version = pkg.version;
const out = resolve(opt("out") ?? join(root, "dist", "release"));
const baseUrl = opt("base-url") ?? process.env.YOKE_RELEASE_BASE_URL ?? `https://github.com/yoke-agent/yoke/releases/download/v${version}`;
let binDir = opt("from") ? resolve(opt("from")!) : undefined;

if (!binDir) {
  binDir = join(out, ".bin");
  rmSync(binDir, { recursive: true, force: true });
  const build = Bun.spawnSync([process.execPath, join(root, "build.ts"), "--all"], {
    cwd: root,
    env: { ...process.env, YOKE_BUILD_OUT: binDir },
    stdout: "inherit",
    stderr: "inherit",
  });
  if (build.exitCode !== 0) fail("bun run build --all failed (see above); nothing was packed");
}
if (!existsSync(binDir)) fail(`--from: no such folder: ${binDir}`);

const binaries = readdirSync(binDir)
  .map((f) => /^yoke-(.+?)(\.exe)?$/.exec(f))
  .filter((m): m is RegExpExecArray => m !== null);
if (binaries.length === 0) fail(`no yoke-<target> binaries in ${binDir}`);

mkdirSync(out, { recursive: true });
for (const f of readdirSync(out)) if (f.startsWith("yoke-") && f.endsWith(".tar.gz")) rmSync(join(out, f));
const sums: string[] = [];
for (const [file, target, exe] of binaries) {
  const stage = mkdtempSync(join(tmpdir(), "yoke-release-"));
  try {
    const name = `yoke${exe ?? ""}`;
    copyFileSync(join(binDir, file!), join(stage, name));
    copyFileSync(join(root, "README.md"), join(stage, "README.md"));
    const archive = `yoke-${target}.tar.gz`;
    // Fixed owner and mode, so an archive's bytes depend on its contents only.
    const tar = Bun.spawnSync(["tar", ...(fast ? ["--use-compress-program=gzip -1", "-cf"] : ["-czf"]), join(out, archive), "--owner=0", "--group=0", "--numeric-owner", "--mode=u+rwX,go+rX,go-w", "-C", stage, name, "README.md"], { stderr: "pipe" });
    if (tar.exitCode !== 0) fail(`tar failed for ${archive}: ${tar.stderr.toString().trim()}`);
    sums.push(`${new Bun.CryptoHasher("sha256").update(readFileSync(join(out, archive))).digest("hex")}  ${archive}`);
    console.log(`packed ${archive}`);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}
writeFileSync(join(out, "VERSION"), `${version}\n`);
writeFileSync(join(out, "SHA256SUMS"), `${sums.sort((a, b) => a.slice(66).localeCompare(b.slice(66))).join("\n")}\n`);
const install = readFileSync(join(import.meta.dir, "install.sh"), "utf8").replace(/^YOKE_RELEASE_URL_DEFAULT=.*$/m, `YOKE_RELEASE_URL_DEFAULT='${baseUrl.replace(/'/g, "")}'`);
writeFileSync(join(out, "install.sh"), install, { mode: 0o755 });
if (!opt("from")) rmSync(binDir, { recursive: true, force: true });
console.log(`release ${version}: ${binaries.length} archives, SHA256SUMS and install.sh in ${out} (base URL ${baseUrl})`);
