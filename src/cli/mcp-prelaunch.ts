import type { LoadedSettings } from "../config/load.ts";
import { randomUUID } from "../util/random.ts";
import { yokeDir } from "../config/paths.ts";
import type { Prestarted } from "../mcp/transports.ts";
import type { ParsedArgs } from "./args.ts";
import { startMcpEarly } from "./mcp-wiring.ts";
import { checkRunFlags } from "./print-flags.ts";
import { runEnv } from "./run-env.ts";
import { gatedSettings } from "./settings-args.ts";

/**
 * The configured stdio MCP servers of a headless run, started right after the arguments are parsed, before the
 * headless modules load (issue 21 point 2): a `node` server takes ~80 ms to start, and it no longer waits for ~50 ms
 * of module loading first. The decision is the run's own, made by the same code with the same inputs (the settings
 * levels gated by workspace trust, approval keys, `--mcp-config`, `--strict-mcp-config`/`--bare`, the managed
 * policy, and the env compose gives the server, session id included), so a server the run would not start is never
 * started here. compose takes over each process whose launch (program, arguments, env, folder, log) is the one it
 * decides on (`startMcpEarly`'s `ahead`) and stops any other. Plugin servers still start once plugins load.
 */
export type McpPrelaunch = {
  /** The new session's id: compose gives the session this id, so the servers' CLAUDE_CODE_SESSION_ID is right. */
  sessionId: string;
  /** The settings view the decision was made on: compose goes on with it rather than reading the files again. */
  settings: LoadedSettings;
  /** The processes started, for compose to take over. */
  started: Prestarted;
  /** Stops every process compose did not take over (the run ended before composing). Never throws. */
  discard(): void;
};

/**
 * Starts what the run will start, or returns null and leaves everything to compose: a resumed or forked session
 * (its id is in a transcript compose reads), a `--session-id` compose refuses, settings that do not load (compose
 * says why, once). Says nothing; never throws.
 */
export function prelaunchMcp(args: ParsedArgs, cwd: string): McpPrelaunch | null {
  const f = args.flags;
  if (f.resume !== undefined || f.continue || f["fork-session"]) return null;
  const asked = f["session-id"];
  if (asked !== undefined && (typeof asked !== "string" || !UUID.test(asked))) return null;
  try {
    // A run its flags refuse starts nothing (headless.ts says why).
    checkRunFlags(args);
    const settings = gatedSettings(args, cwd);
    const env = runEnv(settings, () => {}, false);
    const sessionId = (asked as string | undefined) ?? randomUUID();
    env.CLAUDE_CODE_SESSION_ID = sessionId;
    const early = startMcpEarly({ args, cwd, env, settings, yokeDir: yokeDir(env), bare: !!f.bare });
    return {
      sessionId,
      settings,
      started: early.started,
      discard() {
        for (const s of early.started.values()) void s.transport.close().catch(() => {});
        early.started.clear();
      },
    };
  } catch {
    return null;
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
