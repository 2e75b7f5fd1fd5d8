/**
 * Issue 20.8, the window the flaky kill test fell into: yoke can only register a child's process group once spawn
 * returned its pid, while the child already runs. A yoke SIGKILLed (or descheduled, then killed) in between left the
 * group alive forever. The watchdog's log showed it: every group registered but the last Bash call's.
 *
 * Each case runs a stand-in for yoke (a Bun script using the real src/util/subprocess.ts) that stops at the named
 * moment, SIGKILLs itself, and the test then watches /proc: ordering by markers the children write, never sleeps.
 */
import { expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers/tmp.ts";
import { waitFor } from "../helpers/wait-for.ts";
import { alive, groupMembers } from "../helpers/process-alive.ts";

const subprocess = join(import.meta.dir, "..", "..", "src", "util", "subprocess.ts");


/** Runs `body` as a yoke stand-in; resolves with its exit once it ended (it SIGKILLs itself). */
async function standIn(dir: string, body: string): Promise<number | null> {
  const script = join(dir, "stand-in.ts");
  writeFileSync(script, `import { GUARD_ENV, guardLibraryChildren, spawnProcess, spawnToken } from ${JSON.stringify(subprocess)};\n${body}\n`);
  const p = Bun.spawn(["bun", script], { cwd: dir, stdout: "pipe", stderr: "pipe" });
  const code = await p.exited;
  if (p.signalCode !== "SIGKILL") throw new Error(`stand-in ended with ${code}: ${await new Response(p.stderr).text()}`);
  return code;
}

const ifLinux = process.platform === "linux" ? test : test.skip;

ifLinux("yoke killed after the spawn, before the group was registered: the child, its job and an env-less member of its group die", async () => {
  const d = tempDir();
  // The child runs with YOKE_GUARD (as spawnProcess gives it) and a group of its own, but is never registered:
  // exactly the state yoke is in between spawn() and the registration write.
  await standIn(
    d,
    `const token = spawnToken()!;
const child = Bun.spawn(["/bin/sh", "-c", "sleep 300 & env -i /bin/sleep 301 & echo $$ > pids.tmp; mv pids.tmp pids; wait"], { detached: true, env: { ...process.env, [GUARD_ENV]: token }, stdio: ["ignore", "ignore", "ignore"] });
while (!require("node:fs").existsSync("pids")) Bun.sleepSync(5);
process.kill(process.pid, "SIGKILL");`,
  );
  const pgid = Number(readFileSync(join(d, "pids"), "utf8"));
  await waitFor(() => groupMembers(pgid).length === 0, `the unregistered group ${pgid} to die (left: ${groupMembers(pgid)})`);
});

ifLinux("yoke killed right after spawnProcess returned: the group dies (the token covers what registration has not yet)", async () => {
  const d = tempDir();
  await standIn(
    d,
    `const c = spawnProcess(["/bin/sh", "-c", "sleep 300 & echo $$ > pids.tmp; mv pids.tmp pids; wait"], { stdout: "ignore", stderr: "ignore" });
process.kill(process.pid, "SIGKILL");`,
  );
  // The child may not even have written its marker when the stand-in died: wait for it or for its absence.
  const marker = join(d, "pids");
  await waitFor(() => !existsSync(marker) || readFileSync(marker, "utf8").trim() !== "", "the marker to be whole or absent");
  if (existsSync(marker)) {
    const pgid = Number(readFileSync(marker, "utf8"));
    await waitFor(() => groupMembers(pgid).length === 0, `group ${pgid} to die`);
  }
});

ifLinux("yoke killed while a library starts children of its own (the sandbox's socat bridges): they die", async () => {
  const d = tempDir();
  // The library spawns with no environment of its own, in yoke's process group, and yoke dies before it returned.
  await standIn(
    d,
    `await guardLibraryChildren(async () => {
  const c = require("node:child_process").spawn("/bin/sh", ["-c", "echo $$ > pid.tmp; mv pid.tmp pid; exec sleep 303"], { stdio: "ignore" });
  while (!require("node:fs").existsSync("pid")) await Bun.sleep(5);
  process.kill(process.pid, "SIGKILL");
});`,
  );
  const pid = Number(readFileSync(join(d, "pid"), "utf8"));
  await waitFor(() => !alive(pid), `the library's child ${pid} to die`);
});

/** The stand-in's watchdog: its child whose command line is the watchdog script. Written before it kills itself. */
const WRITE_WATCHDOG_PID = `const fs = require("node:fs");
const wd = fs.readdirSync("/proc").find((e) => /^\\d+$/.test(e) && (() => { try { return fs.readFileSync("/proc/" + e + "/cmdline", "utf8").includes("pending=") && fs.readFileSync("/proc/" + e + "/stat", "utf8").split(") ")[1].split(" ")[1] === String(process.pid); } catch { return false; } })());
fs.writeFileSync("wd", wd + "\\n");`;

ifLinux("a spawn token retired normally is not hunted: a process that left its group on purpose survives yoke's death", async () => {
  const d = tempDir();
  // setsid: what a browser started by an opener (mcp login) does. Its group ended and was unregistered; only a
  // token still pending when yoke dies is hunted, so this process keeps running as it did before the token.
  await standIn(
    d,
    `const c = spawnProcess(["/bin/sh", "-c", "setsid /bin/sleep 302 < /dev/null > /dev/null 2>&1 & echo $! > pid.tmp; mv pid.tmp pid"], { stdout: "ignore", stderr: "ignore" });
await new Promise((r) => c.once("close", r));
${WRITE_WATCHDOG_PID}
process.kill(process.pid, "SIGKILL");`,
  );
  const pid = Number(readFileSync(join(d, "pid"), "utf8"));
  const wd = Number(readFileSync(join(d, "wd"), "utf8"));
  try {
    expect(wd).toBeGreaterThan(1);
    // Barrier: the watchdog has done all it would do once it is gone.
    await waitFor(() => !alive(wd), "the watchdog to finish");
    expect(alive(pid)).toBe(true);
  } finally {
    try {
      process.kill(pid, "SIGKILL");
    } catch {}
  }
});
