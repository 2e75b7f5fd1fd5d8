// Issue 20 point 8 and issue 11 point 6: every process yoke starts goes through src/util/subprocess.ts (own process
// group, the kill-on-death watchdog, timeouts). A direct Bun.spawn or node:child_process call anywhere else fails here.
import { expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitFor } from "../helpers/wait-for.ts";
import { GUARD_ENV, helperFailure, runProcess, runProcessSync, spawnPiped, spawnProcess } from "../../src/util/subprocess.ts";
import { alive } from "../helpers/process-alive.ts";

const root = join(import.meta.dir, "..", "..");
const DIRECT = /\bBun\.spawn(Sync)?\b|\bBun\.\$|["']node:child_process["']|["']child_process["']/;

test("nothing in src/ or plugins/ starts a process except through util/subprocess.ts", () => {
  const offenders: string[] = [];
  for (const top of ["src", "plugins"]) {
    for (const rel of readdirSync(join(root, top), { recursive: true }) as string[]) {
      if (!/\.(ts|mts|js|mjs)$/.test(rel)) continue;
      const file = join(top, rel);
      if (file === join("src", "util", "subprocess.ts")) continue;
      readFileSync(join(root, file), "utf8")
        .split("\n")
        .forEach((line, i) => {
          const t = line.trim();
          if (DIRECT.test(line) && !t.startsWith("//") && !t.startsWith("*") && !t.startsWith("import type ") && !/^const EXEC_CODE = /.test(t)) offenders.push(`${file}:${i + 1}: ${t}`);
        });
    }
  }
  expect(offenders).toEqual([]);
});

test("spawnProcess: the child leads its own process group; fixed stdin is a file, not a socket", async () => {
  const child = spawnProcess(["bash", "-c", 'ps -o pgid= -p $$; [ -S /dev/stdin ] && echo socket || echo not-socket; cat'], { stdin: { data: "payload" } });
  let out = "";
  child.stdout!.on("data", (c: Buffer) => (out += c));
  await new Promise((r) => child.once("close", r));
  const [pgid, kind, rest] = out.trim().split("\n");
  expect(Number(pgid)).toBe(child.pid!);
  expect(kind).toBe("not-socket");
  expect(rest).toBe("payload");
});

test("spawnPiped (command hooks): the child leads its own group, carries the watchdog token, reads a file on stdin; no program, a throw", async () => {
  const child = spawnPiped(["bash", "-c", `ps -o pgid= -p $$; [ -S /dev/stdin ] && echo socket || echo not-socket; echo "\${${GUARD_ENV}:+token}"; cat`], { stdin: { data: "payload" } });
  const [out] = await Promise.all([new Response(child.stdout).text(), child.exited]);
  const [pgid, kind, token, rest] = out.trim().split("\n");
  expect(Number(pgid)).toBe(child.pid);
  expect(kind).toBe("not-socket");
  expect(token).toBe("token");
  expect(rest).toBe("payload");
  expect(child.exitCode).toBe(0);
  expect(() => spawnPiped(["/nonexistent/prog"], { stdin: { data: "" } })).toThrow(/ENOENT/);
});

test("runProcess: a command that hangs ends at its timeout with its whole group killed", async () => {
  // 2 s, not 200 ms: bash must have started the sleep and said its pid before the timeout, even on a busy machine.
  const r = await runProcess(["bash", "-c", "sleep 300 & echo $!; wait"], { timeoutMs: 2000, graceMs: 0 });
  expect(r.timedOut).toBe(true);
  // SIGKILL is sent when runProcess returns; the sleep dies when the kernel next runs it (a moment, under load).
  const pid = Number(r.stdout.trim());
  expect(pid > 0).toBe(true);
  await waitFor(() => !alive(pid), "the group's sleep to die");
});

test("runProcess: a command that streams forever is cut at its output cap and the cut is counted", async () => {
  const r = await runProcess(["bash", "-c", "yes | head -c 3000000"], { timeoutMs: 60_000, maxOutputBytes: 1000 });
  expect(r.stdout.length).toBe(1000);
  expect(r.cutBytes).toBe(3_000_000 - 1000);
});

test("runProcess: a program that does not exist comes back as an error, never a throw", async () => {
  const r = await runProcess(["/nonexistent/prog"], { timeoutMs: 1000 });
  expect(r.error).toMatch(/ENOENT|no such file/i);
});

test("runProcessSync and helperFailure: timeout, exit code and stderr are named", () => {
  const slow = runProcessSync(["sleep", "5"], { timeoutMs: 100 });
  expect(slow.timedOut).toBe(true);
  expect(helperFailure(slow, 100)).toBe("no answer within 0.1 s; it was killed");
  const bad = runProcessSync(["bash", "-c", "echo boom >&2; exit 3"], { timeoutMs: 10_000 });
  expect(helperFailure(bad, 10_000)).toBe("exit code 3: boom");
  expect(helperFailure(runProcessSync(["true"], { timeoutMs: 10_000 }), 10_000)).toBeUndefined();
});

test.if(process.platform === "linux")("spawnPiped and runProcess (hooks, git): fixed stdin is a regular file made in memory, nothing created in TMPDIR", async () => {
  // A create and unlink in TMPDIR would move the folder's mtime off the old date set here (issue 21: a hook per tool call).
  const dir = mkdtempSync(join(tmpdir(), "yoke-stdin-dir-"));
  const old = new Date("2020-01-01T00:00:00Z");
  utimesSync(dir, old, old);
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  try {
    const probe = '[ -f /dev/stdin ] && echo file || echo not-file; [ -S /dev/stdin ] && echo socket || echo not-socket; cat';
    const child = spawnPiped(["bash", "-c", probe], { stdin: { data: "hook payload" } });
    const [out] = await Promise.all([new Response(child.stdout).text(), child.exited]);
    expect(out).toBe("file\nnot-socket\nhook payload");
    const r = await runProcess(["bash", "-c", probe], { stdin: { data: "git input" }, timeoutMs: 30_000 });
    expect(r.stdout).toBe("file\nnot-socket\ngit input");
    expect(statSync(dir).mtimeMs).toBe(old.getTime());
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
    rmSync(dir, { recursive: true, force: true });
  }
});
