// A kept sandbox is alive only while its first process is in its mount namespace AND has no SIGKILL on its way
// (src/sandbox/holder.ts). When bubblewrap is killed, --die-with-parent queues SIGKILL for that process; on a loaded
// machine it can sit there, namespaces intact, after bubblewrap is already reaped (seen: ShdPnd 0x100, test/sandbox/
// kept.test.ts's restart test failing once in a full-suite train with ""). A command joining it then died silently.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { killPending } from "../../src/sandbox/holder.ts";

test.skipIf(process.platform !== "linux")("a live process's status: no SIGKILL pending", () => {
  expect(killPending(readFileSync("/proc/self/status", "utf8"))).toBe(false);
});

test("SIGKILL pending for the process (ShdPnd) or the thread (SigPnd): bit 9, whatever else is pending", () => {
  const status = (sig: string, shd: string) => `Name:\tsh\nState:\tS (sleeping)\nSigPnd:\t${sig}\nShdPnd:\t${shd}\nSigBlk:\t0000000000000100\n`;
  expect(killPending(status("0000000000000000", "0000000000000100"))).toBe(true);
  expect(killPending(status("0000000000000100", "0000000000000000"))).toBe(true);
  expect(killPending(status("0000000000014002", "0000000000000000"))).toBe(false); // SIGINT, SIGTERM, SIGCHLD... not SIGKILL
  expect(killPending(status("0000000000000000", "00000000000001ff"))).toBe(true);
  expect(killPending(status("0000000000000000", "0000000000000000"))).toBe(false); // SigBlk's bit is not a pending one
});
