/**
 * Issue 18: deploy/image/socat.sh, which builds the image's socat from Debian's pinned source, and assemble.sh's
 * third argument, which lays that build over the image's root. The build itself needs Debian's source (the network),
 * which tests never use: .ci/install-deps.sh builds it, and test/release/image-root.test.ts runs what it built. Here:
 * its bad inputs, each stopping it with the cause named, before anything is built; and a build in the cache is what
 * the image's root holds.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../helpers/binary.ts";
import { tempDir } from "../helpers/tmp.ts";
import { builtPrograms } from "../helpers/image-view.ts";

// Each test starts several bun or shell processes: seconds each on a loaded 2-core machine.
setDefaultTimeout(120_000);

const script = join(repoRoot(), "deploy/image/socat.sh");
const assemble = join(repoRoot(), "deploy/image/assemble.sh");
const run = (argv: string[], env: Record<string, string> = {}) => {
  const p = Bun.spawnSync(argv, { stdout: "pipe", stderr: "pipe", env: { ...process.env, ...env } });
  return { code: p.exitCode, stdout: p.stdout.toString(), stderr: p.stderr.toString() };
};
const version = /^version=(\S+)$/m.exec(readFileSync(script, "utf8"))![1]!;

describe("deploy/image/socat.sh", () => {
  test("no or unknown subcommand, or missing arguments: its usage, exit 1", () => {
    for (const args of [[], ["compile"], ["fetch"], ["build", "/tmp"]]) {
      const r = run([script, ...args]);
      expect({ args, code: r.code, stdout: r.stdout }).toEqual({ args, code: 1, stdout: "" });
      expect(r.stderr).toStartWith("socat.sh: usage: socat.sh ");
    }
  });

  test("build refuses a folder without the source, and a source whose bytes are not the pinned ones, before compiling", () => {
    const empty = tempDir("yoke-socat-src-");
    const out = tempDir("yoke-socat-out-");
    const a = run([script, "build", empty, out]);
    expect(a.code).toBe(1);
    expect(a.stderr).toContain(`no socat_${version}.dsc in ${empty} (socat.sh fetch ${empty})`);
    // The three files by name, other bytes; a SHA256SUMS beside them that agrees with them changes nothing.
    const upstream = version.replace(/-[^-]+$/, "");
    const files = [`socat_${upstream}.orig.tar.gz`, `socat_${version}.debian.tar.xz`, `socat_${version}.dsc`];
    const src = tempDir("yoke-socat-src-");
    for (const f of files) writeFileSync(join(src, f), `not ${f}\n`);
    const sums = run(["sha256sum", ...files.map((f) => join(src, f))]).stdout.replaceAll(`${src}/`, "");
    writeFileSync(join(src, "SHA256SUMS"), sums);
    const b = run([script, "build", src, out]);
    expect(b.code).toBe(1);
    expect(b.stderr).toContain(`the source of socat ${version} in ${src} does not match the SHA-256 sums pinned in deploy/image/socat.sh`);
    expect(existsSync(join(out, "usr/bin/socat"))).toBe(false);
  });

  test("cached names the build by this script and its pinned build tools, under YOKE_IMAGE_CACHE", () => {
    const a = run([script, "cached"], { YOKE_IMAGE_CACHE: "/x/cache" });
    expect(a.code).toBe(0);
    expect(a.stdout).toMatch(new RegExp(`^/x/cache/socat-${version.replace(/[.+]/g, "\\$&")}-[0-9a-f]{16}\\n$`));
    expect(run([script, "build-packages"]).stdout).toMatch(/^gcc=\S+\n(.+\n)*dpkg-dev=\S+\n$/);
    // The build the image tests use is the cached one.
    expect(builtPrograms()).toBe(run([script, "cached"]).stdout.trim());
  });
});

describe("deploy/image/assemble.sh's third argument", () => {
  test("a BUILT that is not a folder stops it naming the argument; a folder's files are laid over the root", () => {
    const dest = join(tempDir("yoke-assemble-"), "root");
    const bad = run([assemble, "/", dest, "/nonexistent/built"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("assemble.sh: BUILT '/nonexistent/built' is not a folder");
    const built = tempDir("yoke-assemble-built-");
    mkdirSync(join(built, "usr/bin"), { recursive: true });
    writeFileSync(join(built, "usr/bin/socat"), "#!/bin/sh\necho stand-in\n", { mode: 0o755 });
    const ok = run([assemble, "/", dest, built]);
    expect(ok.stderr).toBe("");
    expect(ok.code).toBe(0);
    expect(readFileSync(join(dest, "usr/bin/socat"), "utf8")).toBe("#!/bin/sh\necho stand-in\n");
  });
});
