/**
 * Issue 20 point 8: whatever ends yoke (SIGTERM, SIGINT, SIGHUP, or a SIGKILL of yoke itself), no process it started
 * outlives it. At the moment of the signal an MCP stdio server (ignoring SIGTERM, with a child of its own), a hook
 * (with a child) and a background Bash shell (with a child) are all alive; afterwards none of them, nor anything in
 * their process groups, is.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isolatedEnv, repoRoot, spawnYoke, yokeBin } from "../helpers/binary.ts";
import { fakeApiEnv, startFakeAnthropic, type FakeAnthropic } from "../helpers/fake-anthropic.ts";
import { tempDir } from "../helpers/tmp.ts";
import { waitFor } from "../helpers/wait-for.ts";
import { alive, groupMembers } from "../helpers/process-alive.ts";

let fake: FakeAnthropic;
beforeAll(async () => {
  yokeBin();
  fake = await startFakeAnthropic();
});
afterAll(() => fake.stop());

const ready = (f: string) => existsSync(f) && readFileSync(f, "utf8").endsWith("\n");
const pids = (f: string) => readFileSync(f, "utf8").trim().split(/\s+/).map(Number);

for (const [sig, code] of [["SIGTERM", 143], ["SIGINT", 130], ["SIGHUP", 129], ["SIGKILL", null]] as const) {
  test(`${sig} to yoke with an MCP server, a hook and a background shell alive leaves no process behind`, async () => {
    const cwd = tempDir();
    const d = join(cwd, "pids");
    mkdirSync(d);
    const settings = join(cwd, "settings.json");
    writeFileSync(
      settings,
      JSON.stringify({
        hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", timeout: 600, command: `grep -q "never runs" || exit 0; sleep 300 & echo $$ $! > ${d}/hook.tmp; mv ${d}/hook.tmp ${d}/hook.pid; wait` }] }] },
      }),
    );
    const mcp = JSON.stringify({ mcpServers: { pid: { command: "node", args: [join(repoRoot(), "test", "fixtures", "mcp", "pid-server.mjs"), join(d, "mcp.pid")] } } });
    fake.push(
      { content: [{ type: "tool_use", name: "Bash", input: { command: `sleep 300 & echo $$ $! > ${d}/bg.tmp; mv ${d}/bg.tmp ${d}/bg.pid; wait`, run_in_background: true } }] },
      { content: [{ type: "tool_use", name: "Bash", input: { command: "echo never runs" } }] },
    );
    const env = isolatedEnv(fakeApiEnv(fake));
    const proc = spawnYoke(["-p", "go", "--allowedTools", "Bash", "--settings", settings, "--mcp-config", mcp, "--output-format", "stream-json", "--verbose"], { cwd, env });
    proc.stdin.end();
    // Barrier: the background shell ran, then the second Bash call's PreToolUse hook is running.
    await waitFor(() => ready(join(d, "mcp.pid")) && ready(join(d, "bg.pid")) && ready(join(d, "hook.pid")), "the MCP server, the background shell and the hook to start").catch(async (e) => {
      proc.kill("SIGKILL");
      throw new Error(`${e.message}; pids: ${readdirSync(d)}; yoke said: ${await new Response(proc.stdout).text()} ${await new Response(proc.stderr).text()}`);
    });
    const [mcpPid, mcpChild] = pids(join(d, "mcp.pid"));
    const [bgPid, bgChild] = pids(join(d, "bg.pid"));
    const [hookPid, hookChild] = pids(join(d, "hook.pid"));
    const groups = [mcpPid!, bgPid!, hookPid!];
    for (const g of groups) expect(groupMembers(g).length).toBeGreaterThan(0);
    for (const [g, c] of [[mcpPid, mcpChild], [bgPid, bgChild], [hookPid, hookChild]]) expect(groupMembers(g!)).toContain(c!);

    proc.kill(sig);
    const exit = await proc.exited;
    if (code !== null) expect(exit).toBe(code);
    await waitFor(() => groups.every((g) => groupMembers(g).length === 0), `every process group to be gone (left: ${groups.map((g) => groupMembers(g).join(",")).join(" | ")})`).catch(() => {});
    expect(groups.map(groupMembers)).toEqual([[], [], []]);
  }, 60_000);
}

/** Live children of `pid` (their parent is it). */
function childrenOf(pid: number): Array<{ pid: number; comm: string }> {
  const out: Array<{ pid: number; comm: string }> = [];
  for (const e of readdirSync("/proc")) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const st = readFileSync(`/proc/${e}/stat`, "utf8");
      const rest = st.slice(st.lastIndexOf(")") + 2).split(" ");
      if (Number(rest[1]) === pid && rest[0] !== "Z") out.push({ pid: Number(e), comm: st.slice(st.indexOf("(") + 1, st.lastIndexOf(")")) });
    } catch {}
  }
  return out;
}

test("SIGKILL of a sandboxed run: the sandbox library's own children (socat bridges) die too", async () => {
  const cwd = tempDir();
  const marker = join(cwd, "ran");
  fake.push({ content: [{ type: "tool_use", name: "Bash", input: { command: `echo x > ${marker}; sleep 300` } }] });
  const env = { ...isolatedEnv(fakeApiEnv(fake)), YOKE_SANDBOX: "1" };
  const proc = spawnYoke(["-p", "go", "--allowedTools", "Bash", "--output-format", "stream-json", "--verbose"], { cwd, env });
  proc.stdin.end();
  await waitFor(() => existsSync(marker), "the sandboxed Bash call to run", 30_000).catch(async (e) => {
    proc.kill("SIGKILL");
    throw new Error(`${e.message}; yoke said: ${(await new Response(proc.stdout).text()).slice(0, 2000)} ${(await new Response(proc.stderr).text()).slice(0, 2000)}`);
  });
  const bridges = childrenOf(proc.pid).filter((c) => c.comm === "socat");
  expect(bridges.length).toBeGreaterThan(0);
  proc.kill("SIGKILL");
  await proc.exited;
  await waitFor(() => !bridges.some((b) => alive(b.pid)), "the socat bridges to die").catch(() => {});
  expect(bridges.filter((b) => alive(b.pid))).toEqual([]);
}, 60_000);
