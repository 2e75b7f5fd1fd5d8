/**
 * Issue 18.3: action.yml's steps run as a script, the way the runner runs a composite action: each `run` step with
 * `bash --noprofile --norc -eo pipefail`, `${{ }}` expressions substituted, GITHUB_OUTPUT / GITHUB_PATH honoured,
 * `if:` conditions evaluated, `uses:` steps recorded with their inputs (the artifact upload). The install step
 * installs the real binary from a local release folder standing in for the release URL; the run talks to the fake API.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parse } from "yaml";
import pkg from "../../package.json" with { type: "json" };
import { fakeApiEnv, startFakeAnthropic, type FakeAnthropic } from "../helpers/fake-anthropic.ts";
import { isolatedEnv, repoRoot, yokeBin } from "../helpers/binary.ts";
import { tempDir } from "../helpers/tmp.ts";

// Each test runs the compiled binary (and packs or installs it): seconds on a loaded machine.
setDefaultTimeout(60_000);

const root = repoRoot();
const action = parse(readFileSync(join(root, "action.yml"), "utf8"));
let fake: FakeAnthropic;
let releases: string;

beforeAll(async () => {
  fake = await startFakeAnthropic();
  // A release folder laid out as the releases URL serves it: <base>/download/v<version>/.
  releases = tempDir("yoke-action-releases-");
  const bins = tempDir("yoke-action-bins-");
  copyFileSync(yokeBin(), join(bins, "yoke-linux-x64"));
  copyFileSync(yokeBin(), join(bins, "yoke-linux-x64-baseline"));
  const p = Bun.spawnSync([process.execPath, join(root, "release/release.ts"), "--from", bins, "--out", join(releases, "download", `v${pkg.version}`), "--fast"], { stderr: "pipe" });
  if (p.exitCode !== 0) throw new Error(p.stderr.toString());
}, 120_000);
afterAll(() => fake.stop());

type Run = { failed: boolean; outputs: Record<string, Record<string, string>>; uses: Array<{ uses: string; with: Record<string, string> }>; logs: string; temp: string };

/** Runs the composite action's steps in order, as the runner would. */
async function runAction(inputs: Record<string, string>, workspace: string, env: Record<string, string> & { PATH: string }): Promise<Run> {
  const temp = tempDir("yoke-action-runner-");
  const given: Record<string, string> = {};
  for (const [k, v] of Object.entries(action.inputs as Record<string, { default?: string }>)) given[k] = inputs[k] ?? String(v.default ?? "");
  const outputs: Record<string, Record<string, string>> = {};
  const uses: Run["uses"] = [];
  const paths: string[] = [];
  let failed = false;
  let logs = "";
  const value = (ref: string): unknown => {
    if (ref.startsWith("inputs.")) return given[ref.slice(7)] ?? "";
    const m = /^steps\.([\w-]+)\.outputs\.([\w-]+)$/.exec(ref);
    if (m) return outputs[m[1]!]?.[m[2]!] ?? "";
    if (ref === "runner.temp") return temp;
    if (ref === "github.action_path") return root;
    throw new Error(`action.yml uses ${ref}, which this runner stand-in does not know`);
  };
  const evaluate = (expr: string): unknown => {
    const js = expr
      .replace(/always\(\)/g, "true")
      .replace(/success\(\)/g, String(!failed))
      .replace(/failure\(\)/g, String(failed))
      .replace(/\b(inputs\.[\w-]+|steps\.[\w-]+\.outputs\.[\w-]+|runner\.temp|github\.action_path)/g, (r) => JSON.stringify(value(r)))
      .replace(/'([^']*)'/g, (_, s) => JSON.stringify(s))
      .replace(/==/g, "===")
      .replace(/!===/g, "!==");
    return new Function(`return (${js});`)();
  };
  const subst = (s: string) => s.replace(/\$\{\{\s*(.+?)\s*\}\}/g, (_, e) => String(evaluate(e)));
  for (const step of action.runs.steps as any[]) {
    const cond = step.if === undefined ? !failed : !!evaluate(String(step.if).replace(/^\$\{\{|\}\}$/g, ""));
    if (!cond) continue;
    if (step.uses) {
      uses.push({ uses: step.uses, with: Object.fromEntries(Object.entries(step.with ?? {}).map(([k, v]) => [k, subst(String(v))])) });
      continue;
    }
    const outFile = join(temp, `output-${step.id ?? "x"}`);
    const pathFile = join(temp, "path");
    writeFileSync(outFile, "");
    if (!existsSync(pathFile)) writeFileSync(pathFile, "");
    const stepEnv: Record<string, string> = { ...env, RUNNER_TEMP: temp, GITHUB_ACTION_PATH: root, GITHUB_OUTPUT: outFile, GITHUB_PATH: pathFile, PATH: [...paths, env.PATH].join(":") };
    for (const [k, v] of Object.entries(step.env ?? {})) stepEnv[k] = subst(String(v));
    const script = join(temp, `step-${Math.random().toString(36).slice(2)}.sh`);
    writeFileSync(script, subst(step.run));
    const p = Bun.spawn(["bash", "--noprofile", "--norc", "-eo", "pipefail", script], { cwd: resolve(workspace, step["working-directory"] ? subst(step["working-directory"]) : "."), env: stepEnv, stdout: "pipe", stderr: "pipe" });
    const [o, e, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
    logs += `--- ${step.name} (exit ${code})\n${o}${e}`;
    if (step.id) outputs[step.id] = Object.fromEntries(readFileSync(outFile, "utf8").split("\n").filter(Boolean).map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]));
    paths.unshift(...readFileSync(pathFile, "utf8").split("\n").filter(Boolean));
    writeFileSync(pathFile, "");
    if (code !== 0) failed = true;
  }
  return { failed, outputs, uses, logs, temp };
}

const runnerEnv = () => {
  const e = isolatedEnv({ ...fakeApiEnv(fake) });
  return { ...e, PATH: "/usr/bin:/bin" };
};

describe("action.yml, its steps run as a script", () => {
  test("a task that succeeds: installed from the release, run, transcript and result uploaded, job green", async () => {
    const ws = tempDir("yoke-action-ws-");
    fake.push({ content: [{ type: "text", text: "All good." }] });
    const r = await runAction({ prompt: "check the repo", "release-url": `file://${releases}` }, ws, runnerEnv());
    expect(r.logs).toContain("installed");
    expect(r.failed).toBe(false);
    expect(r.outputs.run).toMatchObject({ "is-error": "false", "exit-code": "0" });
    const sid = r.outputs.run!["session-id"]!;
    expect(sid).toMatch(/^[0-9a-f-]{36}$/);
    const upload = r.uses.find((u) => u.uses.startsWith("actions/upload-artifact@"))!;
    const uploaded = upload.with.path!;
    expect(uploaded).toBe(join(r.temp, "yoke-out"));
    expect(readdirSync(uploaded).sort()).toEqual([`${sid}.jsonl`, "result.json", "stderr.log"].sort());
    expect(JSON.parse(readFileSync(join(uploaded, "result.json"), "utf8")).result).toBe("All good.");
  }, 60_000);

  test("a run that ends in error fails the job, after the artifacts were uploaded", async () => {
    const ws = tempDir("yoke-action-ws-");
    fake.push({ content: [{ type: "tool_use", name: "Glob", input: { pattern: "*" } }] });
    const r = await runAction({ prompt: "loop", "release-url": `file://${releases}`, args: "--max-turns\n1" }, ws, runnerEnv());
    expect(r.outputs.run!["is-error"]).toBe("true");
    expect(r.uses.some((u) => u.uses.startsWith("actions/upload-artifact@"))).toBe(true);
    expect(r.failed).toBe(true);
    expect(r.logs).toContain("::error title=yoke::the run ended in error");
  }, 60_000);

  test("prompt-file, a working directory, and an argument holding spaces reach the run", async () => {
    const ws = tempDir("yoke-action-ws-");
    mkdirSync(join(ws, "pkg"));
    writeFileSync(join(ws, "task.md"), "Describe pkg.\n");
    fake.push({ content: [{ type: "text", text: "pkg described" }] });
    const before = fake.requests.length;
    const r = await runAction({ "prompt-file": "task.md", "working-directory": ".", "release-url": `file://${releases}`, args: "--append-system-prompt\nAnswer in one short line." }, ws, runnerEnv());
    expect(r.failed).toBe(false);
    const req = fake.requests[before]!;
    expect(JSON.stringify(req.body.messages)).toContain("Describe pkg.");
    expect(JSON.stringify(req.body.system)).toContain("Answer in one short line.");
  }, 60_000);

  test("no prompt, or a release that fails its checksum, fails the job with a message", async () => {
    const ws = tempDir("yoke-action-ws-");
    const a = await runAction({ "release-url": `file://${releases}` }, ws, runnerEnv());
    expect(a.failed).toBe(true);
    expect(a.logs).toContain("give the action a prompt or a prompt-file");
    const bad = tempDir("yoke-action-bad-");
    const dir = join(bad, "download", `v${pkg.version}`);
    mkdirSync(dir, { recursive: true });
    for (const f of readdirSync(join(releases, "download", `v${pkg.version}`))) copyFileSync(join(releases, "download", `v${pkg.version}`, f), join(dir, f));
    writeFileSync(join(dir, "SHA256SUMS"), readFileSync(join(dir, "SHA256SUMS"), "utf8").replace(/^[0-9a-f]{8}/gm, "00000000"));
    const b = await runAction({ prompt: "x", "release-url": `file://${bad}` }, ws, runnerEnv());
    expect(b.failed).toBe(true);
    expect(b.logs).toContain("checksum mismatch");
    expect(b.outputs.run).toBeUndefined();
  }, 60_000);
});

test("the example workflow runs the action once per matrix task with its own artifact name", () => {
  const wf = parse(readFileSync(join(root, "examples/github-actions/yoke-matrix.yml"), "utf8"));
  const job = wf.jobs.task;
  const step = job.steps.find((s: any) => String(s.uses ?? "").includes("yoke"));
  expect(step.with.prompt).toBe("${{ matrix.task.prompt }}");
  expect(step.with["artifact-name"]).toContain("${{ matrix.task.id }}");
  expect(step.env.ANTHROPIC_API_KEY).toBe("${{ secrets.ANTHROPIC_API_KEY }}");
  expect(job.strategy.matrix.task.length).toBeGreaterThan(1);
  for (const k of Object.keys(step.with)) expect(Object.keys(action.inputs)).toContain(k);
});
