import { sha256Hex } from "../util/random.ts";
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { yokeDir } from "../config/paths.ts";
import type { MetaEntry, SessionStore } from "./types.ts";
import { git } from "../util/git.ts";
import { checkoutPaths, diffTrees, findRepo, isIgnored, stageWorktree, writeWorktreeTree, type GitRepo, type StagedSnapshot } from "./git-snapshot.ts";
import { createDiagnostics } from "../util/diagnostics.ts";

type Env = Record<string, string | undefined>;

/** One user turn's checkpoint as shown by `list()`. */
export type Checkpoint = {
  /** uuid of the user message that started the turn (contracts §4.6 `rewind_files.user_message_id`). */
  userUuid: string;
  index: number;
  timestamp: string;
  /** Absolute paths whose prior content was saved during this turn. */
  files: string[];
  /** Private refs of git working-tree snapshots taken before Bash ran in this turn. */
  gitRefs: string[];
};

export type RewindFilesResult = { restored: string[]; deleted: string[]; errors: string[] };

export type Checkpoints = {
  /** Starts the checkpoint of a new user turn. Never throws. */
  beginTurn(userUuid: string): void;
  /** Saves the file's current content (or its absence) once per turn, before a file tool changes it. Never rejects; failures go to onError. */
  beforeFileChange(absPath: string): Promise<void>;
  /**
   * In a git repo, snapshots the working tree before Bash runs (no-op elsewhere), once per turn: a rewind reads only
   * the first snapshot from its turn on. Resolves once the working tree is read, so the command may change it; the
   * snapshot's tree and ref are written meanwhile (`settled`). Never rejects.
   */
  snapshotGit(): Promise<void>;
  /** Resolves when every snapshot taken so far is written (its ref made, its transcript line appended). Never rejects. */
  settled(): Promise<void>;
  /**
   * Starts the turn's snapshot's read of the working tree now, beside a Bash call's permission check, when its git can
   * start at once (no-op otherwise). Call the returned function right after the check: `true` when the call was allowed
   * at once (the snapshotGit() that follows in the same tick takes this read), `false` to drop it (a person or a hook
   * may take any time to answer, so the read must wait for them). Never throws.
   */
  prestageGit(): (allowedNow: boolean) => void;
  /** Starts finding the git repository (one git process, once a session), so a Bash call's snapshot need not wait for it. Never throws. */
  prepare(): void;
  list(): Checkpoint[];
  /**
   * Puts every file changed since the start of turn `userUuid` back as it was then (deleting files
   * created since). Never rejects: an unknown turn or a failed step is reported in `errors`.
   */
  rewindFiles(userUuid: string, opts?: { dryRun?: boolean }): Promise<RewindFilesResult>;
};

type Backup = { blob: string | null; mode?: number; seq: number; time: string };
/** `tree`: what the ref names (a tree; transcripts of older versions name a commit of it, read the same way). */
type GitSnap = { ref: string; tree: string; seq: number };
/** `staging`: the turn's git snapshot under way or taken (cleared when it failed, so the next Bash call tries again). */
type Turn = { userUuid: string; index: number; timestamp: string; backups: Map<string, Backup>; git: GitSnap[]; staging?: Promise<void> };
/** A working-tree read under way for a turn's snapshot: its ref name and order are taken when it starts. */
type Stage = { turn: Turn; repo: GitRepo; ref: string; seq: number; staged: Promise<StagedSnapshot | { error: string }> };

export type CheckpointOptions = {
  sessionId: string;
  cwd: string;
  env?: Env;
  /** Receives `file-history-snapshot` meta lines (contracts §5.2). */
  store?: SessionStore;
  /** `file-history-snapshot` lines of a resumed transcript, to rebuild earlier checkpoints. */
  meta?: MetaEntry[];
  /** Where the one-per-kind failure report goes; default stderr. */
  onError?: (message: string) => void;
  /** Turns kept rewindable (contracts §5.4: the last 100); older ones are dropped with their git refs. */
  maxCheckpoints?: number;
};

/**
 * File checkpoints: content-addressed backups under `<yokeDir>/file-history/<session-id>/` before
 * each file-tool change, plus (beyond Claude Code, contracts §5.4) git working-tree snapshots under
 * `refs/yoke/checkpoints/<session>/<n>` before Bash runs, so Bash changes can be rewound too.
 */
export function createCheckpoints(opts: CheckpointOptions): Checkpoints {
  const env = opts.env ?? process.env;
  const dir = join(yokeDir(env), "file-history", opts.sessionId);
  const report = opts.onError ?? ((m: string) => void createDiagnostics().error(m));
  const reported = new Set<string>();
  const fail = (kind: string, msg: string): void => {
    if (reported.has(kind)) return;
    reported.add(kind);
    report(`checkpoints (${dir}): ${msg}`);
  };
  const turns: Turn[] = [];
  const byUuid = new Map<string, Turn>();
  let seq = 0;
  let gitCount = 0;
  let repo: Promise<GitRepo | null> | null = null;
  /** The repository once found (undefined before): a snapshot can then start its git without waiting a tick. */
  let repoNow: GitRepo | null | undefined;
  const getRepo = (): Promise<GitRepo | null> =>
    (repo ??= findRepo(opts.cwd, env).then((r) => {
      repoNow = r;
      return r;
    }));
  /** A read started beside a permission check, until its call is allowed at once (kept) or not (dropped). */
  let early: (Stage & { kept: boolean }) | undefined;
  /** Snapshots whose working tree is read and whose tree and ref are still being written. */
  const sealing = new Set<Promise<void>>();
  let tmpN = 0;
  const tmpIndex = (): string => {
    mkdirSync(dir, { recursive: true });
    return join(dir, `index.${process.pid}.${tmpN++}.tmp`);
  };

  for (const m of opts.meta ?? []) rebuild(m);
  prune();

  function rebuild(m: MetaEntry): void {
    if (m.type !== "file-history-snapshot" || typeof m.messageId !== "string") return;
    let t = byUuid.get(m.messageId);
    const snap = (m.snapshot ?? {}) as { timestamp?: string; trackedFileBackups?: Record<string, Record<string, unknown>> };
    if (!t) {
      t = { userUuid: m.messageId, index: turns.length ? turns[turns.length - 1]!.index + 1 : 0, timestamp: snap.timestamp ?? "", backups: new Map(), git: [] };
      turns.push(t);
      byUuid.set(t.userUuid, t);
    }
    for (const [p, b] of Object.entries(snap.trackedFileBackups ?? {})) {
      const s = typeof b.seq === "number" ? b.seq : 0;
      const backup: Backup = { blob: typeof b.backupFileName === "string" ? b.backupFileName : null, seq: s, time: String(b.backupTime ?? "") };
      if (typeof b.mode === "number") backup.mode = b.mode;
      t.backups.set(p, backup);
      seq = Math.max(seq, s + 1);
    }
    const g = m.gitCheckpoint as (Partial<GitSnap> & { commit?: string }) | undefined;
    const tree = g?.tree ?? g?.commit;
    if (g && typeof g.ref === "string" && typeof tree === "string" && typeof g.seq === "number" && !t.git.some((x) => x.ref === g.ref)) {
      t.git.push({ ref: g.ref, tree, seq: g.seq });
      seq = Math.max(seq, g.seq + 1);
      // refs are numbered per session; continue after the highest one so a resume never reuses a ref
      const n = Number(g.ref.slice(g.ref.lastIndexOf("/") + 1));
      if (Number.isInteger(n)) gitCount = Math.max(gitCount, n + 1);
    }
  }

  const current = (): Turn | undefined => turns[turns.length - 1];

  // Blobs stay (they are shared and small next to the transcript); only git refs pin repository objects.
  function prune(): void {
    const max = Math.max(1, opts.maxCheckpoints ?? 100);
    while (turns.length > max) {
      const old = turns.shift()!;
      byUuid.delete(old.userUuid);
      if (old.git.length === 0) continue;
      void getRepo().then(async (r) => {
        if (!r) return;
        for (const g of old.git) {
          const d = await git(["update-ref", "-d", g.ref], { cwd: r.top, env });
          if (d.code !== 0) fail("prune", `git update-ref -d ${g.ref} failed: ${d.stderr.trim()}`);
        }
      });
    }
  }

  const record = (t: Turn, update: boolean, snapshot?: GitSnap): void => {
    const tracked: Record<string, unknown> = {};
    for (const [p, b] of t.backups) tracked[p] = { backupFileName: b.blob, version: 1, backupTime: b.time, seq: b.seq, ...(b.mode !== undefined ? { mode: b.mode } : {}) };
    const line: MetaEntry = {
      type: "file-history-snapshot",
      messageId: t.userUuid,
      snapshot: { messageId: t.userUuid, trackedFileBackups: tracked, timestamp: t.timestamp },
      isSnapshotUpdate: update,
    };
    if (snapshot) line.gitCheckpoint = snapshot;
    opts.store?.append(line);
  };

  const writeBlob = (content: Buffer): string => {
    const hash = sha256Hex(content);
    const file = join(dir, hash);
    if (!existsSync(file)) {
      mkdirSync(dir, { recursive: true });
      const tmp = `${file}.${process.pid}.tmp`;
      writeFileSync(tmp, content, { mode: 0o600 });
      // rename keeps a half-written blob from ever having the final name
      renameSync(tmp, file);
    }
    return hash;
  };

  /**
   * Reads of the working tree under way: a snapshot's before its seal is in `sealing`, an early read not yet taken, a
   * dropped one until its private index is removed. The run's end and a rewind wait for them too: else the run could
   * end with a snapshot's ref unwritten, a git process running and a private index (a copy of the user's) left behind.
   */
  const reading = new Set<Promise<unknown>>();
  const track = <T>(p: Promise<T>): Promise<T> => {
    reading.add(p);
    void p.finally(() => reading.delete(p));
    return p;
  };

  const settled = async (): Promise<void> => {
    while (sealing.size || reading.size) await Promise.all([...sealing, ...reading]);
  };

  /** Starts reading the working tree for the turn's snapshot (its git process starts now when the repository is known). */
  const startStage = (t: Turn, r: GitRepo): Stage => {
    const n = gitCount++;
    return { turn: t, repo: r, ref: `refs/yoke/checkpoints/${opts.sessionId}/${n}`, seq: seq++, staged: track(stageWorktree(r, env, tmpIndex())) };
  };

  /** The turn's snapshot up to the read working tree; its tree and ref are written after (`sealing`). Never rejects. */
  async function stageGit(t: Turn, started?: Stage): Promise<void> {
    let st = started;
    if (!st) {
      const r = await getRepo();
      if (!r) return;
      st = startStage(t, r);
    }
    const { repo: r, ref } = st;
    const failed = (error: string) => {
      t.staging = undefined;
      fail("git", `${error}; Bash changes in this turn cannot be rewound`);
    };
    const s = await st.staged;
    if ("error" in s) return failed(s.error);
    // The seal's git processes start a macrotask later: the Bash command that waited for this read starts in the
    // continuations of this tick, so its shell is spawned first and the seal runs beside it (issue 21), not before it.
    const done = new Promise<void>((r) => setImmediate(r)).then(() => s.seal(ref)).then(async (w) => {
      if ("error" in w) return failed(w.error);
      // Its turn was dropped meanwhile (prune): the ref must not outlive it.
      if (byUuid.get(t.userUuid) !== t) return void (await git(["update-ref", "-d", ref], { cwd: r.top, env }));
      const g: GitSnap = { ref, tree: w.tree, seq: st.seq };
      t.git.push(g);
      record(t, true, g);
    });
    sealing.add(done);
    void done.finally(() => sealing.delete(done));
  }

  /** A read nobody takes: its private index goes, its blobs stay unreferenced (git prunes them in time). */
  const drop = (st: Stage): void => void track(st.staged.then((s) => ("error" in s ? undefined : s.drop())));

  async function restorePlan(userUuid: string): Promise<{ plan: Map<string, Backup | "git">; errors: string[]; gitRestore?: { repo: GitRepo; snap: GitSnap; add: string[]; mod: string[] } }> {
    const errors: string[] = [];
    const plan = new Map<string, Backup | "git">();
    const target = byUuid.get(userUuid);
    if (!target) return { plan, errors: [`no checkpoint for user message ${userUuid} in session ${opts.sessionId}`] };
    const later = turns.filter((t) => t.index >= target.index);
    const earliest = new Map<string, Backup>();
    for (const t of later)
      for (const [p, b] of t.backups) {
        const e = earliest.get(p);
        if (!e || b.seq < e.seq) earliest.set(p, b);
      }
    const snap = later.flatMap((t) => t.git).sort((a, b) => a.seq - b.seq)[0];
    let gitRestore: { repo: GitRepo; snap: GitSnap; add: string[]; mod: string[] } | undefined;
    const gitChanged = new Set<string>();
    let r: GitRepo | null = null;
    if (snap) {
      r = await getRepo();
      if (!r) errors.push(`checkpoint ${snap.ref} needs the git repository at ${opts.cwd}, which is gone`);
      else {
        const now = await writeWorktreeTree(r, env, tmpIndex());
        if ("error" in now) errors.push(now.error);
        else {
          const changes = await diffTrees(r, env, snap.tree, now.tree);
          if ("error" in changes) errors.push(changes.error);
          else {
            gitRestore = { repo: r, snap, add: [], mod: [] };
            for (const c of changes) {
              const abs = resolve(r.top, c.path);
              gitChanged.add(abs);
              const b = earliest.get(abs);
              if (b && b.seq < snap.seq) continue; // the file backup is older: it wins
              plan.set(abs, "git");
              (c.status === "A" ? gitRestore.add : gitRestore.mod).push(c.path);
            }
          }
        }
      }
    }
    for (const [p, b] of earliest) {
      if (plan.has(p)) continue;
      if (snap && b.seq > snap.seq && r) {
        const rel = relative(r.top, p);
        const inside = rel !== "" && !rel.startsWith(`..${sep}`) && rel !== "..";
        // Unchanged since the git snapshot and visible to git: already in the right state.
        if (inside && !gitChanged.has(p) && !(await isIgnored(r, env, rel))) continue;
      }
      plan.set(p, b);
    }
    return gitRestore ? { plan, errors, gitRestore } : { plan, errors };
  }

  const sameContent = (p: string, b: Backup): boolean => {
    try {
      if (b.blob === null) return !existsSync(p);
      return existsSync(p) && sha256Hex(readFileSync(p)) === b.blob;
    } catch {
      return false;
    }
  };

  return {
    beginTurn(userUuid: string): void {
      if (byUuid.has(userUuid)) return;
      const last = turns[turns.length - 1];
      const t: Turn = { userUuid, index: last ? last.index + 1 : 0, timestamp: new Date().toISOString(), backups: new Map(), git: [] };
      turns.push(t);
      byUuid.set(userUuid, t);
      record(t, false);
      prune();
    },

    async beforeFileChange(absPath: string): Promise<void> {
      const t = current();
      if (!t) return;
      const p = resolve(absPath);
      if (t.backups.has(p)) return;
      const time = new Date().toISOString();
      try {
        let backup: Backup;
        if (!existsSync(p)) backup = { blob: null, seq: seq++, time };
        else {
          const st = statSync(p);
          if (!st.isFile()) return;
          backup = { blob: writeBlob(readFileSync(p)), mode: st.mode & 0o7777, seq: seq++, time };
        }
        t.backups.set(p, backup);
        record(t, true);
      } catch (err) {
        fail("backup", `could not save ${p} before the change (${err instanceof Error ? err.message : String(err)}); rewind will not restore it`);
      }
    },

    prepare(): void {
      void getRepo();
    },

    snapshotGit(): Promise<void> {
      const t = current();
      // A rewind restores Bash changes from the earliest snapshot of the turns it undoes (restorePlan): a turn's
      // later snapshots are never read, so a second Bash call in the turn runs without the git processes.
      if (!t || t.git.length) return Promise.resolve();
      const e = early;
      early = undefined;
      // A read started beside this call's permission check, which allowed it at once in this same tick: the state now.
      const taken = e?.kept && e.turn === t && !t.staging ? e : undefined;
      if (e && !taken) drop(e);
      return (t.staging ??= track(stageGit(t, taken)));
    },

    prestageGit(): (allowedNow: boolean) => void {
      const t = current();
      // Only when its git starts before this returns: a read that begins after the check is no head start.
      if (!t || t.git.length || t.staging || early || !repoNow) return () => {};
      const e = { ...startStage(t, repoNow), kept: false };
      early = e;
      return (allowedNow) => {
        if (early !== e) return;
        if (!allowedNow) {
          early = undefined;
          return drop(e);
        }
        e.kept = true;
        // Kept for the snapshotGit() of this same tick only: anything later must read the working tree afresh.
        queueMicrotask(() => {
          if (early !== e) return;
          early = undefined;
          drop(e);
        });
      };
    },

    settled,

    list(): Checkpoint[] {
      return turns.map((t) => ({ userUuid: t.userUuid, index: t.index, timestamp: t.timestamp, files: [...t.backups.keys()], gitRefs: t.git.map((g) => g.ref) }));
    },

    async rewindFiles(userUuid: string, o: { dryRun?: boolean } = {}): Promise<RewindFilesResult> {
      await settled();
      const { plan, errors, gitRestore } = await restorePlan(userUuid);
      const restored: string[] = [];
      const deleted: string[] = [];
      for (const [p, b] of plan) {
        if (b === "git") continue;
        if (sameContent(p, b)) continue;
        if (b.blob === null) deleted.push(p);
        else restored.push(p);
        if (o.dryRun) continue;
        try {
          if (b.blob === null) rmSync(p, { force: true });
          else {
            mkdirSync(dirname(p), { recursive: true });
            writeFileSync(p, readFileSync(join(dir, b.blob)));
            if (b.mode !== undefined) chmodSync(p, b.mode);
          }
        } catch (err) {
          errors.push(`could not restore ${p}: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
      if (gitRestore) {
        const { repo: r, snap, add, mod } = gitRestore;
        for (const rel of add) deleted.push(resolve(r.top, rel));
        for (const rel of mod) restored.push(resolve(r.top, rel));
        if (!o.dryRun) {
          for (const rel of add) {
            try {
              rmSync(resolve(r.top, rel), { force: true });
            } catch (err) {
              errors.push(`could not delete ${rel}: ${err instanceof Error ? err.message : String(err)}`);
            }
          }
          const co = await checkoutPaths(r, env, tmpIndex(), snap.tree, mod);
          if (co.error) errors.push(`${co.error} (restoring from ${snap.ref})`);
        }
      }
      restored.sort();
      deleted.sort();
      return { restored, deleted, errors };
    },
  };
}
