// Issue 21 (tool turns): a Bash call waits only for its git snapshot to read the working tree (`git add -A` into a
// private index); the snapshot's tree and ref are written while the command runs. These tests hold the ref's write
// with a ref lock (git retries a locked ref for core.filesRefLockTimeout), so "the command may start before the ref
// exists" is shown by barriers, never by timing. Checkpoints with git snapshots go beyond Claude Code (contracts §5.4).
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createCheckpoints } from "../../src/session/checkpoints.ts";
import { createSessionStore } from "../../src/session/store.ts";
import { loadTranscript } from "../../src/session/load.ts";
import { tempDir, tempEnv } from "./helpers.ts";
import { waitFor } from "../helpers/wait-for.ts";
import { processes } from "../helpers/process-alive.ts";

type Env = Record<string, string | undefined>;

const sh = (cwd: string, env: Env, ...args: string[]): { code: number; out: string } => {
  const r = Bun.spawnSync(["git", ...args], { cwd, env, stdout: "pipe", stderr: "pipe" });
  return { code: r.exitCode, out: r.stdout.toString().trim() };
};

function repo(env: Env): string {
  const dir = tempDir("yoke-seal-repo-");
  for (const a of [["init", "-q", "-b", "main"], ["config", "user.email", "t@t"], ["config", "user.name", "t"], ["config", "core.filesRefLockTimeout", "60000"]])
    expect(sh(dir, env, ...a).code).toBe(0);
  writeFileSync(join(dir, "tracked.txt"), "v1\n");
  expect(sh(dir, env, "add", "-A").code).toBe(0);
  expect(sh(dir, env, "commit", "-qm", "init").code).toBe(0);
  return dir;
}

/** Holds `git update-ref <ref>` (it retries the lock) until the returned function is called. */
function lockRef(cwd: string, ref: string): () => void {
  const lock = join(cwd, ".git", `${ref}.lock`);
  mkdirSync(join(lock, ".."), { recursive: true });
  writeFileSync(lock, "");
  return () => rmSync(lock, { force: true });
}

const refExists = (cwd: string, env: Env, ref: string) => sh(cwd, env, "rev-parse", "--verify", "-q", ref).code === 0;

test("snapshotGit resolves once the working tree is read; the ref and transcript line follow, and hold the state before the command", async () => {
  const { env } = tempEnv();
  const cwd = repo(env);
  const store = createSessionStore({ cwd, sessionId: "seal", env });
  const errors: string[] = [];
  const cp = createCheckpoints({ sessionId: "seal", env, cwd, store, onError: (m) => errors.push(m) });
  const ref = "refs/yoke/checkpoints/seal/0";
  const unlock = lockRef(cwd, ref);
  cp.beginTurn("t1");
  let staged = false;
  void cp.snapshotGit().then(() => (staged = true));
  // Before the change this waited for update-ref, which waits for the lock: the Bash command could not start.
  await waitFor(() => staged, "snapshotGit to resolve while the snapshot's ref is still held");
  expect(refExists(cwd, env, ref)).toBe(false);

  // What the Bash command does, after snapshotGit resolved.
  writeFileSync(join(cwd, "tracked.txt"), "bash\n");
  writeFileSync(join(cwd, "made.txt"), "m\n");
  // A rewind asked for meanwhile waits for the snapshot instead of missing it.
  const dry = cp.rewindFiles("t1", { dryRun: true });
  unlock();
  expect(await dry).toEqual({ restored: [join(cwd, "tracked.txt")], deleted: [join(cwd, "made.txt")], errors: [] });
  await cp.settled();
  expect(errors).toEqual([]);
  expect(cp.list()[0]!.gitRefs).toEqual([ref]);
  expect(sh(cwd, env, "cat-file", "-t", ref).out).toBe("tree");
  store.close();
  const lines = loadTranscript(store.path).meta.filter((m) => m.gitCheckpoint);
  expect(lines.map((m) => (m.gitCheckpoint as { ref: string }).ref)).toEqual([ref]);

  // A resumed session rewinds from it.
  const again = createCheckpoints({ sessionId: "seal", env, cwd, meta: loadTranscript(store.path).meta });
  expect(await again.rewindFiles("t1")).toEqual({ restored: [join(cwd, "tracked.txt")], deleted: [join(cwd, "made.txt")], errors: [] });
  expect(readFileSync(join(cwd, "tracked.txt"), "utf8")).toBe("v1\n");
  expect(existsSync(join(cwd, "made.txt"))).toBe(false);
});

test("the turn's other Bash calls wait for the snapshot under way, and take none of their own", async () => {
  const { env } = tempEnv();
  const cwd = repo(env);
  const cp = createCheckpoints({ sessionId: "two", env, cwd });
  const unlock = lockRef(cwd, "refs/yoke/checkpoints/two/0");
  cp.beginTurn("t1");
  // Two calls at once (concurrency-safe Bash commands run side by side): one snapshot, both wait for its read.
  await Promise.all([cp.snapshotGit(), cp.snapshotGit()]);
  writeFileSync(join(cwd, "tracked.txt"), "bash\n");
  await cp.snapshotGit(); // a later call of the same turn, while the first snapshot is still being written
  unlock();
  await cp.settled();
  expect(cp.list()[0]!.gitRefs).toEqual(["refs/yoke/checkpoints/two/0"]);
  expect(sh(cwd, env, "for-each-ref", "--format=%(refname)", "refs/yoke").out).toBe("refs/yoke/checkpoints/two/0");
  expect((await cp.rewindFiles("t1")).restored).toEqual([join(cwd, "tracked.txt")]);
});

test("a turn dropped (maxCheckpoints) while its snapshot was being written leaves no ref behind", async () => {
  const { env } = tempEnv();
  const cwd = repo(env);
  const cp = createCheckpoints({ sessionId: "drop", env, cwd, maxCheckpoints: 1 });
  const unlock = lockRef(cwd, "refs/yoke/checkpoints/drop/0");
  cp.beginTurn("t1");
  await cp.snapshotGit();
  cp.beginTurn("t2"); // t1 is dropped before its ref exists
  unlock();
  await cp.settled();
  expect(cp.list().map((c) => c.userUuid)).toEqual(["t2"]);
  expect(refExists(cwd, env, "refs/yoke/checkpoints/drop/0")).toBe(false);
});

test("objects pruned at once by the command before the ref exists: the snapshot fails and says so, and the next Bash call snapshots again", async () => {
  const { env } = tempEnv();
  const cwd = repo(env);
  const errors: string[] = [];
  const cp = createCheckpoints({ sessionId: "gc", env, cwd, onError: (m) => errors.push(m) });
  writeFileSync(join(cwd, "new.txt"), "only in the snapshot's objects\n");
  const ref = "refs/yoke/checkpoints/gc/0";
  const unlock = lockRef(cwd, ref);
  cp.beginTurn("t1");
  await cp.snapshotGit();
  // The tree is written and update-ref waits for its lock: then the command prunes every unreachable object at once
  // (what `git gc --prune=now` does), the snapshot's new blob and tree among them.
  await waitFor(() => processes().some((p) => p.cmdline.includes("update-ref\0" + ref)), "the snapshot's update-ref to wait for its lock");
  expect(sh(cwd, env, "prune", "--expire=now").code).toBe(0);
  unlock();
  await cp.settled();
  expect(errors).toEqual([expect.stringMatching(/git update-ref refs\/yoke\/checkpoints\/gc\/0 failed: .*Bash changes in this turn cannot be rewound/s)]);
  expect(cp.list()[0]!.gitRefs).toEqual([]);
  expect(refExists(cwd, env, ref)).toBe(false);
  await cp.snapshotGit();
  await cp.settled();
  expect(cp.list()[0]!.gitRefs).toEqual(["refs/yoke/checkpoints/gc/1"]);
});

/**
 * This process's git children, and the /bin/sh that runs the seal's two git steps (not the watchdog's sh), zombies
 * included (an exited child stays one until the event loop reaps it; a zombie's command line is empty, so any zombie sh).
 */
function gitChildren(): number[] {
  const out: number[] = [];
  for (const e of readdirSync("/proc")) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const st = readFileSync(`/proc/${e}/stat`, "utf8");
      const comm = st.slice(st.indexOf("(") + 1, st.lastIndexOf(")"));
      const ppid = Number(st.slice(st.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid !== process.pid) continue;
      const shell = comm === "sh" || comm === "dash" || comm === "bash";
      const state = st.slice(st.lastIndexOf(")") + 2).split(" ")[0];
      if (comm === "git" || (shell && (state === "Z" || readFileSync(`/proc/${e}/cmdline`, "utf8").includes("write-tree")))) out.push(Number(e));
    } catch {}
  }
  return out;
}

test.if(process.platform === "linux")("the seal's git starts after snapshotGit's continuation, where the Bash tool spawns its shell: the command goes first", async () => {
  const { env } = tempEnv();
  const cwd = repo(env);
  const cp = createCheckpoints({ sessionId: "order", env, cwd });
  cp.beginTurn("t1");
  await cp.snapshotGit();
  // The continuation of the same tick: the Bash tool's spawn happens here. Before, the seal's write-tree had been
  // spawned before snapshotGit resolved (seen here running or as a zombie), and the command's shell waited behind it.
  expect(gitChildren()).toEqual([]);
  await cp.settled();
  expect(cp.list()[0]!.gitRefs).toEqual(["refs/yoke/checkpoints/order/0"]);
  expect(refExists(cwd, env, "refs/yoke/checkpoints/order/0")).toBe(true);
});

test("the seal's script takes the ref as data: a session id with spaces, quotes and $(…) makes no file and fails naming update-ref", async () => {
  const { env } = tempEnv();
  const cwd = repo(env);
  const errors: string[] = [];
  const sessionId = `x $(touch pwned) "q" ;touch pwned2`;
  const cp = createCheckpoints({ sessionId, env, cwd, onError: (m) => errors.push(m) });
  cp.beginTurn("t1");
  await cp.snapshotGit();
  await cp.settled();
  expect(existsSync(join(cwd, "pwned"))).toBe(false);
  expect(existsSync(join(cwd, "pwned2"))).toBe(false);
  // git refuses the ref name (a space); the step is named, as with two separate git calls.
  expect(errors).toEqual([expect.stringContaining(`git update-ref refs/yoke/checkpoints/${sessionId}/0 failed: `)]);
  expect(cp.list()[0]!.gitRefs).toEqual([]);
});

test("a write-tree that fails (its blob pruned before the seal) is said as write-tree's failure, not update-ref's; no ref is left", async () => {
  const { env } = tempEnv();
  const cwd = repo(env);
  const errors: string[] = [];
  const cp = createCheckpoints({ sessionId: "wt", env, cwd, onError: (m) => errors.push(m) });
  writeFileSync(join(cwd, "new.txt"), "only in the snapshot's objects\n");
  cp.beginTurn("t1");
  await cp.snapshotGit();
  // snapshotGit's continuation, before the seal starts (the test above): a synchronous prune removes the new blob the
  // private index names, so write-tree cannot build the tree.
  expect(sh(cwd, env, "prune", "--expire=now").code).toBe(0);
  await cp.settled();
  expect(errors).toEqual([expect.stringMatching(/: git write-tree failed: .*new\.txt.*Bash changes in this turn cannot be rewound/s)]);
  expect(errors[0]).not.toContain("update-ref");
  expect(cp.list()[0]!.gitRefs).toEqual([]);
  expect(refExists(cwd, env, "refs/yoke/checkpoints/wt/0")).toBe(false);
});

test.if(process.platform === "linux")("the seal is one process start from yoke: write-tree and update-ref run under one /bin/sh, its child", async () => {
  const { env } = tempEnv();
  const cwd = repo(env);
  const cp = createCheckpoints({ sessionId: "one", env, cwd });
  const ref = "refs/yoke/checkpoints/one/0";
  const unlock = lockRef(cwd, ref);
  cp.beginTurn("t1");
  await cp.snapshotGit();
  // update-ref waits for its lock: then who started it can be read. Before, yoke started it itself (a second start).
  const updateRef = await waitFor(() => processes().find((p) => p.cmdline.includes("update-ref\0" + ref)), "the seal's update-ref to wait for its lock");
  const parent = processes().find((p) => p.pid === updateRef.ppid);
  expect(updateRef.ppid).not.toBe(process.pid);
  expect(parent?.ppid).toBe(process.pid);
  expect(parent?.cmdline).toContain("write-tree");
  unlock();
  await cp.settled();
  expect(cp.list()[0]!.gitRefs).toEqual([ref]);
  expect(refExists(cwd, env, ref)).toBe(true);
});
