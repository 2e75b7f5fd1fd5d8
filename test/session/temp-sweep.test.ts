// Issue 20.4: at start, the `yoke-<session>` scratch folders of SIGKILLed runs are removed; a live run's never.
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { claimTempDir, OWNER_FILE, sweepDeadTempDirs } from "../../src/session/temp-sweep.ts";
import { processStart } from "../../src/session/lock.ts";
import { tempDir } from "../helpers/tmp.ts";

/** A pid that was alive and is now gone (its process ended and was reaped). */
async function deadPid(): Promise<number> {
  const p = Bun.spawn(["true"]);
  await p.exited;
  return p.pid;
}

const folder = (root: string, name: string, owner?: object) => {
  const d = join(root, name);
  mkdirSync(d);
  writeFileSync(join(d, "bash-output-1.txt"), "spill");
  if (owner) writeFileSync(join(d, OWNER_FILE), JSON.stringify(owner));
  return d;
};

test("dead owner, reused pid: removed; live owner, no owner file, other names: kept", async () => {
  const root = tempDir();
  const live = Bun.spawn(["sleep", "30"]);
  try {
    const dead = await deadPid();
    const gone = folder(root, "yoke-00000000-0000-4000-8000-00000000000a", { pid: dead, start: null, at: "" });
    const reused = folder(root, "yoke-00000000-0000-4000-8000-00000000000b", { pid: live.pid, start: "1", at: "" }); // that pid started at another time
    const running = folder(root, "yoke-00000000-0000-4000-8000-00000000000c", { pid: live.pid, start: processStart(live.pid), at: "" });
    const hostMade = folder(root, "yoke-00000000-0000-4000-8000-00000000000d");
    const notSession = folder(root, "yoke-test-abc", { pid: dead, start: null, at: "" }); // not a session folder: never looked at
    const other = folder(root, "other-eee", { pid: dead, start: null, at: "" });
    writeFileSync(join(root, `yoke-stdin-${dead}-3`), "payload of a killed run");
    writeFileSync(join(root, `yoke-stdin-${live.pid}-4`), "payload of a live run");
    const removed = await sweepDeadTempDirs(root);
    expect(removed.sort()).toEqual([gone, reused, join(root, `yoke-stdin-${dead}-3`)].sort());
    expect([gone, reused].map(existsSync)).toEqual([false, false]);
    expect([running, hostMade, other, notSession, join(root, `yoke-stdin-${live.pid}-4`)].map(existsSync)).toEqual([true, true, true, true, true]);
    expect(readdirSync(root).filter((n) => n.includes(".dead-"))).toEqual([]);
  } finally {
    live.kill();
  }
});

test("claimTempDir makes the folder and marks it as this process's; the sweep then keeps it", async () => {
  const root = tempDir();
  const d = join(root, "yoke-00000000-0000-4000-8000-000000000001");
  claimTempDir(d);
  expect(existsSync(join(d, OWNER_FILE))).toBe(true);
  expect(await sweepDeadTempDirs(root)).toEqual([]);
  expect(existsSync(d)).toBe(true);
});

test("a missing or unreadable temp folder is no error", async () => {
  expect(await sweepDeadTempDirs(join(tempDir(), "nope"))).toEqual([]);
});
