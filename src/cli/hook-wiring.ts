import { randomUUID } from "../util/random.ts";
import type { LoadedSettings } from "../config/load.ts";
import { createHookBus, type YokeHookBus } from "../hook/bus.ts";
import type { McpToolCaller } from "../hook/mcp-tool.ts";
import type { Diagnostics } from "../util/diagnostics.ts";
import type { Outbox } from "./outbox.ts";
import { hookIfMatcher } from "./run-options.ts";

/** contracts §1.9 / §4.4: the SDK types hook_response.outcome as success | error | cancelled. */
const sdkOutcome = (o: string): string => (o === "success" || o === "cancelled" ? o : "error");

/**
 * The session's hook bus: settings hooks (none with --bare), `if` rules through the permission rule matcher,
 * failures to stderr, and hook_started / hook_response lines to the outbox for stream-json. Never throws.
 */
export function wireHooks(o: {
  settings: LoadedSettings;
  bare: boolean;
  cwd: string;
  sessionCwd: () => string;
  env: Record<string, string>;
  sessionId: string;
  yokeDir: string;
  outbox: Outbox;
  includeHookEvents: boolean;
  reportHookErrors: boolean;
  log: Diagnostics;
  /** `mcp_tool` hooks call the session's MCP servers through this. */
  callMcpTool?: McpToolCaller;
}): YokeHookBus {
  const { outbox, includeHookEvents } = o;
  return createHookBus({
    settings: o.bare ? { merged: {}, sources: [] } : o.settings,
    projectDir: o.cwd,
    cwd: o.sessionCwd,
    env: o.env,
    sessionId: o.sessionId,
    yokeDir: o.yokeDir,
    matchRule: hookIfMatcher(o.cwd, o.env),
    callMcpTool: o.callMcpTool,
    onStart: (event, st) => {
      if (includeHookEvents || event === "SessionStart")
        outbox.push({ type: "system", subtype: "hook_started", data: { hook_id: st.id, hook_name: st.hookName, hook_event: event } });
    },
    onRecord: (event, r) => {
      // A hook that crashed, timed out or printed garbage is reported (naming command and settings file) and the run goes on.
      if (r.error && r.outcome !== "cancelled" && o.reportHookErrors) o.log.error(`[${r.hookName}] ${r.error}`);
      if (!includeHookEvents && event !== "SessionStart") return;
      outbox.push({
        type: "system",
        subtype: "hook_response",
        data: {
          hook_id: r.id ?? randomUUID(),
          hook_name: r.hookName,
          hook_event: event,
          output: r.stdout + r.stderr,
          stdout: r.stdout,
          stderr: r.stderr,
          exit_code: r.exitCode,
          outcome: sdkOutcome(r.outcome),
        },
      });
    },
  });
}
