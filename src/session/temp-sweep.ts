/**
 * Session scratch folders of killed runs (issue 20 point 4): a run removes its `yoke-<session>` folder when it ends,
 * but a SIGKILLed run cannot. Each folder yoke makes holds an owner file (the pid and its start time, as the session
 * lock does); at the next start, folders whose owner is gone are removed. A live run's folder, a folder without an
 * owner file (a host's, or one being made) and anything not named `yoke-*` are never touched.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { fsp } from "../util/fs-promises.ts";
import { join } from "node:path";
import { holderIsStale, processStart } from "./lock.ts";

export const OWNER_FILE = ".yoke-owner";

/**
 * Makes `dir` (if needed) and marks it as this process's, again if a sweep of another run moved it aside meanwhile.
 * Throws only when the folder cannot be made.
 */
export function claimTempDir(dir: string): void {
  const me = JSON.stringify({ pid: process.pid, start: processStart(process.pid), at: new Date().toISOString() });
  for (let tries = 0; tries < 3; tries++) {
    mkdirSync(dir, { recursive: true });
    try {
      writeFileSync(join(dir, OWNER_FILE), me);
      if (owner(dir)?.pid === process.pid) return;
    } catch {}
  }
}

type Owner = { pid: number; start: string | null; at: string };

function owner(dir: string): Owner | undefined {
  try {
    const o = JSON.parse(readFileSync(join(dir, OWNER_FILE), "utf8")) as Owner;
    return typeof o.pid === "number" ? o : undefined;
  } catch {
    return undefined;
  }
}

async function ownerOf(dir: string): Promise<Owner | undefined> {
  try {
    const o = JSON.parse(await fsp().readFile(join(dir, OWNER_FILE), "utf8")) as Owner;
    return typeof o.pid === "number" ? o : undefined;
  } catch {
    return undefined;
  }
}

const remove = (path: string) => fsp().rm(path, { recursive: true, force: true }).catch(() => {});

/** `yoke-<session id>`: session ids are UUIDs, so nothing else in a shared temp folder is even looked at. */
const SESSION_DIR = /^yoke-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Removes the `yoke-*` folders under `root` whose owner process is dead (or whose pid now belongs to another
 * process). Returns what it removed. Asynchronous: started at start-up, off the way of the first request. Each folder is first renamed aside, then its owner read again, so a run
 * that claimed it meanwhile (a `--resume` of that session) gets it back instead of losing it. Never throws.
 */
export async function sweepDeadTempDirs(root: string): Promise<string[]> {
  let names: string[];
  try {
    names = await fsp().readdir(root);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    // Leftovers of a sweep or of a stdin file that a killed run had no time to remove.
    const leftover = /^\.yoke-.*\.dead-(\d+)$/.exec(name) ?? /^yoke-stdin-(\d+)-\d+$/.exec(name);
    if (leftover) {
      // Only a pid is known here: the lock's liveness test (dead, or a zombie not yet reaped) without a start time.
      if (holderIsStale({ pid: Number(leftover[1]), start: null, at: "" })) {
        await remove(join(root, name));
        removed.push(join(root, name));
      }
      continue;
    }
    if (!SESSION_DIR.test(name)) continue;
    const dir = join(root, name);
    try {
      if (!(await fsp().stat(dir)).isDirectory()) continue;
    } catch {
      continue;
    }
    const o = await ownerOf(dir);
    if (!o || o.pid === process.pid || !holderIsStale(o)) continue;
    const aside = join(root, `.${name}.dead-${process.pid}`);
    try {
      await fsp().rename(dir, aside);
    } catch {
      continue; // another run swept it first
    }
    const again = await ownerOf(aside);
    if (again && again.pid !== o.pid && !holderIsStale(again)) {
      await fsp().rename(aside, dir).catch(() => {});
      continue;
    }
    await remove(aside);
    removed.push(dir);
  }
  return removed;
}

let pending: Promise<unknown> | undefined;

/** Starts the sweep of `root` once per process, in the background. Never throws. */
export function startTempSweep(root: string): void {
  pending ??= sweepDeadTempDirs(root).catch(() => []);
}

/**
 * Resolves when a started sweep has finished, or after `capMs` (a shared temp folder of 100,000 entries takes
 * ~100 ms of CPU to list): the run's exit waits for it, so a short run still cleans up. At once when none started.
 */
export async function tempSweepSettled(capMs: number): Promise<void> {
  if (!pending) return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([pending, new Promise<void>((r) => (timer = setTimeout(r, capMs)))]);
  clearTimeout(timer);
}
