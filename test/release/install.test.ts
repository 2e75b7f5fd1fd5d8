/**
 * Issue 18 point 1: `bun run release` packs archives named by target with SHA256SUMS and an install.sh
 * with the release URL written in; install.sh picks the build for the machine, checks it, installs it.
 * Tested against a local folder of artifacts standing in for the release URL (file:// and a plain folder),
 * with `uname`, `ldd` and the cpuinfo file faked on PATH so each machine kind is the script's real code path.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot, yokeBin } from "../helpers/binary.ts";
import { tempDir } from "../helpers/tmp.ts";

// Each test runs the compiled binary (and packs or installs it): seconds on a loaded machine.
setDefaultTimeout(60_000);

const root = repoRoot();
const TARGETS = ["linux-x64", "linux-x64-musl", "linux-x64-baseline", "linux-x64-musl-baseline", "linux-arm64", "linux-arm64-musl", "darwin-arm64"];

function run(cmd: string[], env: Record<string, string>, stdin?: string) {
  const p = Bun.spawnSync(cmd, { env, stdin: stdin === undefined ? "ignore" : new TextEncoder().encode(stdin), stdout: "pipe", stderr: "pipe" });
  return { code: p.exitCode, out: p.stdout.toString(), err: p.stderr.toString() };
}

/** A release of dummy binaries, each answering --version with its target name. */
function dummyRelease(extra: Record<string, string> = {}): string {
  const bins = tempDir("yoke-rel-bins-");
  for (const t of TARGETS) {
    const f = join(bins, `yoke-${t}`);
    writeFileSync(f, extra[t] ?? `#!/bin/sh\necho "yoke 0.0.0-dummy ${t}"\n`);
    chmodSync(f, 0o755);
  }
  const out = tempDir("yoke-rel-out-");
  const r = run([process.execPath, join(root, "release/release.ts"), "--from", bins, "--out", out, "--base-url", "file:///nowhere/v9"], { PATH: process.env.PATH!, HOME: tempDir("yoke-rel-home-") });
  expect(r.err).toBe("");
  expect(r.code).toBe(0);
  return out;
}

/** A machine: fake uname (kernel, cpu), fake ldd (glibc or musl), a cpuinfo with or without avx2. */
function machine(o: { s: string; m: string; musl?: boolean; avx2?: boolean }): { env: Record<string, string>; home: string } {
  const home = tempDir("yoke-inst-home-");
  const fake = tempDir("yoke-inst-path-");
  writeFileSync(join(fake, "uname"), `#!/bin/sh\ncase "$1" in -s) echo ${o.s};; -m) echo ${o.m};; *) echo ${o.s};; esac\n`);
  writeFileSync(join(fake, "ldd"), `#!/bin/sh\necho "${o.musl ? "musl libc (x86_64)" : "ldd (Debian GLIBC 2.36-9) 2.36"}"\n`);
  chmodSync(join(fake, "uname"), 0o755);
  chmodSync(join(fake, "ldd"), 0o755);
  const cpuinfo = join(fake, "cpuinfo");
  writeFileSync(cpuinfo, `processor\t: 0\nflags\t\t: fpu sse sse2 ${o.avx2 === false ? "" : "avx avx2 "}bmi1\n`);
  return { home, env: { PATH: `${fake}:/usr/bin:/bin`, HOME: home, YOKE_INSTALL_CPUINFO: cpuinfo } };
}

describe("bun run release", () => {
  test("archives named by target, SHA256SUMS that sha256sum -c accepts, install.sh with the release URL", () => {
    const out = dummyRelease();
    for (const t of TARGETS) expect(existsSync(join(out, `yoke-${t}.tar.gz`))).toBe(true);
    const check = Bun.spawnSync(["sha256sum", "-c", "SHA256SUMS"], { cwd: out, stdout: "pipe", stderr: "pipe" });
    expect(check.exitCode).toBe(0);
    expect(check.stdout.toString().trim().split("\n")).toHaveLength(TARGETS.length);
    expect(readFileSync(join(out, "install.sh"), "utf8")).toContain("YOKE_RELEASE_URL_DEFAULT='file:///nowhere/v9'");
    expect(readFileSync(join(out, "VERSION"), "utf8").trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  test("an unknown argument or a missing --from folder ends with a message naming it", () => {
    const a = run([process.execPath, join(root, "release/release.ts"), "--frm", "x"], { PATH: process.env.PATH! });
    expect(a.code).toBe(1);
    expect(a.err).toContain("unknown argument --frm");
    const b = run([process.execPath, join(root, "release/release.ts"), "--from", "/nonexistent-yoke-bins", "--out", tempDir("yoke-rel-o-")], { PATH: process.env.PATH! });
    expect(b.code).toBe(1);
    expect(b.err).toContain("/nonexistent-yoke-bins");
  });
});

describe("install.sh picks the machine's build", () => {
  const out = dummyRelease();
  const cases: Array<[string, Parameters<typeof machine>[0], string]> = [
    ["glibc x64 with AVX2", { s: "Linux", m: "x86_64" }, "linux-x64"],
    ["glibc x64 without AVX2", { s: "Linux", m: "x86_64", avx2: false }, "linux-x64-baseline"],
    ["musl x64 (Alpine)", { s: "Linux", m: "x86_64", musl: true }, "linux-x64-musl"],
    ["musl x64 without AVX2", { s: "Linux", m: "x86_64", musl: true, avx2: false }, "linux-x64-musl-baseline"],
    ["glibc arm64", { s: "Linux", m: "aarch64", avx2: false }, "linux-arm64"],
    ["musl arm64", { s: "Linux", m: "arm64", musl: true, avx2: false }, "linux-arm64-musl"],
    ["macOS on Apple silicon", { s: "Darwin", m: "arm64" }, "darwin-arm64"],
  ];
  for (const [name, m, want] of cases)
    test(`${name} → ${want}, checked and installed in ~/.local/bin`, () => {
      const { env, home } = machine(m);
      const r = run(["sh", join(out, "install.sh")], { ...env, YOKE_RELEASE_URL: `file://${out}` });
      expect(r.err).toContain(`installed yoke 0.0.0-dummy ${want} (${want})`);
      expect(r.code).toBe(0);
      const installed = run([join(home, ".local/bin/yoke"), "--version"], env);
      expect(installed.out.trim()).toBe(`yoke 0.0.0-dummy ${want}`);
      expect(r.err).toContain("is not on your PATH");
    });

  test("piped into sh with a prefix, from a plain folder", () => {
    const { env } = machine({ s: "Linux", m: "x86_64" });
    const prefix = tempDir("yoke-inst-prefix-");
    const r = run(["sh", "-s", "--", "--prefix", prefix, "--url", out], env, readFileSync(join(out, "install.sh"), "utf8"));
    expect(r.code).toBe(0);
    expect(run([join(prefix, "bin/yoke"), "--version"], env).out).toContain("linux-x64");
  });

  test("a machine this release has no build for, or an unknown kernel or CPU, says which and installs nothing", () => {
    for (const [m, msg] of [
      [{ s: "Darwin", m: "x86_64" }, "no build for darwin-x64-baseline"],
      [{ s: "FreeBSD", m: "amd64" }, "no build for FreeBSD"],
      [{ s: "Linux", m: "mips" }, "no build for the mips CPU"],
    ] as const) {
      const { env, home } = machine(m);
      const r = run(["sh", join(out, "install.sh"), "--url", out], env);
      expect(r.code).toBe(1);
      expect(r.err).toContain(msg);
      expect(existsSync(join(home, ".local/bin/yoke"))).toBe(false);
    }
  });

  test("a tampered archive fails the checksum and installs nothing", () => {
    const bad = tempDir("yoke-rel-bad-");
    for (const f of ["SHA256SUMS", "install.sh", ...TARGETS.map((t) => `yoke-${t}.tar.gz`)]) copyFileSync(join(out, f), join(bad, f));
    writeFileSync(join(bad, "yoke-linux-x64.tar.gz"), "not the archive that was signed");
    const { env, home } = machine({ s: "Linux", m: "x86_64" });
    const r = run(["sh", join(bad, "install.sh"), "--url", `file://${bad}`], env);
    expect(r.code).toBe(1);
    expect(r.err).toContain("checksum mismatch for yoke-linux-x64.tar.gz");
    expect(existsSync(join(home, ".local/bin"))).toBe(false);
  });

  test("a build that does not run here installs nothing and says so", () => {
    const broken = dummyRelease({ "linux-x64": "#!/bin/sh\necho 'Illegal instruction' >&2\nexit 132\n" });
    const { env, home } = machine({ s: "Linux", m: "x86_64" });
    const r = run(["sh", join(broken, "install.sh"), "--url", broken], env);
    expect(r.code).toBe(1);
    expect(r.err).toContain("does not run on this machine (Illegal instruction)");
    expect(existsSync(join(home, ".local/bin/yoke"))).toBe(false);
  });

  test("a bad option or a missing release names it", () => {
    const { env } = machine({ s: "Linux", m: "x86_64" });
    const a = run(["sh", join(out, "install.sh"), "--prefx", "/x"], env);
    expect(a.code).toBe(1);
    expect(a.err).toContain("unknown option --prefx");
    const b = run(["sh", join(out, "install.sh"), "--url", "/nonexistent-release"], env);
    expect(b.code).toBe(1);
    expect(b.err).toContain("could not download /nonexistent-release/SHA256SUMS");
  });
});

test("the real binary: packed, installed from the folder, and it runs", () => {
  const bins = tempDir("yoke-rel-real-");
  copyFileSync(yokeBin(), join(bins, "yoke-linux-x64"));
  const out = tempDir("yoke-rel-real-out-");
  const r = run([process.execPath, join(root, "release/release.ts"), "--from", bins, "--out", out, "--fast"], { PATH: process.env.PATH! });
  expect(r.code).toBe(0);
  const prefix = tempDir("yoke-rel-real-prefix-");
  mkdirSync(prefix, { recursive: true });
  const i = run(["sh", join(out, "install.sh"), "--url", out, "--target", "linux-x64", "--prefix", prefix], { PATH: "/usr/bin:/bin", HOME: prefix });
  expect(i.err).toContain("installed");
  expect(i.code).toBe(0);
  const v = run([join(prefix, "bin/yoke"), "--version"], { PATH: "/usr/bin:/bin", HOME: prefix });
  expect(v.code).toBe(0);
  expect(v.out).toMatch(/\d+\.\d+\.\d+/);
}, 60_000);
