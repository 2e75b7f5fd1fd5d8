// Issue 21 point 2: processes the prelaunch started (src/cli/mcp-prelaunch.ts) are taken over by the run's own
// start only when the launch is the very same (program, arguments, env, folder, log); any other is stopped and the
// server started afresh, and one the run does not start at all is stopped unused.
import { expect, test } from "bun:test";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { ScopedServer } from "../../src/mcp/config.ts";
import { type Prestarted, prestartStdio, sameLaunch } from "../../src/mcp/transports.ts";
import type { StdioTransportOptions } from "../../src/mcp/stdio-transport.ts";
import { tempDir } from "../helpers/tmp.ts";

const cwd = tempDir("yoke-ahead-");
const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
const server = (name: string, args: string[] = ["-c", "sleep 30"]): ScopedServer => ({ name, scope: "project", source: "/p/.mcp.json", config: { command: "sh", args } });
const launchOf = (args: string[], extraEnv: Record<string, string> = {}): StdioTransportOptions => ({
  command: "sh",
  args,
  env: { ...env, CLAUDE_PROJECT_DIR: cwd, ...extraEnv },
  cwd,
  logFile: undefined,
});
/** A transport that only says whether it was closed (the test's stand-in for a process started ahead). */
const standIn = () => {
  const t = { closed: false, start: async () => {}, send: async () => {}, close: async () => void (t.closed = true) };
  return t as typeof t & Transport;
};

test("sameLaunch: equal only when program, arguments, env, folder and log all are", () => {
  const a = launchOf(["-c", "x"]);
  expect(sameLaunch(a, launchOf(["-c", "x"]))).toBe(true);
  expect(sameLaunch(a, launchOf(["-c", "y"]))).toBe(false);
  expect(sameLaunch(a, launchOf(["-c"]))).toBe(false);
  expect(sameLaunch(a, launchOf(["-c", "x"], { CLAUDE_CODE_SESSION_ID: "other" }))).toBe(false);
  expect(sameLaunch(a, { ...a, env: { ...a.env, PATH: "/elsewhere" } })).toBe(false);
  expect(sameLaunch(a, { ...a, cwd: "/" })).toBe(false);
  expect(sameLaunch(a, { ...a, logFile: "/l.log" })).toBe(false);
  expect(sameLaunch(a, { ...a, command: "bash" })).toBe(false);
});

test("the same launch is taken over (no second process); a different one is stopped and replaced; one not started is stopped", async () => {
  const same = standIn();
  const differs = standIn();
  const unused = standIn();
  const ahead: Prestarted = new Map([
    ["same", { launch: launchOf(["-c", "sleep 30"]), transport: same }],
    ["differs", { launch: launchOf(["-c", "sleep 30"], { CLAUDE_CODE_SESSION_ID: "old" }), transport: differs }],
    ["unused", { launch: launchOf(["-c", "sleep 30"]), transport: unused }],
  ]);
  const { factories, started } = prestartStdio([server("same"), server("differs")], { cwd, env }, ahead);
  expect(await factories.get("same")!()).toBe(same);
  expect(same.closed).toBe(false);
  expect(differs.closed).toBe(true);
  expect(unused.closed).toBe(true);
  const fresh = await factories.get("differs")!();
  expect(fresh).not.toBe(differs);
  expect(started.get("differs")!.transport).toBe(fresh);
  expect(ahead.size).toBe(0);
  await fresh.close();
});
