/**
 * The container image's size, measured without an engine (issue 18): `bun run bench/image.ts [--bin PATH] [--json]`.
 * Never a timed test: it only prints.
 *
 * It builds the image's layers the way the Dockerfile does, from the same lists: the pinned Debian packages of
 * deploy/image/packages.txt (`apt-get download`, cached in ~/.cache/yoke/image), unpacked with `dpkg-deb -x` into
 * a root whose /usr is merged as Debian 12 installs it, then deploy/image/assemble.sh copies the paths of
 * deploy/image/files.txt and lays over them the socat deploy/image/socat.sh builds from Debian's pinned source
 * (`socat.sh ensure`, cached), exactly as the Dockerfile's socat and rootfs stages do. Layers, in the Dockerfile's
 * order: that root (`COPY --from=rootfs`), the yoke binary, the fleet entrypoint. Each is a tar with fixed mtimes
 * and numeric owners, compressed as registries store layers: gzip at level 6 (Bun's zlib; BuildKit and Docker push
 * layers with Go's compress/gzip at its default level, within 0.3% of it here) and zstd -3 (`compression=zstd` of
 * BuildKit's image exporter, OCI media types; `--zstd-19` adds level 19, minutes of CPU). The assembled root is then
 * run once (bubblewrap, nothing of this machine's /): every program finds its libraries and answers --version.
 * `--buildkit` adds the sizes BuildKit would push (Go's gzip and klauspost's zstd, bench/buildkit-sizes.go; needs
 * Debian's golang-go and golang-github-klauspost-compress-dev): gzip and zstd at their default levels, and each
 * published tag's compression as release/image.ts gives it to `docker buildx` (`imageVariants`, the one place those
 * flags live; `--published-specs` prints them and exits, for test/release/image-publish.test.ts). `--layers DIR` keeps the layer tars there. `--musl` also measures the layer of dist/yoke-linux-x64-musl (built with `bun run build --target linux-x64-musl`).
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, copyFileSync, chmodSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot, yokeBin } from "../test/helpers/binary.ts";
import { compressorSpec, imageVariants } from "../release/image.ts";

const root = repoRoot();
const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
/** What --buildkit measures: the default levels, then each published tag's compression (release/image.ts). */
const published = imageVariants.map((v) => ({ suffix: v.suffix, spec: compressorSpec(v) }));
const specs = [...new Set(["gzip", "zstd", ...published.map((p) => p.spec)])];
if (process.argv.includes("--published-specs")) {
  console.log(JSON.stringify(published));
  process.exit(0);
}
const bin = arg("--bin") ?? yokeBin();
const json = process.argv.includes("--json");
const imageDir = join(root, "deploy", "image");
const cache = process.env.YOKE_IMAGE_CACHE || join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "yoke", "image");
const MiB = 1048576;
const mib = (n: number) => (n / MiB).toFixed(2);

function run(argv: string[], opts: { cwd?: string } = {}): string {
  const p = Bun.spawnSync(argv, { cwd: opts.cwd, stdout: "pipe", stderr: "pipe" });
  if (p.exitCode !== 0) throw new Error(`bench/image: ${argv.join(" ")} failed (exit ${p.exitCode}): ${p.stderr.toString().trim()}`);
  return p.stdout.toString();
}

/** packages.txt's pinned packages as .deb files, downloaded once per version. */
function debs(): string[] {
  const pins = readFileSync(join(imageDir, "packages.txt"), "utf8").split("\n").map((l) => l.trim()).filter((l) => l && !l.startsWith("#"));
  return pins.map((pin) => {
    const dir = join(cache, pin.replace(/[^\w.+~=-]/g, "_"));
    const have = existsSync(dir) ? readdirSync(dir).find((f) => f.endsWith(".deb")) : undefined;
    if (have) return join(dir, have);
    mkdirSync(dir, { recursive: true });
    const p = Bun.spawnSync(["apt-get", "download", pin], { cwd: dir, stdout: "pipe", stderr: "pipe" });
    const got = readdirSync(dir).find((f) => f.endsWith(".deb"));
    if (p.exitCode !== 0 || !got) {
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`bench/image: apt-get download ${pin} failed: ${p.stderr.toString().trim()}\n(a version Debian no longer carries: take the new one from \`apt-cache policy ${pin.split("=")[0]}\` into deploy/image/packages.txt)`);
    }
    return join(dir, got);
  });
}

/** Unpack the packages and merge /bin, /lib, /lib64, /sbin into /usr, as an installed Debian 12 has them. */
function unpack(files: string[], into: string) {
  for (const f of files) run(["dpkg-deb", "-x", f, into]);
  for (const d of ["bin", "lib", "lib64", "sbin"]) {
    const top = join(into, d);
    if (!existsSync(top)) continue;
    mkdirSync(join(into, "usr", d), { recursive: true });
    run(["cp", "-a", `${top}/.`, join(into, "usr", d)]);
    rmSync(top, { recursive: true, force: true });
  }
}

const TAR = ["tar", "--sort=name", "--format=posix", "--pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime", "--mtime=@0", "--numeric-owner"];

/** One layer: a tar of `names` under `dir`, owned by root, except `user` paths (owned by 10001, as assemble.sh sets them). */
function layer(dir: string, out: string, user: string[] = []) {
  const names = readdirSync(dir).sort();
  run([...TAR, "--owner=0", "--group=0", "--anchored", ...user.map((u) => `--exclude=${u}`), "-cf", out, "-C", dir, ...names]);
  if (user.length) run([...TAR, "--owner=10001", "--group=10001", "--no-recursion", "-rf", out, "-C", dir, ...user]);
}

const zstd19 = process.argv.includes("--zstd-19");
type Row = { layer: string; files: number; tar: number; gzip6: number; zstd3: number; zstd19?: number; buildkit?: Record<string, number> };
function measure(name: string, tarFile: string, files: number): Row {
  const data = readFileSync(tarFile);
  return {
    layer: name,
    files,
    tar: data.length,
    gzip6: Bun.gzipSync(data, { level: 6 }).length,
    zstd3: Bun.zstdCompressSync(data, { level: 3 }).length,
    ...(zstd19 ? { zstd19: Bun.zstdCompressSync(data, { level: 19 }).length } : {}),
  };
}
const count = (tarFile: string) => run(["tar", "-tf", tarFile]).split("\n").filter(Boolean).length;

const work = mkdtempSync(join(tmpdir(), "yoke-bench-image-"));
process.on("exit", () => rmSync(work, { recursive: true, force: true }));
const src = join(work, "debian");
const rootfs = join(work, "rootfs");
const pkgs = debs();
unpack(pkgs, src);
// The socat the Dockerfile builds from Debian's pinned source without OpenSSL (deploy/image/socat.sh: built once into
// its cache, with the pinned build tools, the same bytes as the image's).
const built = run([join(imageDir, "socat.sh"), "ensure"]).trim();
run([join(imageDir, "assemble.sh"), src, rootfs, built]);

// The root works on its own: each program finds every library it links, and answers.
const image = join(work, "image");
run(["cp", "-a", `${rootfs}/.`, image]);
mkdirSync(join(image, "usr/local/bin"), { recursive: true });
for (const d of ["dev", "proc"]) mkdirSync(join(image, d)); // the mount points an engine makes
copyFileSync(bin, join(image, "usr/local/bin/yoke"));
chmodSync(join(image, "usr/local/bin/yoke"), 0o755);
const inRoot = (cmd: string) => run(["bwrap", "--ro-bind", image, "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--unshare-all", "--clearenv", "--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin", "/bin/sh", "-c", cmd]);
const loader = readdirSync(join(image, "usr/lib64")).find((f) => f.startsWith("ld-linux"));
const elfs = ["usr/local/bin/yoke", "usr/lib/git-core/git", "usr/bin/rg", "usr/bin/bwrap", "usr/bin/socat", "usr/bin/bash", "usr/bin/busybox", "usr/bin/tini"];
const missing = inRoot(elfs.map((e) => `/usr/lib64/${loader} --list /${e} >/dev/null 2>&1 || /usr/lib64/${loader} --list /${e} 2>&1 | tail -1`).join("; "));
if (missing.trim()) throw new Error(`bench/image: the assembled root lacks libraries:\n${missing}`);
const versions = inRoot("yoke --version; git --version; rg --version | head -1; bwrap --version; socat -V | sed -n 2p; socat -V | grep -c '#define WITH_OPENSSL' | sed 's/^/socat with OpenSSL: /'; bash --version | head -1; tini --version; busybox | head -1").trim().split("\n");

const tars = join(work, "layers");
mkdirSync(tars);
layer(rootfs, join(tars, "1.tar"), ["home/yoke", "work"]);
const binDir = join(work, "bin-layer");
mkdirSync(join(binDir, "usr/local/bin"), { recursive: true });
copyFileSync(bin, join(binDir, "usr/local/bin/yoke"));
chmodSync(join(binDir, "usr/local/bin/yoke"), 0o755);
layer(binDir, join(tars, "2.tar"));
const taskDir = join(work, "task-layer");
mkdirSync(join(taskDir, "usr/local/bin"), { recursive: true });
copyFileSync(join(root, "deploy/fleet/yoke-task.sh"), join(taskDir, "usr/local/bin/yoke-task"));
chmodSync(join(taskDir, "usr/local/bin/yoke-task"), 0o755);
layer(taskDir, join(tars, "3.tar"));

const rows = [
  measure("rootfs (Debian files: glibc, git, ripgrep, bubblewrap, socat, bash, busybox, tini, CA bundle, passwd)", join(tars, "1.tar"), count(join(tars, "1.tar"))),
  measure(`yoke binary (${bin.endsWith("musl") ? "musl" : "glibc"}, ${mib(statSync(bin).size)} MiB)`, join(tars, "2.tar"), 1),
  measure("yoke-task (fleet entrypoint)", join(tars, "3.tar"), 1),
];
const total: Row = rows.reduce((a, r) => ({ ...a, files: a.files + r.files, tar: a.tar + r.tar, gzip6: a.gzip6 + r.gzip6, zstd3: a.zstd3 + r.zstd3, ...(zstd19 ? { zstd19: a.zstd19! + r.zstd19! } : {}) }), { layer: "image (sum of layers)", files: 0, tar: 0, gzip6: 0, zstd3: 0, ...(zstd19 ? { zstd19: 0 } : {}) });

let musl: Row | undefined;
const muslBin = join(root, "dist/yoke-linux-x64-musl");
if (process.argv.includes("--musl")) {
  if (!existsSync(muslBin)) throw new Error("bench/image: --musl needs dist/yoke-linux-x64-musl (bun run build --target linux-x64-musl)");
  const d = join(work, "musl-layer");
  mkdirSync(join(d, "usr/local/bin"), { recursive: true });
  copyFileSync(muslBin, join(d, "usr/local/bin/yoke"));
  layer(d, join(tars, "musl.tar"));
  musl = measure(`yoke binary, musl, for comparison (${mib(statSync(muslBin).size)} MiB; needs musl's libc, libstdc++ and libgcc, not in this root)`, join(tars, "musl.tar"), 1);
}

// The same tars through the compressors BuildKit pushes with (bench/buildkit-sizes.go).
const buildkit = process.argv.includes("--buildkit");
if (buildkit) {
  const go = Bun.which("go");
  if (!go) throw new Error("bench/image: --buildkit needs Go and klauspost/compress (apt-get install golang-go golang-github-klauspost-compress-dev)");
  const files = ["1.tar", "2.tar", "3.tar", ...(musl ? ["musl.tar"] : [])].map((f) => join(tars, f));
  const p = Bun.spawnSync([go, "run", join(root, "bench/buildkit-sizes.go"), specs.join(","), ...files], { cwd: work, env: { ...process.env, GO111MODULE: "off", GOPATH: process.env.GOPATH || "/usr/share/gocode" }, stdout: "pipe", stderr: "pipe" });
  if (p.exitCode !== 0) throw new Error(`bench/image: bench/buildkit-sizes.go failed: ${p.stderr.toString().trim()} (apt-get install golang-go golang-github-klauspost-compress-dev)`);
  const sizes = p.stdout.toString().trim().split("\n").map((l) => l.split(" ").map(Number));
  [...rows, ...(musl ? [musl] : [])].forEach((r, i) => (r.buildkit = Object.fromEntries(specs.map((s, j) => [s, sizes[i]![j]!]))));
  total.buildkit = Object.fromEntries(specs.map((s) => [s, rows.reduce((a, r) => a + r.buildkit![s]!, 0)]));
}

const pct = (n: number) => `${((n / (60 * MiB)) * 100).toFixed(1)}%`;
const line = (r: Row) =>
  `| ${r.layer} | ${r.files} | ${mib(r.tar)} | ${mib(r.gzip6)} | ${mib(r.zstd3)} |${zstd19 ? ` ${mib(r.zstd19!)} |` : ""}${r.buildkit ? specs.map((x) => ` ${mib(r.buildkit![x]!)} |`).join("") : ""}`;
const out = [
  `Image layers as the Dockerfile makes them (deploy/image: ${pkgs.length} pinned Debian 12 packages), MiB:`,
  "",
  `| layer | entries | tar | gzip -6 | zstd -3 |${zstd19 ? " zstd -19 |" : ""}${buildkit ? specs.map((x) => ` BuildKit ${x} |`).join("") : ""}`,
  `|---|---|---|---|---|${zstd19 ? "---|" : ""}${buildkit ? specs.map(() => "---|").join("") : ""}`,
  ...rows.map(line),
  line(total),
  ...(musl ? [line(musl)] : []),
  "",
  `Target (issue 18): under 60 MiB compressed. gzip -6: ${mib(total.gzip6)} MiB (${pct(total.gzip6)} of it, ${total.gzip6 < 60 * MiB ? "met" : "not met"}); zstd -3: ${mib(total.zstd3)} MiB (${total.zstd3 < 60 * MiB ? "met" : "not met"})${zstd19 ? `; zstd -19: ${mib(total.zstd19!)} MiB` : ""}.`,
  ...(total.buildkit ? [`As BuildKit pushes it: ${specs.map((x) => `${x} ${mib(total.buildkit![x]!)} MiB (${total.buildkit![x]! < 60 * MiB ? "met" : "not met"})`).join(", ")}.`, `The published tags (release/image.ts): ${published.map((p) => `:VERSION${p.suffix} (${p.spec}) ${mib(total.buildkit![p.spec]!)} MiB`).join(", ")}.`] : []),
  `The root runs on its own: ${versions.join(" · ")}`,
];
console.log(out.join("\n"));
const keep = arg("--layers");
if (keep) {
  // The layer tars themselves, for other compressors (BuildKit's are Go's compress/gzip and klauspost's zstd).
  mkdirSync(keep, { recursive: true });
  for (const f of readdirSync(tars)) copyFileSync(join(tars, f), join(keep, f));
  console.log(`layer tars in ${keep}`);
}
if (json) {
  const file = join(root, "bench", "results-image.json");
  writeFileSync(`${file}.part`, JSON.stringify({ date: new Date().toISOString(), bin, packages: pkgs.map((p) => p.split("/").at(-1)), layers: rows, total, musl, versions }, null, 2));
  renameSync(`${file}.part`, file);
  console.log(`wrote ${file}`);
}
