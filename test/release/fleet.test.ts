/**
 * Issue 18 point 4: the Indexed Job's contract, proved locally. deploy/fleet/yoke-task.sh (the Job's entrypoint)
 * runs for indexes 0..N-1 as parallel process groups against the fake API, which injects 429/529 faults and
 * SIGKILLs some "pods" in the middle of their first request; then retry passes run the missing indexes, as
 * backoffLimitPerIndex would. Every task ends with one result, none is lost, and none runs twice to completion:
 * the fake counts each task's final answer, and a pass over finished tasks sends no request at all.
 * The manifests in deploy/k8s are validated against the Kubernetes schemas (kubernetes-models).
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { fakeApiEnv, startFakeAnthropic, type FakeAnthropic, type LoggedRequest } from "../helpers/fake-anthropic.ts";
import { isolatedEnv, repoRoot, yokeBin } from "../helpers/binary.ts";
import { tempDir } from "../helpers/tmp.ts";

// Each test runs the compiled binary (and packs or installs it): seconds on a loaded machine.
setDefaultTimeout(60_000);

const N = 20;
const script = join(repoRoot(), "deploy/fleet/yoke-task.sh");
let fake: FakeAnthropic;
beforeAll(async () => {
  yokeBin();
  fake = await startFakeAnthropic();
});
afterAll(() => fake.stop());

const firstUserText = (req: LoggedRequest): string => {
  const c = req.body?.messages?.[0]?.content;
  return typeof c === "string" ? c : Array.isArray(c) ? c.filter((b: any) => b.type === "text").map((b: any) => b.text).join("\n") : "";
};

/** A deterministic RNG, so a failing run can be replayed. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

describe("the fleet entrypoint (Indexed Job contract)", () => {
  test(`${N} tasks in parallel with 429/529 faults and killed pods, then retries: one result each, none lost, none twice`, async () => {
    const tasks = tempDir("yoke-fleet-tasks-");
    const results = tempDir("yoke-fleet-results-");
    const work = tempDir("yoke-fleet-work-");
    const state = tempDir("yoke-fleet-state-");
    for (let i = 0; i < N; i++) writeFileSync(join(tasks, `task-${i}`), `TASK ${i}: write ${join(work, `task-${i}`, "out.txt")}\n`);
    const random = rng(18);
    const victims = new Set([2, 7, 11, 16]);
    const killed = new Set<number>();
    const finals = new Map<number, number>();
    const procs = new Map<number, Bun.Subprocess>();
    let faults = 0;
    const router = (req: LoggedRequest) => {
      const m = /TASK (\d+): write (\S+)/.exec(firstUserText(req));
      if (!m) return { content: [{ type: "text" as const, text: "ok" }] };
      const i = Number(m[1]);
      if (victims.has(i) && !killed.has(i)) {
        killed.add(i);
        // The pod dies mid-request: its whole process group, as a node loss or eviction would do it.
        process.kill(-procs.get(i)!.pid, "SIGKILL");
        return { fault: "hang" as const };
      }
      if (random() < 0.2) {
        faults++;
        return random() < 0.5 ? { fault: 529 as const } : { fault: 429 as const, retryAfter: 0 };
      }
      const last = req.body.messages.at(-1);
      if (Array.isArray(last.content) && last.content.some((b: any) => b.type === "tool_result")) {
        finals.set(i, (finals.get(i) ?? 0) + 1);
        return { content: [{ type: "text" as const, text: `task ${i} done` }] };
      }
      return { content: [{ type: "tool_use" as const, name: "Write", input: { file_path: m[2]!, content: `out ${i}\n` } }] };
    };
    for (let k = 0; k < 400; k++) fake.push(router);

    const env = (i: number) =>
      isolatedEnv({
        ...fakeApiEnv(fake),
        JOB_COMPLETION_INDEX: String(i),
        YOKE_TASKS_DIR: tasks,
        YOKE_RESULTS_DIR: results,
        YOKE_WORKSPACES_DIR: work,
        YOKE_CONFIG_DIR: state,
        YOKE_BIN: yokeBin(),
        YOKE_FLEET: "test-fleet",
        YOKE_SETTINGS: JSON.stringify({ permissions: { allow: ["Write"] } }),
        YOKE_RETRY_BASE_MS: "5",
      });
    const runPass = async (indexes: number[]) => {
      const out = await Promise.all(
        indexes.map(async (i) => {
          const p = Bun.spawn(["sh", script], { env: env(i), stdout: "pipe", stderr: "pipe", detached: true });
          procs.set(i, p);
          const [stderr, code] = await Promise.all([new Response(p.stderr).text(), p.exited]);
          return { i, code, stderr, signal: p.signalCode };
        }),
      );
      return out;
    };

    const all = Array.from({ length: N }, (_, i) => i);
    const first = await runPass(all);
    for (const r of first.filter((x) => victims.has(x.i))) expect(r.signal).toBe("SIGKILL");
    for (const r of first.filter((x) => !victims.has(x.i))) expect({ i: r.i, code: r.code, stderr: r.stderr }).toEqual({ i: r.i, code: 0, stderr: expect.any(String) });
    const missing = all.filter((i) => !existsSync(join(results, `task-${i}`, "result.json")));
    expect(missing.sort((a, b) => a - b)).toEqual([...victims].sort((a, b) => a - b));

    // The retry pass, as backoffLimitPerIndex runs it: only the failed indexes; each resumes its session.
    const retry = await runPass(missing);
    for (const r of retry) {
      expect(r.stderr).toContain(`task ${r.i} resumes session`);
      expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
    }

    for (const i of all) {
      const res = JSON.parse(readFileSync(join(results, `task-${i}`, "result.json"), "utf8"));
      expect({ i, type: res.type, is_error: res.is_error, result: res.result }).toEqual({ i, type: "result", is_error: false, result: `task ${i} done` });
      expect(readFileSync(join(work, `task-${i}`, "out.txt"), "utf8")).toBe(`out ${i}\n`);
      expect(finals.get(i)).toBe(1);
    }
    expect(faults).toBeGreaterThan(0);

    // A pass over finished tasks (a duplicate pod, a re-applied Job) runs nothing.
    const before = fake.requests.length;
    const again = await runPass(all);
    for (const r of again) {
      expect(r.code).toBe(0);
      expect(r.stderr).toContain("already has its result");
    }
    expect(fake.requests.length).toBe(before);
  }, 180_000);

  test("bad setup exits 2 (the Job's podFailurePolicy fails the index without retrying)", async () => {
    const tasks = tempDir("yoke-fleet-bad-");
    for (const [idx, msg] of [["", "JOB_COMPLETION_INDEX must be a number"], ["x1", "JOB_COMPLETION_INDEX must be a number"], ["4", "no task file"]] as const) {
      const p = Bun.spawnSync(["sh", script], { env: isolatedEnv({ JOB_COMPLETION_INDEX: idx, YOKE_TASKS_DIR: tasks, YOKE_RESULTS_DIR: tempDir("yoke-fleet-r-"), YOKE_BIN: yokeBin() }), stderr: "pipe" });
      expect(p.exitCode).toBe(2);
      expect(p.stderr.toString()).toContain(msg);
    }
  });

  test("a failed run keeps its output and leaves no result, so the retry runs the task again", async () => {
    const tasks = tempDir("yoke-fleet-f-");
    const results = tempDir("yoke-fleet-fr-");
    writeFileSync(join(tasks, "task-0"), "TASK-F: fail please\n");
    const own = await startFakeAnthropic({ script: [{ fault: 400, message: "bad request for the test" }] });
    const p = Bun.spawn(["sh", script], { env: isolatedEnv({ ...fakeApiEnv(own), JOB_COMPLETION_INDEX: "0", YOKE_TASKS_DIR: tasks, YOKE_RESULTS_DIR: results, YOKE_BIN: yokeBin() }), stderr: "pipe" });
    expect(await p.exited).toBe(1);
    await own.stop();
    const files = readdirSync(join(results, "task-0"));
    expect(files).not.toContain("result.json");
    expect(files.some((f) => f.startsWith("failed-"))).toBe(true);
  });
});

describe("deploy/k8s manifests", () => {
  const dir = join(repoRoot(), "deploy/k8s");
  const kustom = parseAllDocuments(readFileSync(join(dir, "kustomization.yaml"), "utf8"))[0]!.toJS();
  const docs = (kustom.resources as string[]).flatMap((f) => parseAllDocuments(readFileSync(join(dir, f), "utf8")).map((d) => d.toJS()));

  test("every resource validates against the Kubernetes schemas", async () => {
    const { Job } = await import("kubernetes-models/batch/v1/Job");
    const { PersistentVolumeClaim } = await import("kubernetes-models/v1/PersistentVolumeClaim");
    const kinds: Record<string, new (x: any) => { validate(): void }> = { Job, PersistentVolumeClaim };
    for (const d of docs) {
      expect(kinds[d.kind]).toBeDefined();
      expect(() => new kinds[d.kind]!(d).validate()).not.toThrow();
    }
  });

  test("the Job fans out by index, retries per index, has a deadline, and its tasks and settings exist", () => {
    const job = docs.find((d) => d.kind === "Job")!;
    expect(job.spec.completionMode).toBe("Indexed");
    expect(job.spec.backoffLimitPerIndex).toBeGreaterThan(0);
    expect(job.spec.activeDeadlineSeconds).toBeGreaterThan(0);
    const taskFiles = kustom.configMapGenerator.find((g: any) => g.name === "yoke-tasks").files as string[];
    expect(job.spec.completions).toBe(taskFiles.length);
    for (const f of [...taskFiles, "settings.json"]) expect(existsSync(join(dir, f))).toBe(true);
    JSON.parse(readFileSync(join(dir, "settings.json"), "utf8"));
    const c = job.spec.template.spec.containers[0];
    expect(c.command.at(-1)).toBe("/usr/local/bin/yoke-task");
    const env = Object.fromEntries(c.env.map((e: any) => [e.name, e.value ?? e.valueFrom]));
    expect(env.ANTHROPIC_API_KEY.secretKeyRef.name).toBe("yoke-api");
    // Sessions on the results volume, so the retried pod resumes.
    const mounts = Object.fromEntries(c.volumeMounts.map((m: any) => [m.name, m.mountPath]));
    expect(env.YOKE_CONFIG_DIR.startsWith(mounts.results)).toBe(true);
    expect(c.securityContext.readOnlyRootFilesystem).toBe(true);
    expect(job.spec.template.spec.securityContext.runAsNonRoot).toBe(true);
  });
});
