/**
 * Issue 18 point 2: the image's contract, tested without a container engine. The Dockerfile's runtime stage is
 * read for its user, environment, working folder and entrypoint; its entrypoint (tini, then the compiled binary)
 * then runs as that unprivileged user in a mount namespace (bubblewrap) whose root is the image's own filesystem
 * (deploy/image, test/helpers/image-view.ts), read-only except a tmpfs /tmp and the two volumes (HOME and /work),
 * with `--clearenv` standing in for `env -i`, and does a whole headless task
 * against the fake API configured by environment alone. The Dockerfile is also linted here (hadolint is not
 * installable from the registries these machines reach; the rules below are the ones of its that apply).
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dockerfile, entrypoint, imageEnv, instr, runInImage, runtimeStage, uid, gid, workdir } from "../helpers/image-view.ts";
import { join } from "node:path";
import { fakeApiEnv, startFakeAnthropic, type FakeAnthropic } from "../helpers/fake-anthropic.ts";
import { repoRoot, yokeBin } from "../helpers/binary.ts";
import { tempDir } from "../helpers/tmp.ts";

// Each test runs the compiled binary (and packs or installs it): seconds on a loaded machine.
setDefaultTimeout(60_000);

let fake: FakeAnthropic;
beforeAll(async () => {
  yokeBin();
  fake = await startFakeAnthropic();
});
afterAll(() => fake.stop());

const apiEnv = () => {
  const e = fakeApiEnv(fake);
  return { ANTHROPIC_API_KEY: e.ANTHROPIC_API_KEY!, ANTHROPIC_BASE_URL: e.ANTHROPIC_BASE_URL!, ANTHROPIC_MODEL: "claude-sonnet-5-5" };
};
const PATH = "/usr/local/bin:/usr/bin:/bin";

function pushWriteTask(path: string) {
  fake.push(
    { content: [{ type: "tool_use", name: "Write", input: { file_path: path, content: "from the container\n" } }] },
    { content: [{ type: "text", text: "wrote it" }] },
  );
}

describe("the image's contract (Dockerfile runtime stage)", () => {
  test("non-root user, exec-form entrypoint, state in HOME", () => {
    expect(uid).toBeGreaterThan(0);
    expect(gid).toBeGreaterThan(0);
    expect(entrypoint.at(-1)).toBe("/usr/local/bin/yoke");
    expect(imageEnv.HOME).toBeDefined();
    expect(imageEnv.YOKE_CONFIG_DIR?.startsWith(imageEnv.HOME!)).toBe(true);
    expect(imageEnv.CLAUDE_CONFIG_DIR?.startsWith(imageEnv.HOME!)).toBe(true);
  });

  test("a headless task with env-only configuration, read-only root, HOME and /work as volumes", async () => {
    const home = tempDir("yoke-img-home-");
    const work = tempDir("yoke-img-work-");
    pushWriteTask(`${workdir}/out.txt`);
    const before = fake.requests.length;
    const r = await runInImage(["-p", "write out.txt", "--output-format", "json"], { PATH, ...imageEnv, ...apiEnv(), YOKE_SETTINGS: '{"permissions":{"allow":["Write"]}}' }, { home, work });
    expect(r.stderr).not.toContain("internal error");
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ type: "result", is_error: false, result: "wrote it" });
    expect(readFileSync(join(work, "out.txt"), "utf8")).toBe("from the container\n");
    expect(fake.requests[before]!.body.model).toBe("claude-sonnet-5-5");
    // The session was kept on the HOME volume, where a retry of the pod finds it.
    const projects = join(home, ".yoke", "projects");
    expect(readdirSync(projects).flatMap((d) => readdirSync(join(projects, d))).some((f) => f.endsWith(".jsonl"))).toBe(true);
  });

  test("settings from a mounted file named by YOKE_SETTINGS", async () => {
    const work = tempDir("yoke-img-work-");
    const settings = join(tempDir("yoke-img-cfg-"), "settings.json");
    writeFileSync(settings, JSON.stringify({ permissions: { allow: ["Write"] } }));
    pushWriteTask(`${workdir}/f.txt`);
    const r = await runInImage(["-p", "write f.txt"], { PATH, ...imageEnv, ...apiEnv(), YOKE_SETTINGS: "/run/config/settings.json" }, { home: tempDir("yoke-img-home-"), work, settingsFile: settings });
    expect(r.stderr).not.toContain("error");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("wrote it\n");
    expect(existsSync(join(work, "f.txt"))).toBe(true);
  });

  test("env -i with no HOME and no passwd entry: the task still runs and says where its state went", async () => {
    const work = tempDir("yoke-img-work-");
    fake.push({ content: [{ type: "text", text: "no home, fine" }] });
    const r = await runInImage(["-p", "hi"], { ...apiEnv() }, { work, user: 12345 });
    expect(r.stderr).toContain("HOME is not set and user 12345 has no home folder");
    expect(r.stderr).not.toContain("internal error");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("no home, fine\n");
  });

  test("a bad YOKE_SETTINGS ends the run naming the variable", async () => {
    const work = tempDir("yoke-img-work-");
    const a = await runInImage(["-p", "hi"], { PATH, ...imageEnv, ...apiEnv(), YOKE_SETTINGS: '{"permissions": {' }, { home: tempDir("yoke-img-home-"), work });
    expect(a.code).toBe(1);
    expect(a.stderr).toContain("YOKE_SETTINGS");
    const b = await runInImage(["-p", "hi"], { PATH, ...imageEnv, ...apiEnv(), YOKE_SETTINGS: "/run/config/missing.json" }, { home: tempDir("yoke-img-home-"), work });
    expect(b.code).toBe(1);
    expect(b.stderr).toContain("YOKE_SETTINGS: file not found: /run/config/missing.json");
  });
});

describe("Dockerfile lint (hadolint's rules that apply)", () => {
  const lines = dockerfile.replace(/\\\n/g, " ").split("\n").filter((l) => l.trim() && !l.trim().startsWith("#"));
  test("base images pinned by tag, never latest (DL3006, DL3007); scratch is no image", () => {
    for (const l of lines.filter((x) => /^FROM\s/i.test(x))) {
      const image = l.split(/\s+/)[1]!;
      if (image === "scratch") continue;
      expect(image).toMatch(/:[^:]+$/);
      expect(image).not.toMatch(/:latest$/);
    }
  });
  test("apk add --no-cache (DL3019), apt-get install -y --no-install-recommends and lists removed (DL3014, DL3015, DL3009), a pipe under pipefail (DL4006), no sudo (DL3004), no ADD of URLs (DL3020), COPY --from a named stage (DL3022)", () => {
    let shell = "";
    for (const l of lines) {
      if (/^FROM\s/i.test(l)) shell = "";
      if (/^SHELL\s/i.test(l)) shell = l;
      if (/apk add/.test(l)) expect(l).toContain("--no-cache");
      if (/apt-get install/.test(l)) {
        expect(l).toMatch(/apt-get install -y --no-install-recommends/);
        expect(l).toContain("rm -rf /var/lib/apt/lists/*");
      }
      if (/^RUN\s.*[^|]\|[^|]/i.test(l)) expect(shell).toContain("pipefail");
      expect(l).not.toMatch(/\bsudo\b/);
      expect(l).not.toMatch(/^ADD\s/i);
      const from = /COPY --from=(\S+)/.exec(l);
      if (from) expect(lines.some((x) => new RegExp(`^FROM .* AS ${from[1]}$`, "i").test(x))).toBe(true);
    }
  });
  test("the last USER is not root (DL3002) and comes before the ENTRYPOINT, which is exec form (DL3025)", () => {
    const users = runtimeStage.filter((l) => /^USER\s/i.test(l));
    expect(users.at(-1)).not.toMatch(/USER\s+(root|0)(:|$)/i);
    expect(runtimeStage.findIndex((l) => /^USER\s/i.test(l))).toBeLessThan(runtimeStage.findIndex((l) => /^ENTRYPOINT\s/i.test(l)));
    expect(instr("ENTRYPOINT").at(-1)!.startsWith("[")).toBe(true);
  });
  test("the build stage copies every file build.ts imports from the repository's top (and those files' own)", () => {
    const froms = lines.flatMap((l, i) => (/^FROM\s/i.test(l) ? [i] : []));
    const build = lines.slice(froms[0], froms[1]);
    const copied = build.filter((l) => /^COPY\s/i.test(l)).flatMap((l) => l.split(/\s+/).slice(1, -1));
    const seen = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      expect(copied.filter((c) => new Bun.Glob(c).match(file))).not.toEqual([]);
      if (!file.endsWith(".ts")) return;
      for (const m of readFileSync(join(repoRoot(), file), "utf8").matchAll(/from "\.\/([^"/]+)"/g)) visit(m[1]!);
    };
    visit("build.ts");
    expect([...seen]).toEqual(expect.arrayContaining(["build-elf.ts", "build-mcp-schemas.ts", "build-plugins.ts", "build.ts", "package.json"]));
  });
  test(".dockerignore keeps node_modules, dist and .git out of the build context", () => {
    const ignore = readFileSync(join(repoRoot(), ".dockerignore"), "utf8").split("\n");
    for (const x of ["node_modules", "dist", ".git"]) expect(ignore).toContain(x);
  });
});
