// The kernel layer alone (issue 16 point 12): every attack of the corpus runs straight through the
// sandbox, with no static check in front of it, in a real project on a real bubblewrap. Whatever it
// prints must not hold a canary; no protected file may change; ordinary commands still work.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { LoadedSettings } from "../../src/config/load.ts";
import { createPermissionEvaluator } from "../../src/permission/index.ts";
import { createBashSandbox, probeSandbox, type SandboxSetup } from "../../src/sandbox/index.ts";
import { tempDir } from "../helpers/tmp.ts";
import { projectFiles, SANDBOX_ATTACKS } from "../fixtures/sandbox-corpus.ts";

const probe = await probeSandbox({ env: process.env });
if (!probe.ok) console.warn(`kernel sandbox tests skipped: ${probe.reason}`);

const CANARY = { key: `CANARY-KEY-${crypto.randomUUID()}`, env: `CANARY-ENV-${crypto.randomUUID()}` };
const RULES = { deny: ["Read(./secrets/**)", "Read(.env)", "Edit(./protected/**)", "Edit(**/*.lock)"] };

let root: string;
let cwd: string;
let sb: SandboxSetup;
let listener: ReturnType<typeof Bun.serve>;
const heard: string[] = [];

function layout(): void {
  root = tempDir("yoke-kernel-");
  cwd = join(root, "proj");
  for (const [f, c] of Object.entries({ ...projectFiles(CANARY), "deps/yarn.lock": "lock\n" })) {
    mkdirSync(dirname(join(cwd, f)), { recursive: true });
    writeFileSync(join(cwd, f), c);
  }
  chmodSync(join(cwd, "tools/ls"), 0o755);
  for (const [f, c] of Object.entries({ ".aws/credentials": `k=${CANARY.key}\n`, ".ssh/id_ed25519": `${CANARY.env}\n` })) {
    mkdirSync(dirname(join(root, "home", f)), { recursive: true });
    writeFileSync(join(root, "home", f), c);
  }
  mkdirSync(join(root, "outside"));
  writeFileSync(join(root, "outside/file.txt"), "outside\n");
  Bun.spawnSync(["git", "init", "-q"], { cwd });
}

const settings = (): LoadedSettings => ({ merged: { permissions: RULES }, sources: [{ level: "user", path: "test", ruleRoot: cwd, settings: { permissions: RULES } }] });

/** Runs one command through the sandbox as the Bash tool does (sh -c of the wrapped line). */
async function run(command: string): Promise<{ code: number; out: string; removed: string[] }> {
  const w = await sb.wrap(`/bin/bash -c '${command.replaceAll("'", "'\\''")}'`, cwd);
  if (!w.ok) throw new Error(w.error);
  const env: Record<string, string | undefined> = { ...process.env, HOME: join(root, "home") };
  delete env.ANTHROPIC_API_KEY;
  const p = Bun.spawn(["/bin/sh", "-c", w.command], { cwd, stdout: "pipe", stderr: "pipe", env });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, out: out + err, removed: sb.release(w.placeholders) };
}

function state(): string {
  const files: string[] = [];
  const walk = (d: string) => {
    if (!existsSync(d)) return;
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else files.push(`${p}=${e.isFile() ? readFileSync(p, "utf8") : "link"}`);
    }
  };
  for (const d of ["protected", "secrets", ".git/hooks"]) walk(join(cwd, d));
  walk(join(root, "outside"));
  files.push(readFileSync(join(cwd, ".env"), "utf8"), readFileSync(join(cwd, ".git/config"), "utf8"), readFileSync(join(cwd, "deps/yarn.lock"), "utf8"));
  for (const f of [".bashrc", ".mcp.json", ".vscode", ".gitmodules"]) files.push(`${f}:${existsSync(join(cwd, f))}`);
  return files.sort().join("\n");
}

describe.skipIf(!probe.ok)("the kernel alone holds the deny rules", () => {
  beforeAll(async () => {
    layout();
    listener = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: async (r) => (heard.push(r.url), new Response("heard")) });
    const evaluator = createPermissionEvaluator({ settings: settings(), cwd, env: process.env });
    sb = await createBashSandbox({
      settings: undefined,
      env: { ...process.env, HOME: join(root, "home"), YOKE_SANDBOX: undefined },
      rules: evaluator.ruleSet,
      workingDirectories: evaluator.workingDirectories,
      scratch: [join(root, "scratch")],
      yokeDir: join(root, "yoke"),
    });
  });
  afterAll(async () => {
    await sb?.shutdown();
    listener?.stop(true);
  });

  const all = Object.entries(SANDBOX_ATTACKS).flatMap(([cls, cmds]) => cmds.map((c) => ({ cls, c })));

  test(`${all.length} attacks with no static check in front: no canary out, nothing protected changed`, async () => {
    expect(sb.active).toBe(true);
    const before = state();
    const leaks: string[] = [];
    for (const { cls, c } of all) {
      const cmd = c.replaceAll("${CWD}", cwd).replaceAll("${HOME}", join(root, "home")).replaceAll("${PORT}", String(listener.port));
      const r = await run(cmd);
      if (r.out.includes(CANARY.key) || r.out.includes(CANARY.env) || r.out.includes(Buffer.from(CANARY.key).toString("base64").slice(4, 30)))
        leaks.push(`${cls}: ${cmd}\n${r.out}`);
      const now = state();
      if (now !== before) leaks.push(`${cls}: ${cmd} changed protected state`);
      if (now !== before) break;
    }
    expect(leaks).toEqual([]);
    expect(heard).toEqual([]);
  }, 300_000);

  test("ordinary writes in the project work; the lock file an Edit deny glob covers does not change", async () => {
    const r = await run("echo hi > made.txt && cat made.txt && echo x > deps/yarn.lock");
    expect(r.out).toContain("hi");
    expect(readFileSync(join(cwd, "made.txt"), "utf8")).toBe("hi\n");
    expect(readFileSync(join(cwd, "deps/yarn.lock"), "utf8")).toBe("lock\n");
  });

  test("git add -A works (no placeholder devices), and a protected name the command creates is removed", async () => {
    const r = await run("git add -A && git -c user.email=t@t -c user.name=t commit -qm c && echo committed; echo '{}' > .mcp.json; mkdir -p .vscode && echo '{}' > .vscode/tasks.json");
    expect(r.out).toContain("committed");
    expect(r.removed.sort()).toEqual([join(cwd, ".mcp.json"), join(cwd, ".vscode")]);
    expect(existsSync(join(cwd, ".mcp.json")) || existsSync(join(cwd, ".vscode"))).toBe(false);
  });
});
