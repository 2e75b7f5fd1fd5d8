/**
 * The container image's view without an engine (issue 18.2): the Dockerfile's runtime stage read for its user,
 * environment, working folder and entrypoint, and a bubblewrap mount namespace that shows the filesystem read-only
 * except a tmpfs /tmp and the volumes, as that user, with a clear environment. Shared by the contract test and
 * bench/fleet.ts.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot, yokeBin } from "./binary.ts";

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

export type Volumes = { home?: string; work: string; settingsFile?: string };

/** The image's view: read-only root, tmpfs /tmp, the binary at the entrypoint's path, the volumes writable. */
export async function runInImage(args: string[], env: Record<string, string>, v: Volumes) {
  const bw = ["bwrap", "--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc"];
  for (const d of ["lib", "lib64", "bin", "sbin"]) if (existsSync(`/${d}`)) bw.push("--symlink", `usr/${d}`, `/${d}`);
  bw.push("--tmpfs", "/usr/local", "--ro-bind", yokeBin(), yokePath, "--remount-ro", "/usr/local");
  bw.push("--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--bind", v.work, workdir);
  if (v.home) bw.push("--bind", v.home, imageEnv.HOME!);
  if (v.settingsFile) bw.push("--ro-bind", v.settingsFile, "/run/config/settings.json");
  bw.push("--unshare-user", "--uid", String(uid), "--gid", String(gid), "--unshare-pid", "--die-with-parent", "--chdir", workdir, "--clearenv");
  for (const [k, val] of Object.entries(env)) bw.push("--setenv", k, val);
  const p = Bun.spawn([...bw, yokePath, ...args], { stdout: "pipe", stderr: "pipe", stdin: "ignore" });
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, stdout, stderr };
}

