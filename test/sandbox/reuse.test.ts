// The sandbox builds a command's bubblewrap line once and runs it again while nothing it was built from
// changed (issue 16 bench: the per-call cost). Whatever changes what the line must hold — a new repository,
// a file matching a deny glob, a protected name, a rule added mid-session — builds it again before the next
// command, and the next command is held by it. Real bubblewrap, real files; the library scans the folder
// yoke runs in, so the test runs from the project.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { LoadedSettings } from "../../src/config/load.ts";
import { createPermissionEvaluator, type Evaluator } from "../../src/permission/index.ts";
import { createBashSandbox, probeSandbox, type SandboxSetup } from "../../src/sandbox/index.ts";
import { tempDir } from "../helpers/tmp.ts";

const probe = await probeSandbox({ env: process.env });
if (!probe.ok) console.warn(`sandbox reuse tests skipped: ${probe.reason}`);

const CANARY = `CANARY-${crypto.randomUUID()}`;
const RULES = { deny: ["Read(./secrets/**)", "Read(.env)", "Edit(./protected/**)", "Edit(**/*.lock)"] };

let root: string;
let cwd: string;
let sb: SandboxSetup;
let evaluator: Evaluator;
const startDir = process.cwd();

async function run(command: string): Promise<{ code: number; out: string }> {
  const w = await sb.wrap(`/bin/bash -c '${command.replaceAll("'", "'\\''")}'`, cwd);
  if (!w.ok) throw new Error(w.error);
  const p = Bun.spawn(["/bin/sh", "-c", w.command], { cwd, stdout: "pipe", stderr: "pipe", env: { ...process.env, HOME: join(root, "home") } });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  sb.release(w.placeholders);
  return { code, out: out + err };
}

const built = () => sb.stats!().built;

describe.skipIf(!probe.ok)("a built line is reused only while what it was built from is unchanged", () => {
  beforeAll(async () => {
    root = tempDir("yoke-reuse-");
    cwd = join(root, "proj");
    mkdirSync(join(cwd, "secrets"), { recursive: true });
    mkdirSync(join(root, "home"), { recursive: true });
    writeFileSync(join(cwd, "secrets/key.pem"), `${CANARY}\n`);
    writeFileSync(join(cwd, "notes.txt"), "notes\n");
    Bun.spawnSync(["git", "init", "-q"], { cwd });
    process.chdir(cwd);
    const settings: LoadedSettings = { merged: { permissions: RULES }, sources: [{ level: "user", path: "test", ruleRoot: cwd, settings: { permissions: RULES } }] };
    evaluator = createPermissionEvaluator({ settings, cwd, env: process.env });
    sb = await createBashSandbox({
      settings: undefined,
      env: { ...process.env, HOME: join(root, "home"), YOKE_SANDBOX: undefined },
      rules: () => evaluator.ruleSet,
      workingDirectories: evaluator.workingDirectories,
      scratch: [join(root, "scratch")],
      yokeDir: join(root, "yoke"),
    });
  });
  afterAll(async () => {
    process.chdir(startDir);
    await sb?.shutdown();
  }, 60_000);

  test("nothing changed: the second and third commands run the first one's line; cwd, env and exit code are each command's own", async () => {
    mkdirSync(join(cwd, "sub"), { recursive: true });
    expect((await run("true")).code).toBe(0);
    const n = built();
    const a = await run("pwd; echo $FOO; exit 3");
    mkdirSync(join(root, "elsewhere"), { recursive: true });
    const w = await sb.wrap("pwd; env | grep -c __YOKE_SB || true", join(cwd, "sub"));
    if (!w.ok) throw new Error(w.error);
    const p = Bun.spawn(["/bin/sh", "-c", w.command], { cwd, stdout: "pipe", env: { ...process.env, FOO: "foo-2" } });
    const out = await new Response(p.stdout).text();
    await p.exited;
    sb.release(w.placeholders);
    expect(a.code).toBe(3);
    expect(a.out).toBe(`${cwd}\n\n`);
    // The command's folder and the host's variables arrive; the variables carrying the command do not.
    expect(out).toBe(`${join(cwd, "sub")}\n0\n`);
    expect(built()).toBe(n);
  }, 60_000);

  test("a repository made by one command has its hooks read-only in the next", async () => {
    const n = built();
    expect((await run("git init -q nested && echo made")).out).toContain("made");
    const r = await run("mkdir -p nested/.git/hooks; echo evil > nested/.git/hooks/pre-commit && echo wrote");
    expect(r.out).not.toContain("wrote");
    expect(existsSync(join(cwd, "nested/.git/hooks/pre-commit"))).toBe(false);
    expect(built()).toBeGreaterThan(n);
  }, 60_000);

  test("a file matching a Read deny glob, made outside between two commands, is hidden from the next", async () => {
    expect((await run("cat notes.txt")).out).toContain("notes");
    mkdirSync(join(cwd, "deep/er"), { recursive: true });
    writeFileSync(join(cwd, "deep/er/.env"), `${CANARY}\n`);
    expect((await run("cat deep/er/.env")).out).not.toContain(CANARY);
  }, 60_000);

  test("a file matching an Edit deny glob, made between two commands, is read-only in the next", async () => {
    await run("true");
    writeFileSync(join(cwd, "sub/new.lock"), "lock\n");
    await run("echo changed > sub/new.lock");
    expect(readFileSync(join(cwd, "sub/new.lock"), "utf8")).toBe("lock\n");
  }, 60_000);

  test("a symlink into a hidden folder, made between two commands, leads nowhere", async () => {
    await run("true");
    symlinkSync(join(cwd, "secrets"), join(cwd, "sub/peek"));
    expect((await run("cat sub/peek/key.pem")).out).not.toContain(CANARY);
  }, 60_000);

  test("a protected name made in a new folder (.vscode) is read-only in the next command", async () => {
    await run("true");
    mkdirSync(join(cwd, "sub/.vscode"), { recursive: true });
    writeFileSync(join(cwd, "sub/.vscode/tasks.json"), "{}\n");
    await run("echo '{\"evil\":1}' > sub/.vscode/tasks.json");
    expect(readFileSync(join(cwd, "sub/.vscode/tasks.json"), "utf8")).toBe("{}\n");
  }, 60_000);

  test("rules added while the session runs (addRules) hold in the next command; a Read deny added for a file readable before", async () => {
    writeFileSync(join(cwd, "late.txt"), `${CANARY}\n`);
    expect((await run("cat late.txt")).out).toContain(CANARY);
    evaluator.addRules("deny", ["Read(./late.txt)", "Edit(./notes.txt)"]);
    expect(sb.policy!.denyRead).toContain(join(cwd, "late.txt"));
    expect((await run("cat late.txt")).out).not.toContain(CANARY);
    await run("echo changed > notes.txt");
    expect(readFileSync(join(cwd, "notes.txt"), "utf8")).toBe("notes\n");
  }, 60_000);

  test("a denied path that does not exist cannot be made; its mount point is an empty file, gone when the session ends", async () => {
    // `protected` does not exist: bubblewrap mounts over an empty file it makes there, which the kept
    // sandbox holds while the session runs.
    expect((await run("mkdir -p protected && echo x > protected/f && echo wrote")).out).not.toContain("wrote");
    expect(existsSync(join(cwd, "protected/f"))).toBe(false);
    await sb.shutdown();
    expect(existsSync(join(cwd, "protected"))).toBe(false);
  }, 60_000);
});
