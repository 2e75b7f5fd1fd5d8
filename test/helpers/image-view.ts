/**
 * The container image without an engine (issue 18.2): the Dockerfile's last stage read for its user, environment,
 * working folder and entrypoint, and a bubblewrap mount namespace whose root is the image's own filesystem
 * (deploy/image, assembled from this machine's Debian packages), read-only except a tmpfs /tmp and the volumes, as
 * that user, with a clear environment and the /etc/hosts an engine mounts. Shared by the contract tests and bench/fleet.ts.
 */
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot, yokeBin } from "./binary.ts";
import { tempDir } from "./tmp.ts";

export const dockerfile = readFileSync(join(repoRoot(), "Dockerfile"), "utf8");
/** Instructions of the last stage, continuation lines joined. */
export const runtimeStage = (() => {
  const joined = dockerfile.replace(/\\\n/g, " ").split("\n").filter((l) => l.trim() && !l.trim().startsWith("#"));
  const from = joined.map((l, i) => (/^FROM\s/i.test(l) ? i : -1)).filter((i) => i >= 0).at(-1)!;
  return joined.slice(from);
})();
export const instr = (name: string) => runtimeStage.filter((l) => l.toUpperCase().startsWith(`${name} `)).map((l) => l.slice(name.length).trim());
export const imageEnv: Record<string, string> = Object.fromEntries(instr("ENV").flatMap((l) => [...l.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1]!, m[2]!])));
export const [uid, gid] = instr("USER").at(-1)!.split(":").map(Number) as [number, number];
export const workdir = instr("WORKDIR").at(-1)!;
export const entrypoint: string[] = JSON.parse(instr("ENTRYPOINT").at(-1)!);
export const yokePath = entrypoint.at(-1)!;

export type Volumes = {
  home?: string;
  work: string;
  settingsFile?: string;
  /**
   * An engine that lets a container make namespaces (`--security-opt seccomp=unconfined --security-opt
   * systempaths=unconfined`): /proc is this machine's own, whole, so bubblewrap inside can mount its own, and the
   * container shares this machine's PID namespace (so tini is no PID 1: run the binary itself).
   */
  nestedNamespaces?: boolean;
  /** Another user than the image's (`docker run --user 12345`: a uid with no passwd entry). */
  user?: number;
  /** More volumes: this machine's folder, the path in the image, read-only or not (a Kubernetes volumeMount). */
  binds?: { from: string; to: string; readOnly?: boolean }[];
};

const imageDir = join(repoRoot(), "deploy", "image");
/** The Debian packages the image takes its files from (deploy/image/packages.txt, versions left out). */
export const imagePackages = readFileSync(join(imageDir, "packages.txt"), "utf8").split("\n").map((l) => l.trim()).filter((l) => l && !l.startsWith("#")).map((l) => l.split("=")[0]!);

/** Packages of packages.txt not installed on this machine (the image's root is assembled from its own /). */
export function missingPackages(): string[] {
  if (!Bun.which("dpkg-query")) return imagePackages;
  const p = Bun.spawnSync(["dpkg-query", "-W", "-f=${Package} ${db:Status-Status}\n", ...imagePackages], { stdout: "pipe", stderr: "pipe" });
  const installed = new Set(p.stdout.toString().split("\n").filter((l) => l.endsWith(" installed")).map((l) => l.split(" ")[0]));
  return imagePackages.filter((x) => !installed.has(x));
}

/**
 * The programs the Dockerfile builds from source (socat without OpenSSL and TCP wrappers), as deploy/image/socat.sh
 * builds them into its cache: the image's bytes. Building needs the network (Debian's source), which tests never use:
 * .ci/install-deps.sh runs `socat.sh ensure`.
 */
export function builtPrograms(): string {
  const p = Bun.spawnSync([join(imageDir, "socat.sh"), "cached"], { stdout: "pipe", stderr: "pipe" });
  const dir = p.stdout.toString().trim();
  if (p.exitCode !== 0 || !existsSync(join(dir, "usr/bin/socat"))) throw new Error(`the image's socat is built from Debian's source by deploy/image/socat.sh, and it is not built here (${dir || p.stderr.toString().trim()}): run deploy/image/socat.sh ensure (.ci/install-deps.sh does)`);
  return dir;
}

let assembled: string | undefined;
/**
 * The image's root filesystem, as the Dockerfile's last stage has it: deploy/image/assemble.sh run on this machine's
 * / (as the rootfs stage runs it on its Debian) with the socat built from source laid over it, the binary at the entrypoint's path, the fleet entrypoint, and the
 * mount points an engine makes (/dev, /proc, /run). Made once per process.
 */
export function imageRoot(): string {
  if (assembled) return assembled;
  const missing = missingPackages();
  if (missing.length) throw new Error(`the image's root is assembled from this machine's Debian packages; missing: ${missing.join(", ")} (apt-get install ${missing.join(" ")})`);
  const dir = join(tempDir("yoke-image-root-"), "root");
  const r = Bun.spawnSync([join(imageDir, "assemble.sh"), "/", dir, builtPrograms()], { stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`deploy/image/assemble.sh failed: ${r.stderr.toString().trim()}`);
  mkdirSync(join(dir, "usr/local/bin"), { recursive: true });
  copyFileSync(yokeBin(), join(dir, yokePath));
  copyFileSync(join(repoRoot(), "deploy/fleet/yoke-task.sh"), join(dir, "usr/local/bin/yoke-task"));
  chmodSync(join(dir, yokePath), 0o755);
  chmodSync(join(dir, "usr/local/bin/yoke-task"), 0o755);
  for (const d of ["dev", "proc", "run"]) mkdirSync(join(dir, d), { recursive: true });
  // Engines (Docker, containerd, Kubernetes' kubelet) mount a /etc/hosts of their own into every container.
  writeFileSync(join(dir, "etc/hosts"), "");
  return (assembled = dir);
}

let hosts: string | undefined;
/** The /etc/hosts an engine writes for a container (Docker's: localhost on both loopbacks). */
function engineHosts(): string {
  if (hosts) return hosts;
  const f = join(tempDir("yoke-image-hosts-"), "hosts");
  writeFileSync(f, "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n");
  return (hosts = f);
}

/**
 * Runs `argv` (by default the image's entrypoint with `args`) in the image: its own root read-only (nothing of this
 * machine's filesystem), tmpfs /tmp, the volumes writable, as the image's user, tini as PID 1, a clear environment.
 */
export async function runInImage(args: string[], env: Record<string, string>, v: Volumes, argv: string[] = [...entrypoint, ...args]) {
  const bw = ["bwrap", "--ro-bind", imageRoot(), "/", ...(v.nestedNamespaces ? ["--bind", "/proc", "/proc"] : ["--proc", "/proc"]), "--dev", "/dev", "--tmpfs", "/tmp", "--tmpfs", "/run", "--bind", v.work, workdir];
  bw.push("--ro-bind", engineHosts(), "/etc/hosts");
  if (v.home) bw.push("--bind", v.home, imageEnv.HOME!);
  if (v.settingsFile) bw.push("--ro-bind", v.settingsFile, "/run/config/settings.json");
  for (const b of v.binds ?? []) {
    mkdirSync(join(imageRoot(), b.to), { recursive: true }); // the mount point, as an engine makes it
    bw.push(b.readOnly ? "--ro-bind" : "--bind", b.from, b.to);
  }
  bw.push("--unshare-user", "--uid", String(v.user ?? uid), "--gid", String(v.user ?? gid), ...(v.nestedNamespaces ? [] : ["--unshare-pid", "--as-pid-1"]), "--die-with-parent", "--chdir", workdir, "--clearenv");
  for (const [k, val] of Object.entries(env)) bw.push("--setenv", k, val);
  const p = Bun.spawn([...bw, ...argv], { stdout: "pipe", stderr: "pipe", stdin: "ignore" });
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, stdout, stderr };
}
