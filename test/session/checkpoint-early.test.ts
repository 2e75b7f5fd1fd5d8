// Issue 21 (tool turns): a Bash call's checkpoint starts reading the working tree (git add -A into the private index)
// beside the call's permission check, not after it. The read is the call's snapshot only when the check allowed the
// call at once and the snapshot is taken in the same tick; when a person or a hook answers (any time later), it is
// dropped and the working tree is read afresh after the answer. Beyond Claude Code (contracts §5.4: git snapshots).
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { createCheckpoints, type Checkpoints } from "../../src/session/checkpoints.ts";
import { runToolCall, type AskPermission, type ToolRunnerDeps } from "../../src/loop/tool-runner.ts";
import { eventPayload } from "../../src/hook/events/index.ts";
import { createPermissionEvaluator } from "../../src/permission/index.ts";
import { defineTool } from "../../src/tool/define-tool.ts";
import { createFileState } from "../../src/tool/file-state.ts";
import { createToolRegistry } from "../../src/tool/registry.ts";
import { newSessionState } from "../../src/tool/types.ts";
import { tableBus } from "../helpers/loop-deps.ts";
import { processes } from "../helpers/process-alive.ts";
import { waitFor } from "../helpers/wait-for.ts";
import { tempDir, tempEnv } from "./helpers.ts";

type Env = Record<string, string | undefined>;

function repo(env: Env): string {
  const dir = tempDir("yoke-early-repo-");
  for (const a of [["init", "-q", "-b", "main"], ["config", "user.email", "t@t"], ["config", "user.name", "t"]]) Bun.spawnSync(["git", ...a], { cwd: dir, env });
  writeFileSync(join(dir, "tracked.txt"), "v1\n");
  Bun.spawnSync(["git", "add", "-A"], { cwd: dir, env });
  Bun.spawnSync(["git", "commit", "-qm", "init"], { cwd: dir, env });
  return dir;
}

/** Checkpoints whose repository is already found (a first turn's snapshot), as in a session's later tool calls. */
async function ready(id: string): Promise<{ cp: Checkpoints; cwd: string; errors: string[]; dir: string }> {
  const { env } = tempEnv();
  const cwd = repo(env);
  const errors: string[] = [];
  const cp = createCheckpoints({ sessionId: id, env, cwd, onError: (m) => errors.push(m) });
  cp.beginTurn("t0");
  await cp.snapshotGit();
  await cp.settled();
  return { cp, cwd, errors, dir: join(env.YOKE_CONFIG_DIR!, "file-history", id) };
}

const refsOf = (cp: Checkpoints, turn: string) => cp.list().find((c) => c.userUuid === turn)!.gitRefs;
// This test process's own git add runs only: another program's on a shared machine (a CI job, a second suite) is
// not ours to wait for, and counting it made the test fail whenever one ran at the same moment.
const gitAddRunning = () => {
  const all = processes();
  const parent = new Map(all.map((p) => [p.pid, p.ppid]));
  const ours = (pid: number) => {
    for (let p: number | undefined = pid, hops = 0; p !== undefined && p > 1 && hops < 64; p = parent.get(p), hops++) if (p === process.pid) return true;
    return false;
  };
  return all.some((p) => p.cmdline.includes("\0add\0-A\0") && p.cmdline.includes("git") && ours(p.pid));
};

describe("the read started beside the permission check", () => {
  test("allowed at once: the snapshot that follows in the same tick is that read (no second git add)", async () => {
    const { cp, errors } = await ready("keep");
    cp.beginTurn("t1");
    const answer = cp.prestageGit();
    answer(true);
    await cp.snapshotGit();
    await cp.settled();
    expect(errors).toEqual([]);
    // The early read took ref number 1; a second read would have taken 2.
    expect(refsOf(cp, "t1")).toEqual(["refs/yoke/checkpoints/keep/1"]);
  });

  test("not allowed at once: dropped, and the snapshot reads the working tree as it is after the answer", async () => {
    const { cp, cwd, errors } = await ready("drop");
    cp.beginTurn("t1");
    const answer = cp.prestageGit();
    // The person answers later; by then the early read is long done and the file has changed.
    await waitFor(() => !gitAddRunning(), "the early git add to finish");
    writeFileSync(join(cwd, "tracked.txt"), "changed while the person read the prompt\n");
    answer(false);
    await cp.snapshotGit();
    writeFileSync(join(cwd, "tracked.txt"), "bash\n");
    await cp.settled();
    expect(errors).toEqual([]);
    expect(refsOf(cp, "t1")).toEqual(["refs/yoke/checkpoints/drop/2"]);
    expect((await cp.rewindFiles("t1")).restored).toEqual([join(cwd, "tracked.txt")]);
    expect(readFileSync(join(cwd, "tracked.txt"), "utf8")).toBe("changed while the person read the prompt\n");
  });

  test("allowed, but the snapshot comes a tick later: the read is not taken", async () => {
    const { cp } = await ready("late");
    cp.beginTurn("t1");
    cp.prestageGit()(true);
    await Promise.resolve();
    await cp.snapshotGit();
    await cp.settled();
    expect(refsOf(cp, "t1")).toEqual(["refs/yoke/checkpoints/late/2"]);
  });

  test("nothing starts before the repository is known, after the turn's snapshot, or beside another read", async () => {
    const { env } = tempEnv();
    const cwd = repo(env);
    const cp = createCheckpoints({ sessionId: "none", env, cwd });
    cp.beginTurn("t0");
    cp.prestageGit()(true); // the repository lookup has not run: no-op
    await cp.snapshotGit();
    await cp.settled();
    expect(refsOf(cp, "t0")).toEqual(["refs/yoke/checkpoints/none/0"]);
    cp.prestageGit()(true); // this turn has its snapshot
    await cp.snapshotGit();
    cp.beginTurn("t1");
    const first = cp.prestageGit();
    cp.prestageGit()(false); // a second one while the first waits: no-op, and it does not drop the first
    first(true);
    await cp.snapshotGit();
    await cp.settled();
    expect(refsOf(cp, "t1")).toEqual(["refs/yoke/checkpoints/none/1"]);
  });
});

// Red team of 9d6d7fb/d97a263: settled() is what the run's end and every rewind wait for. It waited only for seals under
// way, not for a read still running (a snapshot's git add before its seal starts, or a dropped early read's): the run
// could end with that git process running and its private index (a copy of the user's index) left in file-history.
describe("settled waits for the reads under way too", () => {
  const privateIndexes = (dir: string) => readdirSync(dir).filter((f) => f.startsWith("index."));

  test("a dropped early read: its git add has ended and its private index is gone", async () => {
    const { cp, dir, errors } = await ready("dropped-end");
    cp.beginTurn("t1");
    cp.prestageGit()(false);
    await cp.settled();
    expect(gitAddRunning()).toBe(false);
    expect(privateIndexes(dir)).toEqual([]);
    expect(errors).toEqual([]);
  });

  test("a snapshot whose read is still running: settled resolves only with its ref written", async () => {
    const { cp, dir, errors } = await ready("reading-end");
    cp.beginTurn("t1");
    void cp.snapshotGit();
    await cp.settled();
    expect(refsOf(cp, "t1")).toEqual(["refs/yoke/checkpoints/reading-end/1"]);
    expect(privateIndexes(dir)).toEqual([]);
    expect(errors).toEqual([]);
  });

  test("the first snapshot of a session, still finding its repository: the same", async () => {
    const { env } = tempEnv();
    const cwd = repo(env);
    const cp = createCheckpoints({ sessionId: "finding", env, cwd });
    cp.beginTurn("t0");
    void cp.snapshotGit();
    await cp.settled();
    expect(refsOf(cp, "t0")).toEqual(["refs/yoke/checkpoints/finding/0"]);
  });
});

describe("runToolCall tells the check's answer (the wiring of src/cli/loop-wiring.ts)", () => {
  function depsFor(cp: Checkpoints, cwd: string, rules: { allow?: string[]; ask?: string[] }, ask?: AskPermission, hooks = {}) {
    const ran: string[] = [];
    const bash = defineTool({
      name: "Bash",
      description: "stands in for Bash: writes the file",
      input: z.object({ command: z.string() }),
      readOnly: false,
      execute: ({ command }) => {
        writeFileSync(join(cwd, "tracked.txt"), `${command}\n`);
        ran.push(command);
        return { content: "ok" };
      },
    });
    const settings = { permissions: { allow: rules.allow ?? [], deny: [], ask: rules.ask ?? [] } };
    const session = newSessionState(cwd);
    const deps: ToolRunnerDeps = {
      tools: createToolRegistry([bash]),
      hooks: tableBus(hooks).bus,
      permissions: createPermissionEvaluator({ settings: { merged: settings, sources: [{ level: "local", path: "rules.json", ruleRoot: cwd, settings }] }, mode: "default", cwd }),
      hookPayload: (event, fields) => eventPayload(event, {}, fields),
      context: (toolUseId, signal) => ({ cwd, projectDir: cwd, workingDirectories: [cwd], sessionId: "s", signal, env: {}, fileState: createFileState(), session, toolUseId }),
      askPermission: ask,
      clock: () => 0,
      beforePermission: (name) => (name === "Bash" ? cp.prestageGit() : undefined),
      beforeToolRun: async (name) => {
        if (name === "Bash") await cp.snapshotGit();
      },
    };
    return { deps, ran };
  }
  const call = { type: "tool_use" as const, id: "toolu_1", name: "Bash", input: { command: "bash wrote this" } };

  test("an allowed call snapshots with the early read", async () => {
    const { cp, cwd } = await ready("run-allow");
    cp.beginTurn("t1");
    const { deps, ran } = depsFor(cp, cwd, { allow: ["Bash"] });
    await runToolCall(deps, call, new AbortController().signal);
    await cp.settled();
    expect(ran).toEqual(["bash wrote this"]);
    expect(refsOf(cp, "t1")).toEqual(["refs/yoke/checkpoints/run-allow/1"]);
    await cp.rewindFiles("t1");
    expect(readFileSync(join(cwd, "tracked.txt"), "utf8")).toBe("v1\n");
  });

  test("a call a person approves snapshots what the files are after the approval", async () => {
    const { cp, cwd } = await ready("run-ask");
    cp.beginTurn("t1");
    const ask: AskPermission = async () => {
      await waitFor(() => !gitAddRunning(), "the early git add to finish");
      writeFileSync(join(cwd, "tracked.txt"), "edited while asked\n");
      return { allow: true };
    };
    const { deps, ran } = depsFor(cp, cwd, { ask: ["Bash"] }, ask);
    await runToolCall(deps, call, new AbortController().signal);
    await cp.settled();
    expect(ran).toEqual(["bash wrote this"]);
    expect(refsOf(cp, "t1")).toEqual(["refs/yoke/checkpoints/run-ask/2"]);
    await cp.rewindFiles("t1");
    expect(readFileSync(join(cwd, "tracked.txt"), "utf8")).toBe("edited while asked\n");
  });

  test("a call a PreToolUse hook denies never starts a read; a denied call's read is dropped", async () => {
    const { cp, cwd } = await ready("run-deny");
    cp.beginTurn("t1");
    const hooked = depsFor(cp, cwd, { allow: ["Bash"] }, undefined, { PreToolUse: () => ({ permissionDecision: "deny", permissionDecisionReason: "no" }) });
    await runToolCall(hooked.deps, call, new AbortController().signal);
    const denied = depsFor(cp, cwd, {}, async () => ({ allow: false }));
    await runToolCall(denied.deps, call, new AbortController().signal);
    await cp.settled();
    expect([...hooked.ran, ...denied.ran]).toEqual([]);
    expect(refsOf(cp, "t1")).toEqual([]);
    // The next allowed call of the turn reads afresh (the denied call's read was ref 1).
    const ok = depsFor(cp, cwd, { allow: ["Bash"] });
    await runToolCall(ok.deps, call, new AbortController().signal);
    await cp.settled();
    expect(refsOf(cp, "t1")).toEqual(["refs/yoke/checkpoints/run-deny/2"]);
  });
});
