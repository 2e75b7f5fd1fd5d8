import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync, chmodSync } from "node:fs";
import { join } from "node:path";
import { createCheckpoints } from "../../src/session/checkpoints.ts";
import { createSessionStore } from "../../src/session/store.ts";
import { loadTranscript } from "../../src/session/load.ts";
import { tempDir, tempEnv } from "./helpers.ts";
import { waitFor } from "../helpers/wait-for.ts";

type Env = Record<string, string | undefined>;

const sh = (cwd: string, env: Env, ...args: string[]): string => {
  const r = Bun.spawnSync(["git", ...args], { cwd, env, stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr.toString()}`);
  return r.stdout.toString().trim();
};

function repo(env: Env): string {
  const dir = tempDir("yoke-cp-repo-");
  sh(dir, env, "init", "-q", "-b", "main");
  sh(dir, env, "config", "user.email", "t@t");
  sh(dir, env, "config", "user.name", "t");
  writeFileSync(join(dir, "tracked.txt"), "v1\n");
  writeFileSync(join(dir, ".gitignore"), "ignored/\n");
  sh(dir, env, "add", "-A");
  sh(dir, env, "commit", "-qm", "init");
  return dir;
}

describe("file checkpoints (contracts §5.4)", () => {
  test("restores edited files and deletes created ones, per turn, with dry run", async () => {
    const { env } = tempEnv();
    const cwd = tempDir("yoke-cp-");
    const store = createSessionStore({ cwd, sessionId: "sess", env });
    const cp = createCheckpoints({ sessionId: "sess", env, cwd, store });
    const a = join(cwd, "a.txt");
    const b = join(cwd, "sub", "b.txt");
    writeFileSync(a, "a0");
    chmodSync(a, 0o755);

    cp.beginTurn("turn1");
    await cp.beforeFileChange(a);
    writeFileSync(a, "a1");
    await cp.beforeFileChange(a); // second change in the same turn keeps the first backup
    writeFileSync(a, "a1b");

    cp.beginTurn("turn2");
    await cp.beforeFileChange(a);
    writeFileSync(a, "a2");
    await cp.beforeFileChange(b);
    mkdirSync(join(cwd, "sub"));
    writeFileSync(b, "new");

    expect(cp.list().map((c) => [c.userUuid, c.files])).toEqual([
      ["turn1", [a]],
      ["turn2", [a, b]],
    ]);
    const blobs = readdirSync(join(env.YOKE_CONFIG_DIR!, "file-history", "sess"));
    expect(blobs.some((f) => /^[0-9a-f]{64}$/.test(f))).toBe(true);

    const dry = await cp.rewindFiles("turn2", { dryRun: true });
    expect(dry).toEqual({ restored: [a], deleted: [b], errors: [] });
    expect(readFileSync(a, "utf8")).toBe("a2");

    const r2 = await cp.rewindFiles("turn2");
    expect(r2).toEqual({ restored: [a], deleted: [b], errors: [] });
    expect(readFileSync(a, "utf8")).toBe("a1b");
    expect(existsSync(b)).toBe(false);

    const r1 = await cp.rewindFiles("turn1");
    expect(r1.restored).toEqual([a]);
    expect(readFileSync(a, "utf8")).toBe("a0");
    expect(statSync(a).mode & 0o777).toBe(0o755);

    expect((await cp.rewindFiles("unknown")).errors[0]).toContain("unknown");

    // metadata went to the transcript and rebuilds an equivalent checkpoint set after a restart
    store.close();
    const { meta } = loadTranscript(store.path);
    expect(meta.filter((m) => m.type === "file-history-snapshot").length).toBeGreaterThanOrEqual(4);
    const again = createCheckpoints({ sessionId: "sess", env, cwd, meta });
    expect(again.list().map((c) => [c.userUuid, c.files])).toEqual([
      ["turn1", [a]],
      ["turn2", [a, b]],
    ]);
    writeFileSync(a, "changed after restart");
    expect((await again.rewindFiles("turn1")).restored).toEqual([a]);
    expect(readFileSync(a, "utf8")).toBe("a0");
  });

  test("changes before the first turn are not tracked and a non-repo git snapshot is a no-op", async () => {
    const { env } = tempEnv();
    const cwd = tempDir("yoke-cp-");
    const cp = createCheckpoints({ sessionId: "s", env, cwd });
    await cp.beforeFileChange(join(cwd, "x"));
    cp.beginTurn("t1");
    await cp.snapshotGit();
    expect(cp.list()).toEqual([{ userUuid: "t1", index: 0, timestamp: cp.list()[0]!.timestamp, files: [], gitRefs: [] }]);
  });
});

describe("git working-tree checkpoints (beyond Claude Code)", () => {
  test("rewinds Bash changes without touching the user's index, HEAD, branches or stash", async () => {
    const { env } = tempEnv();
    const cwd = repo(env);
    const errors: string[] = [];
    const cp = createCheckpoints({ sessionId: "sess", env, cwd, onError: (m) => errors.push(m) });
    writeFileSync(join(cwd, "staged.txt"), "staged\n");
    sh(cwd, env, "add", "staged.txt");
    writeFileSync(join(cwd, "untracked.txt"), "u0\n");
    mkdirSync(join(cwd, "ignored"));
    writeFileSync(join(cwd, "ignored", "cache"), "c0\n");
    const head = sh(cwd, env, "rev-parse", "HEAD");
    const status = sh(cwd, env, "status", "--porcelain");
    const refsBefore = sh(cwd, env, "for-each-ref", "--format=%(refname)", "refs/heads", "refs/stash", "refs/tags");

    cp.beginTurn("t1");
    await cp.snapshotGit();
    await cp.settled();
    expect(errors).toEqual([]);
    expect(cp.list()[0]!.gitRefs).toEqual(["refs/yoke/checkpoints/sess/0"]);
    expect(sh(cwd, env, "rev-parse", "HEAD")).toBe(head);
    expect(sh(cwd, env, "status", "--porcelain")).toBe(status);
    expect(sh(cwd, env, "for-each-ref", "--format=%(refname)", "refs/heads", "refs/stash", "refs/tags")).toBe(refsBefore);

    // what a Bash command might do
    writeFileSync(join(cwd, "tracked.txt"), "v2\n");
    writeFileSync(join(cwd, "untracked.txt"), "u1\n");
    Bun.spawnSync(["rm", join(cwd, "staged.txt")]);
    mkdirSync(join(cwd, "newdir"));
    writeFileSync(join(cwd, "newdir", "made.txt"), "m\n");
    writeFileSync(join(cwd, "ignored", "cache"), "c1\n");

    const dry = await cp.rewindFiles("t1", { dryRun: true });
    expect(dry.errors).toEqual([]);
    expect(dry.deleted).toEqual([join(cwd, "newdir", "made.txt")]);
    expect(dry.restored).toEqual([join(cwd, "staged.txt"), join(cwd, "tracked.txt"), join(cwd, "untracked.txt")]);
    expect(readFileSync(join(cwd, "tracked.txt"), "utf8")).toBe("v2\n");

    const r = await cp.rewindFiles("t1");
    expect(r).toEqual(dry);
    expect(readFileSync(join(cwd, "tracked.txt"), "utf8")).toBe("v1\n");
    expect(readFileSync(join(cwd, "untracked.txt"), "utf8")).toBe("u0\n");
    expect(readFileSync(join(cwd, "staged.txt"), "utf8")).toBe("staged\n");
    expect(existsSync(join(cwd, "newdir", "made.txt"))).toBe(false);
    expect(readFileSync(join(cwd, "ignored", "cache"), "utf8")).toBe("c1\n"); // ignored files are left alone
    // the user's index still has exactly what they staged
    expect(sh(cwd, env, "diff", "--cached", "--name-only")).toBe("staged.txt");
    expect(sh(cwd, env, "status", "--porcelain")).toBe(status);
  });

  test("file-tool backups and git snapshots combine: the oldest state since the turn wins", async () => {
    const { env } = tempEnv();
    const cwd = repo(env);
    const cp = createCheckpoints({ sessionId: "mix", env, cwd });
    const t = join(cwd, "tracked.txt");
    const ign = join(cwd, "ignored", "log");
    mkdirSync(join(cwd, "ignored"));
    writeFileSync(ign, "i0");
    cp.beginTurn("t1");
    await cp.beforeFileChange(t); // Edit tool first
    writeFileSync(t, "edited\n");
    await cp.snapshotGit(); // then Bash
    writeFileSync(t, "bashed\n");
    writeFileSync(ign, "i1");
    cp.beginTurn("t2");
    await cp.beforeFileChange(ign); // an ignored file edited after the snapshot: only the backup knows it
    writeFileSync(ign, "i2");
    await cp.snapshotGit();
    writeFileSync(join(cwd, "late.txt"), "late");

    const r2 = await cp.rewindFiles("t2");
    expect(r2).toEqual({ restored: [ign], deleted: [join(cwd, "late.txt")], errors: [] });
    expect(readFileSync(ign, "utf8")).toBe("i1");
    expect(readFileSync(t, "utf8")).toBe("bashed\n");

    const r1 = await cp.rewindFiles("t1");
    expect(r1.errors).toEqual([]);
    expect(readFileSync(t, "utf8")).toBe("v1\n");
    expect(r1.restored).toContain(t);
  });
});

test("only the last maxCheckpoints turns stay rewindable; dropped git refs are deleted (contracts §5.4)", async () => {
  const { env } = tempEnv();
  const cwd = repo(env);
  const cp = createCheckpoints({ sessionId: "lim", env, cwd, maxCheckpoints: 2 });
  for (const t of ["t1", "t2", "t3"]) {
    cp.beginTurn(t);
    await cp.snapshotGit();
  }
  expect(cp.list().map((c) => c.userUuid)).toEqual(["t2", "t3"]);
  expect((await cp.rewindFiles("t1")).errors.length).toBe(1);
  const refs = () => sh(cwd, env, "for-each-ref", "--format=%(refname)", "refs/yoke/checkpoints/lim");
  await waitFor(() => !refs().includes("/0"), "the oldest checkpoint ref to be dropped");
  expect(refs().split("\n")).toEqual(["refs/yoke/checkpoints/lim/1", "refs/yoke/checkpoints/lim/2"]);
});

test("git checkpoints survive a restart through the transcript and new refs never reuse old numbers", async () => {
  const { env } = tempEnv();
  const cwd = repo(env);
  const store = createSessionStore({ cwd, sessionId: "rs", env });
  const cp = createCheckpoints({ sessionId: "rs", env, cwd, store });
  cp.beginTurn("t1");
  await cp.snapshotGit();
  writeFileSync(join(cwd, "tracked.txt"), "bash wrote this\n");
  await cp.settled();
  store.close();

  const again = createCheckpoints({ sessionId: "rs", env, cwd, store, meta: loadTranscript(store.path).meta });
  again.beginTurn("t2");
  await again.snapshotGit();
  await again.settled();
  expect(again.list().map((c) => c.gitRefs)).toEqual([["refs/yoke/checkpoints/rs/0"], ["refs/yoke/checkpoints/rs/1"]]);
  const r = await again.rewindFiles("t1");
  expect(r).toEqual({ restored: [join(cwd, "tracked.txt")], deleted: [], errors: [] });
  expect(readFileSync(join(cwd, "tracked.txt"), "utf8")).toBe("v1\n");
});

describe("git snapshots, cheaper (issue 21)", () => {
  test("a turn's second Bash call takes no snapshot: the first one restores what both Bash calls changed", async () => {
    const { env } = tempEnv();
    const cwd = repo(env);
    const cp = createCheckpoints({ sessionId: "once", env, cwd });
    const t = join(cwd, "tracked.txt");
    cp.prepare(); // a tool call started: the repository lookup runs early, nothing else changes
    cp.beginTurn("t1");
    await cp.snapshotGit(); // first Bash
    writeFileSync(t, "first bash\n");
    await cp.snapshotGit(); // second Bash of the same turn
    writeFileSync(t, "second bash\n");
    writeFileSync(join(cwd, "made.txt"), "m");
    await cp.settled();
    expect(cp.list()[0]!.gitRefs).toEqual(["refs/yoke/checkpoints/once/0"]);
    cp.beginTurn("t2");
    await cp.snapshotGit(); // a new turn snapshots again
    writeFileSync(t, "third bash\n");
    await cp.settled();
    expect(cp.list().map((c) => c.gitRefs)).toEqual([["refs/yoke/checkpoints/once/0"], ["refs/yoke/checkpoints/once/1"]]);

    expect(await cp.rewindFiles("t2")).toEqual({ restored: [t], deleted: [], errors: [] });
    expect(readFileSync(t, "utf8")).toBe("second bash\n");
    expect(await cp.rewindFiles("t1")).toEqual({ restored: [t], deleted: [join(cwd, "made.txt")], errors: [] });
    expect(readFileSync(t, "utf8")).toBe("v1\n");
    expect(existsSync(join(cwd, "made.txt"))).toBe(false);
  });

  test("a snapshot that failed is tried again by the turn's next Bash call", async () => {
    const { env } = tempEnv();
    const cwd = repo(env);
    const errors: string[] = [];
    const cp = createCheckpoints({ sessionId: "again", env, cwd, onError: (m) => errors.push(m) });
    cp.beginTurn("t1");
    // A ref where the snapshot's ref must go: refs/yoke/checkpoints/again is a file, so .../again/0 cannot be made.
    sh(cwd, env, "update-ref", "refs/yoke/checkpoints/again", sh(cwd, env, "rev-parse", "HEAD"));
    await cp.snapshotGit();
    await cp.settled();
    expect(errors).toEqual([expect.stringContaining("git update-ref refs/yoke/checkpoints/again/0 failed: ")]);
    expect(cp.list()[0]!.gitRefs).toEqual([]);
    sh(cwd, env, "update-ref", "-d", "refs/yoke/checkpoints/again");
    await cp.snapshotGit();
    await cp.settled();
    expect(cp.list()[0]!.gitRefs).toEqual(["refs/yoke/checkpoints/again/1"]);
  });

  test("the ref names the snapshot's tree; a transcript line of an older version (a commit) still rewinds", async () => {
    const { env } = tempEnv();
    const cwd = repo(env);
    const store = createSessionStore({ cwd, sessionId: "old", env });
    const cp = createCheckpoints({ sessionId: "old", env, cwd, store });
    cp.beginTurn("t1");
    await cp.snapshotGit();
    await cp.settled();
    expect(sh(cwd, env, "cat-file", "-t", "refs/yoke/checkpoints/old/0")).toBe("tree");
    // What an older yoke wrote: a commit of the tree, named `commit` in the transcript line.
    const commit = sh(cwd, env, "commit-tree", "refs/yoke/checkpoints/old/0", "-m", "yoke checkpoint old #5");
    sh(cwd, env, "update-ref", "refs/yoke/checkpoints/old/5", commit);
    store.append({ type: "file-history-snapshot", messageId: "t0", snapshot: { messageId: "t0", trackedFileBackups: {}, timestamp: "" }, isSnapshotUpdate: true, gitCheckpoint: { ref: "refs/yoke/checkpoints/old/5", commit, seq: 99 } });
    writeFileSync(join(cwd, "tracked.txt"), "bash wrote this\n");
    store.close();
    const meta = loadTranscript(store.path).meta;
    const t0 = meta.filter((m) => m.messageId === "t0");
    const again = createCheckpoints({ sessionId: "old", env, cwd, store, meta: [...t0, ...meta.filter((m) => m.messageId !== "t0")] });
    expect(again.list()[0]!.gitRefs).toEqual(["refs/yoke/checkpoints/old/5"]);
    const r = await again.rewindFiles("t0");
    expect(r).toEqual({ restored: [join(cwd, "tracked.txt")], deleted: [], errors: [] });
    expect(readFileSync(join(cwd, "tracked.txt"), "utf8")).toBe("v1\n");
  });
});
