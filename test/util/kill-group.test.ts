/**
 * killGroup with the leader's exit to wait on (issue 21: an MCP server's close at exit looks at the group when its
 * leader is gone, not every 25 ms). Whatever the leader does, the whole group is gone when killGroup resolves: a
 * member that outlives its leader and ignores SIGTERM still gets SIGKILL. Ordering by what the children print, no sleeps.
 */
import { expect, test } from "bun:test";
import type { ChildProcess } from "node:child_process";
import { groupAlive, killGroup, spawnProcess } from "../../src/util/subprocess.ts";
import { groupMembers } from "../helpers/process-alive.ts";

const ifLinux = process.platform === "linux" ? test : test.skip;

/** Starts `script` in a group of its own; resolves once it printed `ready` lines for each member that must be up. */
async function group(script: string, readyLines: number): Promise<{ child: ChildProcess; exited: Promise<void> }> {
  const child = spawnProcess(["/bin/sh", "-c", script], { stdout: "pipe", stderr: "ignore" });
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  let seen = "";
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (c: Buffer) => {
      seen += c.toString();
      if (seen.split("ready").length - 1 >= readyLines) resolve();
    });
    child.once("error", reject);
  });
  return { child, exited };
}

ifLinux("the leader dies on SIGTERM but a member ignores it: the member is SIGKILLed after the grace", async () => {
  // The member ignores TERM (an ignored signal stays ignored across exec); the leader is a plain sleep.
  const { child, exited } = await group(`(trap '' TERM; echo ready; exec sleep 30) & echo ready; exec sleep 30`, 2);
  const pgid = child.pid!;
  expect(groupMembers(pgid).length).toBe(2);
  await killGroup(pgid, 300, exited);
  expect(groupAlive(pgid)).toBe(false);
});

ifLinux("the leader ignores SIGTERM, so its exit never comes first: SIGKILL after the grace ends the group", async () => {
  const { child, exited } = await group(`trap '' TERM; sleep 30 & echo ready; wait`, 1);
  const pgid = child.pid!;
  await killGroup(pgid, 300, exited);
  expect(groupAlive(pgid)).toBe(false);
  await exited; // SIGKILL reached the leader too
  expect(child.signalCode).toBe("SIGKILL");
});

ifLinux("the whole group dies on SIGTERM: resolved with the group gone, by TERM, not KILL", async () => {
  const { child, exited } = await group(`sleep 30 & echo ready; wait`, 1);
  const pgid = child.pid!;
  await killGroup(pgid, 20_000, exited);
  expect(groupAlive(pgid)).toBe(false);
  expect(child.signalCode).toBe("SIGTERM");
});

ifLinux("a leader that exited before the call: the members are still stopped", async () => {
  const { child, exited } = await group(`(trap '' TERM; echo ready; exec sleep 30) & echo ready`, 2);
  await exited;
  const pgid = child.pid!;
  expect(groupMembers(pgid).length).toBe(1);
  await killGroup(pgid, 300, exited);
  expect(groupAlive(pgid)).toBe(false);
});
