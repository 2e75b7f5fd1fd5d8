// Issue 21 point 2: the configured, approved stdio MCP servers start right after the arguments are parsed, before
// the headless modules load (src/cli/mcp-prelaunch.ts), and compose takes the process over. The early start decides
// exactly as the run does: every variant here counts the starts the probe server logs (one per process), so a server
// the run would not start is never started, and one the run starts is started once, with the run's env.
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot, yokeBin } from "../helpers/binary.ts";
import { tempDir, writeTree } from "../helpers/tmp.ts";
import { waitFor } from "../helpers/wait-for.ts";
import { alive } from "../helpers/process-alive.ts";
import { runWith, say } from "./hooks-helpers.ts";
import { toolNames } from "./mcp-helpers.ts";

setDefaultTimeout(60_000);
beforeAll(() => void yokeBin());

const PROBE = join(repoRoot(), "test", "fixtures", "mcp", "probe-server.mjs");
type Start = { pid: number; cwd: string; argv: string[]; env: Record<string, string> };

/** A project whose `.mcp.json` holds the probe server `probe` (logging to `<log dir>/<name>.jsonl`), and these local settings. */
function probeProject(local: Record<string, unknown> | null, servers = ["probe"]): { cwd: string; logs: string } {
  const cwd = tempDir("yoke-prelaunch-");
  const logs = tempDir("yoke-prelaunch-logs-");
  const mcpServers = Object.fromEntries(servers.map((n) => [n, { command: "node", args: [PROBE, join(logs, `${n}.jsonl`)] }]));
  writeFileSync(join(cwd, ".mcp.json"), JSON.stringify({ mcpServers }, null, 2));
  mkdirSync(join(cwd, ".claude"), { recursive: true });
  if (local) writeFileSync(join(cwd, ".claude", "settings.local.json"), JSON.stringify(local, null, 2));
  return { cwd, logs };
}

const starts = (logs: string, name = "probe"): Start[] => {
  const f = join(logs, `${name}.jsonl`);
  return existsSync(f) ? readFileSync(f, "utf8").trim().split("\n").map((l) => JSON.parse(l)) : [];
};
const timed = ["--output-format", "stream-json", "--verbose"];
const TIMING = { YOKE_TIMING: "1" };
/** The phase marks of YOKE_TIMING's line, in the order they happened. */
const marks = (stderr: string): string[] => (/yoke timing \(ms since start\): (.*)/.exec(stderr)?.[1] ?? "").split(" ").map((m) => m.split("=")[0]!);
const initOf = (lines: any[]) => lines.find((l) => l.subtype === "init");

describe("approved stdio servers start before the headless modules load", () => {
  test("an approved .mcp.json server: spawned before headless-loaded, started once, with the run's session id and env, connected", async () => {
    const { cwd, logs } = probeProject({ enableAllProjectMcpServers: true, env: { PROBE_FROM_SETTINGS: "yes" } });
    const r = await runWith(cwd, [say("ok")], timed, { env: TIMING });
    expect(r.code).toBe(0);
    const m = marks(r.stderr);
    // Ordering of two marks, not a duration: the spawn now happens before the headless modules are loaded.
    expect(m.indexOf("mcp-probe-spawned")).toBeGreaterThanOrEqual(0);
    expect(m.indexOf("mcp-probe-spawned")).toBeLessThan(m.indexOf("headless-loaded"));
    // Spawned once: compose took the early process over (a second spawn would be marked again, and its log line
    // could be the only one, the first process being stopped before node wrote anything).
    expect(m.filter((x) => x === "mcp-probe-spawned")).toHaveLength(1);
    const s = starts(logs);
    expect(s).toHaveLength(1);
    const init = initOf(r.lines!);
    expect(s[0]!.env.CLAUDE_CODE_SESSION_ID).toBe(init.session_id);
    expect(s[0]!.env.PROBE_FROM_SETTINGS).toBe("yes");
    expect(s[0]!.env.CLAUDE_PROJECT_DIR).toBe(cwd);
    expect(init.mcp_servers).toEqual([{ name: "probe", status: "connected" }]);
    expect(toolNames(r.requests[0]!)).toContain("mcp__probe__ping");
  });

  test("--session-id: the server sees the id asked for; --resume: the resumed session's id (the run starts it, once)", async () => {
    const { cwd, logs } = probeProject({ enabledMcpjsonServers: ["probe"] });
    const id = "3f2c1b7e-8d4a-4c6b-9e2f-1a2b3c4d5e6f";
    // One HOME for both runs: the second resumes the first's transcript.
    const env = { HOME: tempDir("yoke-prelaunch-home-"), ...TIMING };
    let r = await runWith(cwd, [say("ok")], ["--session-id", id], { env });
    expect(r.code).toBe(0);
    expect(marks(r.stderr).filter((x) => x === "mcp-probe-spawned")).toHaveLength(1);
    expect(starts(logs).map((s) => s.env.CLAUDE_CODE_SESSION_ID)).toEqual([id]);
    r = await runWith(cwd, [say("again")], ["--resume", id], { env });
    expect(r.code).toBe(0);
    expect(starts(logs).map((s) => s.env.CLAUDE_CODE_SESSION_ID)).toEqual([id, id]);
  });
});

describe("what the run would not start is never started early", () => {
  const none = async (local: Record<string, unknown> | null, args: string[] = [], env: Record<string, string | undefined> = {}) => {
    const { cwd, logs } = probeProject(local);
    const r = await runWith(cwd, [say("ok")], [...timed, ...args], { env });
    return { r, logs, cwd };
  };

  test("unapproved, disabled (disabledMcpjsonServers wins), approved only by the committed project settings", async () => {
    for (const local of [null, { enableAllProjectMcpServers: true, disabledMcpjsonServers: ["probe"] }]) {
      const { r, logs } = await none(local);
      expect(r.code).toBe(0);
      expect(starts(logs)).toHaveLength(0);
      expect(initOf(r.lines!).mcp_servers).toEqual([{ name: "probe", status: "disabled" }]);
    }
    const { cwd, logs } = probeProject(null);
    writeFileSync(join(cwd, ".claude", "settings.json"), JSON.stringify({ enableAllProjectMcpServers: true }));
    const r = await runWith(cwd, [say("ok")], timed);
    expect(r.code).toBe(0);
    expect(starts(logs)).toHaveLength(0);
  });

  test("denied by the managed policy (deniedMcpServers, an allowlist without it)", async () => {
    for (const policy of [{ deniedMcpServers: [{ serverName: "probe" }] }, { allowedMcpServers: [{ serverName: "other" }] }]) {
      const dir = tempDir("yoke-managed-");
      writeFileSync(join(dir, "managed-settings.json"), JSON.stringify(policy));
      const { r, logs } = await none({ enableAllProjectMcpServers: true }, [], { YOKE_MANAGED_DIR: dir });
      expect(r.code).toBe(0);
      expect(starts(logs)).toHaveLength(0);
      expect(r.stderr.match(/server "probe"/g)).toHaveLength(1);
    }
  });

  test("an untrusted folder's .mcp.json, however approved", async () => {
    const { r, logs } = await none({ enableAllProjectMcpServers: true }, [], { YOKE_TRUST_WORKSPACE: undefined });
    expect(r.code).toBe(0);
    expect(starts(logs)).toHaveLength(0);
    // The early start reads the same trust-gated settings without a word: the notice is the run's, said once.
    expect(r.stderr.match(/is not trusted/g)).toHaveLength(1);
    expect(initOf(r.lines!).mcp_servers).toEqual([{ name: "probe", status: "disabled" }]);
  });

  test("--strict-mcp-config and --bare: only --mcp-config servers start, each once", async () => {
    for (const flag of ["--strict-mcp-config", "--bare"]) {
      const { cwd, logs } = probeProject({ enableAllProjectMcpServers: true });
      const flagServer = JSON.stringify({ mcpServers: { flagged: { command: "node", args: [PROBE, join(logs, "flagged.jsonl")] } } });
      const r = await runWith(cwd, [say("ok")], [...timed, flag, "--mcp-config", flagServer]);
      expect(r.code).toBe(0);
      expect(starts(logs)).toHaveLength(0);
      expect(starts(logs, "flagged")).toHaveLength(1);
    }
  });

  test("a plugin's server starts once, when plugins load (never early, never twice)", async () => {
    const { cwd, logs } = probeProject(null);
    const plug = tempDir("yoke-prelaunch-plugin-");
    writeTree(plug, {
      ".claude-plugin/plugin.json": JSON.stringify({ name: "kit" }),
      ".mcp.json": JSON.stringify({ mcpServers: { probe: { command: "node", args: [PROBE, join(logs, "plugin.jsonl")] } } }),
    });
    const r = await runWith(cwd, [say("ok")], [...timed, "--plugin-dir", plug]);
    expect(r.code).toBe(0);
    expect(starts(logs, "plugin")).toHaveLength(1);
    expect(initOf(r.lines!).mcp_servers).toContainEqual({ name: "plugin:kit:probe", status: "connected" });
  });

  test("settings that do not load: the error is said once, by the run, and nothing starts", async () => {
    const { cwd, logs } = probeProject({ enableAllProjectMcpServers: true, permissions: { defaultMode: "sideways" } });
    const r = await runWith(cwd, [say("ok")], []);
    expect(r.code).toBe(1);
    expect(r.stderr.match(/invalid settings/g)).toHaveLength(1);
    expect(starts(logs)).toHaveLength(0);
  });

  test("a run refused after the early start (a bad flag value) leaves no server running", async () => {
    const { cwd, logs } = probeProject({ enableAllProjectMcpServers: true });
    const r = await runWith(cwd, [say("ok")], ["--output-format", "yaml"]);
    expect(r.code).toBe(1);
    for (const s of starts(logs)) await waitFor(() => !alive(s.pid), `probe server ${s.pid} to end`, 15_000);
  });
});
