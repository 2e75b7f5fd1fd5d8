import { readdirSync } from "node:fs";
import { join } from "node:path";
import type { LoadedSettings } from "../config/load.ts";
import { yokeDir } from "../config/paths.ts";
import { resolveModel } from "../provider/models.ts";
import { anthropicConfigFromEnv, type Credentials, pickCredentials, ProviderConfigError } from "../provider/anthropic/config.ts";
import type { PermissionMode } from "../permission/types.ts";
import { VERSION } from "../version.ts";
import type { Diagnostics } from "../util/diagnostics.ts";
import { helperFailure, runProcessSync } from "../util/subprocess.ts";
import type { ParsedArgs } from "./args.ts";
import { UsageError } from "./args.ts";
import { startMcpEarly, type EarlyMcp } from "./mcp-wiring.ts";
import { checkModelFlags } from "./model-wiring.ts";
import { loadSettingsFromArgs, modeProblem, resolvePermissionMode } from "./run-mode.ts";
import { pluginOnlySurfaces } from "../config/plugin-only.ts";
import { sandboxSettingsOf } from "../sandbox/admin-paths.ts";
import { requiredSandboxMessage, sandboxDeps, sandboxWish } from "../sandbox/deps.ts";
import { fallbackModels, fileArg, parseAgentsFlag, parseBudget, parseMaxTurns } from "./run-flags.ts";
import { runEnv } from "./run-env.ts";
import { sessionMayRefuse, setupSession, type SessionSetup } from "./session-wiring.ts";
import { randomUUID } from "../util/random.ts";

/**
 * The first part of composing a run, up to the spawn of its stdio MCP servers: settings (trust decides which project
 * parts apply), the session's env, the session, the model and the permission mode, and every check of the run's flags,
 * settings and credentials that can refuse it (a fresh session, which refuses nothing, is set up right after the
 * spawn). Only then are the servers spawned (startMcpEarly: strict MCP config,
 * approvals, trust, managed locks and allow/deny lists decide which), so a run its inputs refuse starts none.
 *
 * `yoke -p` runs this before it loads the rest of yoke (headless.ts), so a server's own start overlaps that load
 * (issue 21); compose() runs it itself for every other caller. It loads neither zod nor the model's SDK (settings and
 * server entries are read through util/json-check.ts; test/startup/module-loads.test.ts). Throws SettingsError or
 * UsageError, having spawned nothing.
 *
 * `--json-schema` (zod reads it) and `--agent NAME` (the agent files are read) are checked here when given, so their
 * refusal spawns nothing either. What can still refuse the run after the spawn needs the run composed: an `--agent
 * plugin:name` no loaded plugin has, a required sandbox whose programs are there but cannot create its namespaces
 * (a missing program is refused here). Those refusals end the started
 * servers with yoke (each is in yoke's process group and dies with it, issue 20.8).
 */
export type RunPrelude = {
  settings: LoadedSettings;
  env: Record<string, string>;
  session: SessionSetup;
  model: string;
  fallbacks: string[];
  permissionMode: PermissionMode;
  /** The credentials the run's requests use (apiKeyHelper already run); undefined when none are required. */
  credentials?: Credentials;
  mcpEarly: EarlyMcp;
  /** `--json-schema`'s StructuredOutput tool, made (and checked) before the spawn; null without the flag. */
  structured: StructuredOutput;
};

type StructuredOutput = ReturnType<typeof import("./run-options.ts").structuredOutput>;

export type PreludeOptions = {
  args: ParsedArgs;
  cwd: string;
  log: Diagnostics;
  interactive: boolean;
  /** Subcommands that never call the model skip the credentials check. */
  requireCredentials: boolean;
};

const flagStr = (a: ParsedArgs, k: string) => (typeof a.flags[k] === "string" ? (a.flags[k] as string) : undefined);

export function runPrelude(o: PreludeOptions): RunPrelude {
  const { args, cwd, log } = o;
  const bare = !!args.flags.bare;
  const settings = loadSettingsFromArgs(args, cwd);
  const env = runEnv(settings, (m) => log.warn(m), o.interactive);
  // Flags that refuse a run whatever else it holds, checked before the session is made (it takes a lock).
  parseMaxTurns(flagStr(args, "max-turns"));
  parseBudget(flagStr(args, "max-budget-usd"));
  checkModelFlags(args, settings, env);
  const flagAgents = parseAgentsFlag(flagStr(args, "agents"));
  // What only a loaded module can refuse is refused here too when its flag is given, before any server is spawned
  // (a refused run must start nothing: a server's start may have effects); a run without the flag loads nothing more.
  const jsonSchema = flagStr(args, "json-schema");
  const structured = jsonSchema === undefined ? null : (require("./run-options.ts") as typeof import("./run-options.ts")).structuredOutput(jsonSchema, cwd);
  const agentFlag = flagStr(args, "agent");
  if (agentFlag !== undefined) agentKnownEarly(agentFlag, { cwd, env, settings, flagAgents, bare, pluginDirs: Array.isArray(args.flags["plugin-dir"]) ? (args.flags["plugin-dir"] as string[]) : [] });
  for (const [flag, path] of [["--system-prompt-file", flagStr(args, "system-prompt-file")], ["--append-system-prompt-file", flagStr(args, "append-system-prompt-file")]] as const) {
    try {
      fileArg(path, flag);
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
  }
  const rewindTo = flagStr(args, "rewind-files");
  if (rewindTo !== undefined && args.flags.resume === undefined && !args.flags.continue) throw new UsageError("--rewind-files needs --resume ID (or --continue)");
  // Keys and tokens that pass through a session are written to the transcript as [REDACTED] unless switched off.
  const setup = (sessionId?: string) =>
    setupSession(args, cwd, env, { interactive: o.interactive, redact: settings.merged.redactTranscripts !== false && env.YOKE_REDACT_TRANSCRIPTS !== "0", warn: (m) => log.warn(m), sessionId });
  // A session to find, fork or check is set up here, where it may refuse the run; a fresh one (a new random id, which
  // nothing refuses) after the spawn below: its lock, store and checkpoints are ~1-2 ms of CPU the servers' start
  // need not wait for (issue 21).
  let session = sessionMayRefuse(args) ? setup() : undefined;
  const sessionId = session?.sessionId ?? randomUUID();
  try {
    env.CLAUDE_CODE_SESSION_ID = sessionId;
    if (rewindTo !== undefined) rewindProblem(session!, rewindTo); // --rewind-files needs --resume or --continue (above)
    const credentials = o.requireCredentials ? runCredentials(env, settings) : undefined;
    const restored = session?.restored ?? {};
    const model = resolveModel(flagStr(args, "model") ?? env.ANTHROPIC_MODEL ?? restored.model ?? settings.merged.model ?? "default");
    // `--fallback-model a,b` (or settings fallbackModel): taken in order when the current model is overloaded or gone.
    const fallbacks = fallbackModels(flagStr(args, "fallback-model"), settings.merged.fallbackModel, model);
    const permissionMode = resolvePermissionMode(args, settings, restored.permissionMode);
    const problem = modeProblem(permissionMode, settings, env);
    if (problem) throw new UsageError(problem);
    requiredSandboxEarly(settings, env);
    // MCP stdio servers start now: their own start overlaps the rest of startup (bench/mcp.ts).
    const mcpEarly = startMcpEarly({ args, cwd, env, settings, yokeDir: yokeDir(env), bare });
    session ??= setup(sessionId);
    return { settings, env, session, model, fallbacks, permissionMode, credentials, mcpEarly, structured };
  } catch (e) {
    session?.store.close?.();
    throw e;
  }
}

/**
 * `--agent NAME` refused before the spawn when no agent can have that name: the built-in ones, `--agents`, and the
 * user's and project's agent files (unless managed strictPluginOnlyCustomization locks them) are read now. A plugin's
 * agent is named `plugin:agent`, and plugins load after the spawn, so such a name is left to compose's check unless no
 * plugin can load at all.
 */
function agentKnownEarly(
  name: string,
  o: { cwd: string; env: Record<string, string>; settings: LoadedSettings; flagAgents?: Record<string, unknown>; bare: boolean; pluginDirs: string[] },
): void {
  const { loadAgents } = require("../agent/load.ts") as typeof import("../agent/load.ts");
  const { mainAgent } = require("./main-agent-name.ts") as typeof import("./main-agent-name.ts");
  const pluginOnly = pluginOnlySurfaces(o.settings, () => {}).has("agents");
  const agents = loadAgents({ cwd: o.cwd, env: o.env, flagAgents: o.flagAgents, pluginOnly }).agents;
  // A plugin's agent (`plugin:agent`) is known once plugins load, after the spawn: compose checks that name then.
  if (name.includes(":") && pluginsMayLoad(o)) return;
  mainAgent(name, agents);
}

/**
 * Whether any Claude Code plugin (the only kind with agents) may load in this run, as plugin/loader.ts finds them:
 * not under `--bare`; an `enabledPlugins` entry, a `--plugin-dir`, or an entry in `~/.yoke/plugins` or the project's
 * `.yoke/plugins`. Errs towards yes: it only decides whether `--agent plugin:name` can be refused before the spawn.
 */
function pluginsMayLoad(o: { cwd: string; env: Record<string, string>; settings: LoadedSettings; bare: boolean; pluginDirs: string[] }): boolean {
  if (o.bare) return false;
  if (o.pluginDirs.length) return true;
  if (Object.values((o.settings.merged as { enabledPlugins?: Record<string, unknown> }).enabledPlugins ?? {}).some((on) => on === true)) return true;
  const entries = (dir: string) => {
    try {
      return readdirSync(dir).some((n) => !n.startsWith("."));
    } catch {
      return false;
    }
  };
  return entries(join(yokeDir(o.env), "plugins")) || entries(join(o.cwd, ".yoke", "plugins"));
}

/**
 * A sandbox the run requires (`sandbox.enabled: true`, `failIfUnavailable`, YOKE_SANDBOX=1) whose programs are missing
 * refuses the run before the spawn, with wireSandbox's words; that it can create its namespaces is known only from
 * bubblewrap's own start, which overlaps the servers' (compose), so that refusal still comes after them. Reads the
 * same settings and PATH as wireSandbox; says nothing else (wireSandbox says the rest once).
 */
function requiredSandboxEarly(settings: LoadedSettings, env: Record<string, string>): void {
  const wish = sandboxWish(settings.merged.sandbox, env);
  if (wish.want !== "on" || !wish.required) return;
  const deps = sandboxDeps(sandboxSettingsOf(settings, () => {}), { ...env, PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin" });
  if (!deps.ok) throw new UsageError(requiredSandboxMessage(env, deps.reason));
}

/** `--rewind-files UUID` that cannot be done: refused here, before any MCP server starts (headless.ts does the rewind). */
function rewindProblem(session: SessionSetup, uuid: string): void {
  if (!session.checkpoints) throw new UsageError("--rewind-files: file checkpoints are off in this session (--no-session-persistence)");
  if (!session.checkpoints.list().some((c) => c.userUuid === uuid)) throw new UsageError(`--rewind-files: no checkpoint for user message ${uuid} in session ${session.sessionId}`);
}

/**
 * The run's credentials, Claude Code's precedence (ANTHROPIC_AUTH_TOKEN > ANTHROPIC_API_KEY > apiKeyHelper), checked
 * as the provider will use them. Throws UsageError without any (and no ANTHROPIC_BASE_URL), when apiKeyHelper fails,
 * or when a value cannot be sent.
 */
function runCredentials(env: Record<string, string>, settings: LoadedSettings): Credentials {
  const creds = pickCredentials(env, () => apiKeyFromHelper(settings.merged.apiKeyHelper, env));
  if (creds.source === "none" && !env.ANTHROPIC_BASE_URL)
    throw new UsageError(NO_CREDENTIALS);
  try {
    anthropicConfigFromEnv(env, VERSION, creds);
  } catch (e) {
    if (e instanceof ProviderConfigError) throw new UsageError(e.message);
    throw e;
  }
  return creds;
}

export const NO_CREDENTIALS =
  "no credentials: set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN, or apiKeyHelper in settings), or ANTHROPIC_BASE_URL for a gateway or local server that needs no key";

/** The key `apiKeyHelper` prints (a shell command). Throws UsageError naming it when it fails. */
export function apiKeyFromHelper(helper: string | undefined, env: Record<string, string>): string | undefined {
  if (!helper) return undefined;
  const r = runProcessSync(["/bin/sh", "-c", helper], { env, timeoutMs: 30_000, maxOutputBytes: 1024 * 1024 });
  const why = helperFailure(r, 30_000);
  if (why) throw new UsageError(`apiKeyHelper failed (${helper}): ${why}`);
  return r.stdout.trim() || undefined;
}
