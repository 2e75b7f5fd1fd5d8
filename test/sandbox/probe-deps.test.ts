// yoke's sandbox probe asks for exactly what the sandbox library checks before it starts (issue 18: the image lacked
// socat, which the library wants at every start while the probe asked for it only when a host was allowed). Each
// variant runs yoke's probe and the library's own check in one process with a PATH made for it, and the two must
// agree: available for both, or unavailable with every missing piece named.
import { describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers/tmp.ts";
import { wslVersion } from "../../src/sandbox/probe.ts";

const TOOLS = { bwrap: "bubblewrap (bwrap)", socat: "socat", rg: "ripgrep (rg)" } as const;
const have = Object.keys(TOOLS).every((t) => Bun.which(t));

/** A folder holding links to sh, bash and the `with` tools only, to be the whole PATH. */
function pathWith(withTools: string[]): string {
  const dir = join(tempDir("yoke-probe-path-"), "bin");
  mkdirSync(dir);
  for (const t of ["sh", "bash", ...withTools]) symlinkSync(Bun.which(t)!, join(dir, t));
  return dir;
}

async function both(PATH: string, settings: Record<string, string> = {}, prefix: string[] = []) {
  const p = Bun.spawn([...prefix, process.execPath, join(import.meta.dir, "../fixtures/sandbox/probe-vs-library.ts"), JSON.stringify(settings)], {
    env: { PATH, HOME: tempDir("yoke-probe-home-") },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  if (code !== 0) throw new Error(`probe-vs-library exited ${code}: ${err}`);
  return JSON.parse(out) as { yoke: { ok: boolean; reason?: string; socat?: string }; library: { errors: string[]; warnings: string[] } };
}

describe.skipIf(process.platform !== "linux" || !have)("the probe and the sandbox library agree on what is missing", () => {
  const variants: Array<[string, string[]]> = [
    ["everything there", ["bwrap", "socat", "rg"]],
    ["no socat (the image before issue 18's fix)", ["bwrap", "rg"]],
    ["no bubblewrap", ["socat", "rg"]],
    ["no ripgrep", ["bwrap", "socat"]],
    ["only bubblewrap", ["bwrap"]],
    ["none of them", []],
  ];
  for (const [name, tools] of variants)
    test(name, async () => {
      const r = await both(pathWith(tools));
      expect(r.yoke.ok).toBe(r.library.errors.length === 0);
      const missing = Object.keys(TOOLS).filter((t) => !tools.includes(t));
      expect(r.yoke.ok).toBe(missing.length === 0);
      for (const t of missing) {
        expect(r.library.errors.join("\n")).toContain(t === "rg" ? "ripgrep" : t);
        expect(r.yoke.reason).toContain(`${TOOLS[t as keyof typeof TOOLS]}`);
      }
      const pkg = (t: string) => (t === "bwrap" ? "bubblewrap" : t === "rg" ? "ripgrep" : t);
      if (missing.length) expect(r.yoke.reason).toContain(`apt-get install ${missing.map(pkg).join(" ")}`);
      // With no host allowed socat is still asked for, and handed to the library when found.
      if (r.yoke.ok) expect(r.yoke.socat).toEndWith("/socat");
    }, 60_000);

  test("sandbox.socatPath and sandbox.bwrapPath that are not executable: both refuse, each naming the path", async () => {
    for (const settings of [{ socatPath: "/nonexistent/socat" }, { bwrapPath: "/nonexistent/bwrap" }] as Record<string, string>[]) {
      const r = await both(pathWith(["bwrap", "socat", "rg"]), settings);
      const path = Object.values(settings)[0]!;
      expect(r.library.errors.join("\n")).toContain(path);
      expect(r.yoke.ok).toBe(false);
      expect(r.yoke.reason).toContain(`${path} is not an executable file`);
    }
  }, 60_000);
});

const rootWithSetpriv = process.platform === "linux" && have && process.geteuid?.() === 0 && !!Bun.which("setpriv");
test.skipIf(!rootWithSetpriv)("root without CAP_SETFCAP (a container's root with that capability dropped): both refuse, and say so", async () => {
  const r = await both(pathWith(["bwrap", "socat", "rg"]), {}, [Bun.which("setpriv")!, "--bounding-set", "-setfcap", "--inh-caps", "-setfcap"]);
  // Where the kernel still maps uid 0 without it (before Linux 5.12), both start.
  expect(r.yoke.ok).toBe(r.library.errors.length === 0);
  if (!r.yoke.ok) {
    expect(r.library.errors.join("\n")).toContain("CAP_SETFCAP");
    expect(r.yoke.reason).toContain("yoke runs as root without CAP_SETFCAP; grant it, or run as a non-root user");
  }
}, 60_000);

test("WSL 1 is told apart from WSL 2 as the library does (/proc/version)", () => {
  expect(wslVersion("Linux version 4.4.0-19041-Microsoft (Microsoft@Microsoft.com)")).toBe("1");
  expect(wslVersion("Linux version 5.15.153.1-microsoft-standard-WSL2")).toBe("2");
  expect(wslVersion("Linux version 6.1.0-18-amd64 (debian-kernel@lists.debian.org)")).toBeUndefined();
});
