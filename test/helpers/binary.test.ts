import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { binaryIsStale, isolatedEnv, runYoke, spawnYoke, yokeBin } from "./binary.ts";
import { tempDir, writeTree } from "./tmp.ts";

describe("isolatedEnv", () => {
  const base = {
    PATH: "/usr/bin:/bin",
    HOME: "/home/real",
    ANTHROPIC_API_KEY: "sk-ant-real-key",
    ANTHROPIC_BASE_URL: "https://api.anthropic.com",
    CLAUDE_CONFIG_DIR: "/home/real/.claude",
    YOKE_CONFIG_DIR: "/home/real/.yoke",
    LANG: "C.UTF-8",
  };

  test("keeps PATH/LANG, drops keys and real config dirs, points HOME and config dirs at a temp home", () => {
    const env = isolatedEnv({}, base);
    expect(env.PATH).toBe("/usr/bin:/bin");
    expect(env.LANG).toBe("C.UTF-8");
    expect(env.ANTHROPIC_API_KEY).toBeUndefined();
    expect(env.ANTHROPIC_BASE_URL).toBeUndefined();
    expect(env.HOME).not.toBe("/home/real");
    expect(fs.statSync(env.HOME!).isDirectory()).toBe(true);
    expect(env.YOKE_CONFIG_DIR).toBe(path.join(env.HOME!, ".yoke"));
    expect(env.CLAUDE_CONFIG_DIR).toBe(path.join(env.HOME!, ".claude"));
    expect(fs.statSync(env.YOKE_CONFIG_DIR!).isDirectory()).toBe(true);
    expect(fs.statSync(env.CLAUDE_CONFIG_DIR!).isDirectory()).toBe(true);
  });

  test("each call gets its own home", () => {
    expect(isolatedEnv({}, base).HOME).not.toBe(isolatedEnv({}, base).HOME);
  });

  test("extra wins, can choose HOME, and undefined removes a variable", () => {
    const home = tempDir();
    const env = isolatedEnv({ HOME: home, ANTHROPIC_API_KEY: "test", PATH: undefined }, base);
    expect(env.HOME).toBe(home);
    expect(env.YOKE_CONFIG_DIR).toBe(path.join(home, ".yoke"));
    expect(env.ANTHROPIC_API_KEY).toBe("test");
    expect("PATH" in env).toBe(false);
  });
});

/** A stand-in executable, so runYoke's mechanics are tested without building yoke. */
function stubBin(script: string): string {
  const dir = tempDir();
  writeTree(dir, { "stub.sh": { content: `#!/bin/sh\n${script}\n`, mode: 0o755 } });
  return path.join(dir, "stub.sh");
}

describe("runYoke / spawnYoke (with a stub executable)", () => {
  test("passes args, stdin, cwd and the isolated env; returns code and output", async () => {
    const bin = stubBin(
      'echo "args:$*"; echo "cwd:$(pwd)"; echo "home:$HOME"; echo "key:${ANTHROPIC_API_KEY-unset}"; echo "in:$(cat)"; echo oops >&2; exit 3',
    );
    const cwd = tempDir();
    const r = await runYoke(["-p", "hello"], { bin, cwd, stdin: "from stdin", env: { EXTRA: "1" } });
    expect(r.code).toBe(3);
    expect(r.signal).toBeNull();
    expect(r.timedOut).toBe(false);
    expect(r.stdout).toContain("args:-p hello");
    expect(r.stdout).toContain(`cwd:${cwd}`);
    expect(r.stdout).toContain(`home:${r.env.HOME}`);
    expect(r.stdout).toContain("key:unset");
    expect(r.stdout).toContain("in:from stdin");
    expect(r.stderr).toBe("oops\n");
    expect(r.env.EXTRA).toBe("1");
    expect(r.durationMs).toBeGreaterThanOrEqual(0);
  });

  test("without stdin the child reads end-of-file immediately", async () => {
    const r = await runYoke([], { bin: stubBin('echo "[$(cat)]"') });
    expect(r.stdout).toBe("[]\n");
    expect(r.code).toBe(0);
  });

  test("a child that outlives timeoutMs is killed and reported", async () => {
    const r = await runYoke([], { bin: stubBin("exec sleep 30"), timeoutMs: 200 });
    expect(r.timedOut).toBe(true);
    expect(r.code).toBeNull();
    expect(r.signal).toBe("SIGKILL");
  });

  test("a grandchild holding stdout open does not keep runYoke waiting", async () => {
    const pidFile = path.join(tempDir(), "grandchild.pid");
    const r = await runYoke([], { bin: stubBin(`echo before; (sleep 20 & echo $! > ${pidFile}); exit 0`), timeoutMs: 10_000 });
    try {
      expect(r.code).toBe(0);
      expect(r.stdout).toBe("before\n");
    } finally {
      process.kill(Number(fs.readFileSync(pidFile, "utf8")), "SIGKILL");
    }
  });

  test("spawnYoke hands back a live process the test can talk to and kill", async () => {
    const proc = spawnYoke([], { bin: stubBin('read line; echo "got:$line"; exec sleep 30') });
    proc.stdin.write("ping\n");
    proc.stdin.flush();
    const reader = proc.stdout.getReader();
    const { value } = await reader.read();
    expect(new TextDecoder().decode(value)).toBe("got:ping\n");
    proc.kill("SIGTERM");
    await proc.exited;
    expect(proc.signalCode).toBe("SIGTERM");
  });
});

describe("yokeBin", () => {
  test("YOKE_BIN wins and nothing is built", () => {
    expect(yokeBin({ env: { YOKE_BIN: "/opt/yoke" }, root: "/nonexistent" })).toBe("/opt/yoke");
  });

  /** A throwaway repo whose build script counts its runs and emits dist/yoke after a pause. */
  function fakeRepo(): string {
    const root = tempDir("fake-repo-");
    writeTree(root, {
      "package.json": JSON.stringify({ name: "fake", scripts: { build: "bun run build.ts" } }),
      "build.ts": `import * as fs from "node:fs";
        fs.appendFileSync("build-count", "x");
        await Bun.sleep(300);
        fs.mkdirSync("dist", { recursive: true });
        fs.writeFileSync("dist/yoke", "#!/bin/sh\\necho fake\\n", { mode: 0o755 });`,
      "src/main.ts": "export {};\n",
    });
    // Inputs must predate the build output for the staleness check to see a fresh binary.
    const past = new Date(Date.now() - 60_000);
    for (const f of ["package.json", "build.ts", "src/main.ts", "src"]) fs.utimesSync(path.join(root, f), past, past);
    return root;
  }

  test("parallel processes build a missing binary exactly once; a newer source rebuilds", async () => {
    const root = fakeRepo();
    expect(binaryIsStale(root)).toBe(true);
    const helper = path.join(import.meta.dir, "binary.ts");
    const script = `import { yokeBin } from ${JSON.stringify(helper)}; console.log(yokeBin({ root: ${JSON.stringify(root)}, env: {} }));`;
    const procs = [0, 1, 2].map(() => Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" }));
    const outs = await Promise.all(procs.map((p) => new Response(p.stdout).text()));
    await Promise.all(procs.map((p) => p.exited));
    for (const p of procs) expect(p.exitCode).toBe(0);
    for (const o of outs) expect(o.trim()).toBe(path.join(root, "dist", "yoke"));
    expect(fs.readFileSync(path.join(root, "build-count"), "utf8")).toBe("x");
    expect(fs.existsSync(path.join(root, "dist", ".build.lock"))).toBe(false);
    expect(binaryIsStale(root)).toBe(false);

    const future = new Date(Date.now() + 60_000);
    fs.utimesSync(path.join(root, "src/main.ts"), future, future);
    expect(binaryIsStale(root)).toBe(true);
    expect(yokeBin({ root, env: {} })).toBe(path.join(root, "dist", "yoke"));
    expect(fs.readFileSync(path.join(root, "build-count"), "utf8")).toBe("xx");
  });

  test("a lock left by a dead process is taken over", () => {
    const root = fakeRepo();
    fs.mkdirSync(path.join(root, "dist"));
    fs.writeFileSync(path.join(root, "dist", ".build.lock"), "999999999");
    expect(yokeBin({ root, env: {} })).toBe(path.join(root, "dist", "yoke"));
    expect(fs.readFileSync(path.join(root, "build-count"), "utf8")).toBe("x");
  });

  test("a failing build throws with its output", () => {
    const root = fakeRepo();
    writeTree(root, { "build.ts": 'console.error("syntax trouble in src/x.ts"); process.exit(2);' });
    expect(() => yokeBin({ root, env: {} })).toThrow(/bun run build.*exited 2[\s\S]*syntax trouble/);
    expect(fs.existsSync(path.join(root, "dist", ".build.lock"))).toBe(false);
  });
});
