// The kept sandbox (src/sandbox/holder.ts): commands join one bubblewrap sandbox per built line instead of
// starting their own. Each command must still be held as under a bubblewrap of its own: what it starts
// ends with it, an interrupt kills its whole process group, it sees nothing of yoke's environment, and a
// kept sandbox that dies is started again. Real bubblewrap, real processes.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { LoadedSettings } from "../../src/config/load.ts";
import { createPermissionEvaluator } from "../../src/permission/index.ts";
import { createBashSandbox, probeSandbox, type SandboxSetup } from "../../src/sandbox/index.ts";
import { spawnWrapped } from "../../src/tool/builtin/shell-exec.ts";
import { groupAlive, killGroup } from "../../src/util/subprocess.ts";
import { tempDir } from "../helpers/tmp.ts";

const probe = await probeSandbox({ env: process.env, network: false });
// An unprivileged bubblewrap's namespaces belong to a user namespace nsenter cannot reach: commands get their own there.
const root = process.geteuid?.() === 0;
if (!probe.ok || !root) console.warn(`kept sandbox tests skipped: ${probe.ok ? "not root" : probe.reason}`);

const SECRET = `CANARY-${crypto.randomUUID()}`;
const RULES = { deny: ["Read(./secrets/**)", "Edit(./protected/**)"] };

let dir: string;
let cwd: string;
let sb: SandboxSetup;
const startDir = process.cwd();
const savedKey = process.env.ANTHROPIC_API_KEY;

const env = (): Record<string, string> => {
  const e: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && k !== "ANTHROPIC_API_KEY") e[k] = v;
  return e;
};

async function run(command: string): Promise<{ code: number | null; out: string }> {
  const w = await sb.wrap(`/bin/bash -c '${command.replaceAll("'", "'\\''")}'`, cwd);
  if (!w.ok) throw new Error(w.error);
  const p = Bun.spawn(["/bin/sh", "-c", w.command], { cwd, stdout: "pipe", stderr: "pipe", env: env() });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  sb.release(w.placeholders);
  return { code, out: out + err };
}

/** This process's kept sandboxes (bubblewrap started with --info-fd, a child of this process). */
const holders = (): number[] =>
  Bun.spawnSync(["ps", "-o", "pid=,args=", "--ppid", String(process.pid)])
    .stdout.toString()
    .split("\n")
    .filter((l) => l.includes("--info-fd"))
    .map((l) => Number(l.trim().split(/\s+/)[0]));

const marked = (mark: string) => Bun.spawnSync(["pgrep", "-f", mark]).stdout.toString().trim();

describe.skipIf(!probe.ok || !root)("commands in a kept sandbox are held as in their own", () => {
  beforeAll(async () => {
    dir = tempDir("yoke-kept-");
    cwd = join(dir, "proj");
    mkdirSync(join(cwd, "secrets"), { recursive: true });
    writeFileSync(join(cwd, "secrets/key.pem"), `${SECRET}\n`);
    process.chdir(cwd);
    // yoke's own key: no sandboxed process may see it, the kept sandbox's included.
    process.env.ANTHROPIC_API_KEY = SECRET;
    const settings: LoadedSettings = { merged: { permissions: RULES }, sources: [{ level: "user", path: "test", ruleRoot: cwd, settings: { permissions: RULES } }] };
    const evaluator = createPermissionEvaluator({ settings, cwd, env: process.env });
    sb = await createBashSandbox({
      settings: undefined,
      env: { ...process.env, HOME: join(dir, "home"), YOKE_SANDBOX: undefined },
      rules: () => evaluator.ruleSet,
      workingDirectories: evaluator.workingDirectories,
      scratch: [join(dir, "scratch")],
      yokeDir: join(dir, "yoke"),
    });
  });
  afterAll(async () => {
    process.chdir(startDir);
    if (savedKey === undefined) delete process.env.ANTHROPIC_API_KEY;
    else process.env.ANTHROPIC_API_KEY = savedKey;
    await sb?.shutdown();
  }, 60_000);

  test("one kept sandbox serves command after command", async () => {
    expect((await run("echo one")).out).toBe("one\n");
    const kept = holders();
    expect(kept.length).toBe(1);
    expect((await run("echo two; cat secrets/key.pem")).out).not.toContain(SECRET);
    expect(holders()).toEqual(kept);
    expect(sb.stats!().reused).toBeGreaterThan(0);
  }, 60_000);

  test("what a command leaves running in the background ends with it (its own pid namespace)", async () => {
    const mark = `${Math.floor(Math.random() * 1e6) + 1000}.5`;
    expect((await run(`sleep ${mark} & echo started`)).out).toBe("started\n");
    expect(marked(`sleep ${mark}`)).toBe("");
  }, 60_000);

  test("no sandboxed process, the kept sandbox's own included, sees yoke's key", async () => {
    const r = await run(`cat /proc/[0-9]*/environ 2>/dev/null | tr "\\0" "\\n" | grep -c "${SECRET.slice(0, 10)}""${SECRET.slice(10)}"; echo counted`);
    expect(r.out).toBe("0\ncounted\n");
  }, 60_000);

  test("an interrupt kills the command's whole process group; the kept sandbox serves the next command", async () => {
    const mark = `${Math.floor(Math.random() * 1e6) + 1000}.25`;
    const w = await sb.wrap(`/bin/bash -c 'sleep ${mark} & echo started; wait'`, cwd);
    if (!w.ok) throw new Error(w.error);
    const child = spawnWrapped(w.command, { cwd, env: env() });
    await new Promise<void>((r) => child.stdout!.once("data", () => r()));
    expect(marked(`sleep ${mark}`)).not.toBe("");
    await killGroup(child.pid!);
    await new Promise<void>((r) => (child.exitCode !== null || child.signalCode !== null ? r() : child.once("exit", () => r())));
    sb.release(w.placeholders);
    expect(groupAlive(child.pid!)).toBe(false);
    expect(marked(`sleep ${mark}`)).toBe("");
    expect((await run("echo next")).out).toBe("next\n");
  }, 60_000);

  test("a kept sandbox that dies is started again for the next command, which is held as before", async () => {
    const [kept] = holders();
    process.kill(kept!, "SIGKILL");
    await new Promise<void>((r) => {
      const poll = () => (holders().includes(kept!) ? setImmediate(poll) : r());
      poll();
    });
    const r = await run("echo again; cat secrets/key.pem; echo x > /etc/yoke-kept-test");
    expect(r.out).toContain("again");
    expect(r.out).not.toContain(SECRET);
    expect(existsSync("/etc/yoke-kept-test")).toBe(false);
    expect(holders().length).toBe(1);
  }, 60_000);
});
