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

const probe = await probeSandbox({ env: process.env });
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

  // The Bash tool starts a kept command without a shell in front (WrapResult.direct): it must see exactly what
  // the command line gives it, and be held the same.
  async function both(inner: string, extra: Record<string, string> = {}, given = false): Promise<Array<{ code: number | null; out: string; said: string; argv?: string[] }>> {
    const out = [];
    for (const direct of [false, true]) {
      // `given`: the sandbox is told the environment (as the Bash tool does), so it may start the command's own shell first.
      const w = await sb.wrap(inner, cwd, { announce: true, ...(given && direct ? { env: { ...env(), ...extra } } : {}) });
      if (!w.ok) throw new Error(w.error);
      expect(w.kept).toBe(true);
      expect(w.direct).toBeDefined();
      const child = spawnWrapped(w.command, { cwd, env: { ...env(), ...extra }, announceFd: true, direct: direct ? w.direct : undefined });
      let text = "";
      let said = "";
      child.stdout!.on("data", (d: Buffer) => (text += d));
      child.stderr!.on("data", (d: Buffer) => (text += d));
      const fd3 = child.stdio[3] as NodeJS.ReadableStream;
      fd3.on("data", (d: Buffer) => (said += d));
      const saidAll = new Promise<void>((r) => (fd3.once("end", () => r()), fd3.once("close", () => r())));
      const code = await new Promise<number | null>((r) => child.once("close", (c) => r(c)));
      await saidAll;
      sb.release(w.placeholders);
      out.push({ code, out: text, said, ...(direct ? { argv: w.direct!.argv } : {}) });
    }
    return out;
  }

  test("started directly, a command sees the same folder, environment and descriptors as from its command line", async () => {
    const show = `pwd; env | grep -v -e "^_=" -e "^YOKE_GUARD=" | sort; ls /proc/self/fd | sort | tr "\\n" " "; echo`;
    const [line, direct] = await both(`/bin/bash -c '${show}'`, { YOKE_KEPT_SEEN: "1" });
    expect({ ...direct, argv: undefined }).toEqual({ ...line!, argv: undefined });
    expect(direct!.said).toBe("started");
    expect(direct!.out).toContain(`${cwd}\n`);
    expect(direct!.out).toContain("YOKE_KEPT_SEEN=1");
    expect(direct!.out).not.toContain("__YOKE_SB");
  }, 60_000);

  test("started directly, a command line that is not plain words, or not a program's path, runs as from its command line", async () => {
    for (const inner of ["echo a && pwd", "echo plain words", "false"]) {
      const [line, direct] = await both(inner);
      expect({ ...direct, argv: undefined }).toEqual({ ...line!, argv: undefined });
      expect(direct!.said).toBe("started");
    }
    const [, direct] = await both("echo a && pwd");
    expect(direct!.out).toBe(`a\n${cwd}\n`);
  }, 60_000);

  test("started directly, the command is held as before: no secret, no write outside, no namespaces even when the environment asks", async () => {
    const attempt = `cat secrets/key.pem; echo x > /etc/yoke-kept-direct; unshare -U true && echo UNSHARED; echo done`;
    // A variable the seccomp helper reads: from the user's environment it must not reach it.
    const [line, direct] = await both(`/bin/bash -c '${attempt}'`, { SRT_ALLOW_NESTED_USERNS: "1" });
    for (const r of [line!, direct!]) {
      expect(r.out).toContain("done");
      expect(r.out).not.toContain(SECRET);
      expect(r.out).not.toContain("UNSHARED");
    }
    expect(existsSync("/etc/yoke-kept-direct")).toBe(false);
  }, 60_000);

  // With the environment known and nothing in it that runs before a shell's script, the command's own shell is
  // the first program inside (no shell of ours in front): it must behave as from the command line.
  test("the command's own shell first: same folder, environment, descriptors, arguments and line numbers", async () => {
    const show = `pwd; env | grep -v -e "^_=" -e "^YOKE_GUARD=" | sort; ls /proc/self/fd | sort | tr "\\n" " "; echo "$0 $# $1 $LINENO"; f() { echo $LINENO; }; f`;
    const inner = `/bin/bash -c '${show}' bash 'an arg'`;
    const [line, direct] = await both(inner, { YOKE_KEPT_SEEN: "1" }, true);
    expect({ ...direct, argv: undefined }).toEqual({ ...line!, argv: undefined });
    expect(direct!.said).toBe("started");
    expect(direct!.out).toContain("bash 1 an arg 1\n1\n");
    // No shell of ours in front of it: its own bash is what the seccomp helper starts.
    expect(direct!.argv!.slice(-5, -3)).toEqual(["/bin/bash", "-c"]);
    const failed = await both(`/bin/bash -c 'echo ran; exit 3'`, {}, true);
    expect(failed[1]).toEqual({ ...failed[0]!, argv: failed[1]!.argv });
    expect(failed[1]!.code).toBe(3);
  }, 60_000);

  test("BASH_ENV in the environment: a shell of ours goes first, so it runs in the command's folder after the sandbox said it started", async () => {
    const rc = join(dir, "bash-env.sh");
    writeFileSync(rc, 'echo "env-file in $PWD"\nexit 7\n');
    const [line, direct] = await both(`/bin/bash -c 'echo not reached'`, { BASH_ENV: rc }, true);
    expect({ ...direct, argv: undefined }).toEqual({ ...line!, argv: undefined });
    expect(direct!.said).toBe("started");
    expect(direct!.out).toBe(`env-file in ${cwd}\n`);
    expect(direct!.code).toBe(7);
    expect(direct!.argv).toContain("sh");
  }, 60_000);
});
