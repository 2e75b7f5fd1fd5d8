import { randomUUID } from "../util/random.ts";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { LoadedSettings } from "../config/load.ts";
import type { HookHandlerConfig } from "../config/schema.ts";
import { clampTimerMs, runHookCommand } from "./command.ts";
import { type ConfiguredHook, collectSettingsHooks, commandLabel, dedupeKey, disabledByPolicy, hookPolicy } from "./config.ts";
import { capText, type EventSpec, type HandlerResult, type HookJsonOutput } from "./events/common.ts";
import { EVENT_SPECS, isHookEventName } from "./events/index.ts";
import { sessionEndBudgetMs } from "./events/session-end.ts";
import { interpretCommandRun, validateOutput } from "./interpret.ts";
import { type McpToolCaller, runMcpToolHook } from "./mcp-tool.ts";
import { runHttpHook } from "./http-hook.ts";
import { matcherMatches } from "./matcher.ts";
import { sessionEnvFile } from "./session-env.ts";
import { emptyOutcome, type HookBus, type HookEventName, type HookOutcome, type HookRecord } from "./types.ts";

/**
 * An in-process (plugin) hook handler. Same JSON output shape as a command hook; returning nothing
 * means "no opinion". It may throw: the bus records the failure with the plugin's name, and on
 * PreToolUse blocks the tool (fails closed).
 */
export type InProcessHandler = (
  payload: Record<string, unknown>,
  ctx: { signal: AbortSignal },
) => Promise<HookJsonOutput | void> | HookJsonOutput | void;

export type InProcessOptions = { matcher?: string; timeoutMs?: number; /** Plugin name. */ source: string };

/** One row of `yoke hooks list`. */
export type HookListing = {
  event: string;
  matcher: string;
  type: string;
  command: string;
  /** Settings file path, `plugin: <name>` (in-process), or `plugin: <name> (<hooks.json path>)` (Claude Code plugin). */
  source: string;
  level?: string;
  async?: boolean;
  timeoutSec?: number;
  if?: string;
  /** Why it will not run, if it will not (policy, unsupported type, unknown event). */
  note?: string;
};

export type RuleMatcher = (rule: string, toolName: string, input: Record<string, unknown>) => boolean;

export type HookBusOptions = {
  settings: LoadedSettings;
  /** Where the session started: `CLAUDE_PROJECT_DIR` (contracts §1.8). */
  projectDir: string;
  /** The session's current cwd: hook processes run there. */
  cwd: () => string;
  /** Parent environment for hook processes (usually process.env). */
  env: Record<string, string | undefined>;
  sessionId: string;
  /** yoke's state dir (`~/.yoke`): CLAUDE_ENV_FILE files live under `session-env/`. */
  yokeDir: string;
  /** Evaluates a hook's `if` permission rule; without it such hooks run as if it matched. */
  matchRule?: RuleMatcher;
  /** Called for every handler record as it completes (stream-json hook events), async hooks included. */
  onRecord?: (event: HookEventName, record: HookRecord) => void;
  /** Called as each matched handler starts; its record carries the same id (stream-json hook_started). */
  onStart?: (event: HookEventName, start: { id: string; hookName: string }) => void;
  /** Calls a tool of the session's MCP servers (`mcp_tool` hooks); without it such hooks fail as not connected. */
  callMcpTool?: McpToolCaller;
};

export type YokeHookBus = HookBus & {
  /** Adds a plugin handler; returns its unregister function. Never throws. */
  registerInProcess(event: HookEventName, handler: InProcessHandler, opts: InProcessOptions): () => void;
  /** Every configured hook, running or not, with the reason when not. */
  list(): HookListing[];
  /** Waits for running `async: true` hooks (at most `timeoutMs`). Never throws. */
  drainAsync(timeoutMs?: number): Promise<void>;
  /** additionalContext/systemMessage from finished async hooks since the last call (delivered next turn). */
  takeAsyncOutput(): { additionalContext: string[]; systemMessages: string[]; /** Per finished hook: its systemMessage then additionalContext. */ items: string[][] };
  /**
   * Adds a Claude Code plugin's `hooks/hooks.json` (contracts §6.1): `${CLAUDE_PLUGIN_ROOT}` and friends are
   * substituted and exported. Subject to disableAllHooks / allowManagedHooksOnly like settings hooks.
   */
  /** Adds a plugin's (or an agent's) configured hooks; the returned function removes them again. */
  addPluginHooks(hooks: Record<string, Array<{ matcher?: string; hooks: HookHandlerConfig[] }>>, meta: { path: string; owner: string; env: Record<string, string>; /** `name@marketplace`, named in block messages. */ pluginId?: string }): () => void;
  readonly sessionId: string;
  readonly projectDir: string;
  cwd(): string;
};

type Registered = { event: HookEventName; handler: InProcessHandler; opts: InProcessOptions };

const SUPPORTED_TYPES = new Set(["command", "mcp_tool", "http"]);

/** contracts §1.8: the environment every command hook gets. */
export function hookBaseEnv(opts: Pick<HookBusOptions, "env" | "settings" | "projectDir" | "sessionId">): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(opts.env)) if (v !== undefined && !k.startsWith("OTEL_")) env[k] = v;
  Object.assign(env, opts.settings.merged.env ?? {});
  env.CLAUDE_PROJECT_DIR = opts.projectDir;
  env.CLAUDECODE = "1";
  env.CLAUDE_CODE_ENTRYPOINT = opts.env.CLAUDE_CODE_ENTRYPOINT ?? "cli";
  env.CLAUDE_CODE_SESSION_ID = opts.sessionId;
  env.CLAUDE_PID = String(process.pid);
  return env;
}

const substitute = (s: string, projectDir: string) => s.replaceAll("${CLAUDE_PROJECT_DIR}", projectDir);
const substituteVars = (s: string, vars: Record<string, string> | undefined) => {
  if (!vars) return s;
  for (const [k, v] of Object.entries(vars)) s = s.replaceAll(`\${${k}}`, v);
  return s;
};

/** Creates the bus over every settings file's hooks. Never throws; `emit` never throws. */
export function createHookBus(opts: HookBusOptions): YokeHookBus {
  const policy = hookPolicy(opts.settings);
  const configured = collectSettingsHooks(opts.settings, policy);
  const registered: Registered[] = [];
  const baseEnv = hookBaseEnv(opts);
  const pending = new Set<Promise<void>>();
  const asyncOut = { additionalContext: [] as string[], systemMessages: [] as string[], items: [] as string[][] };

  const record = (event: HookEventName, r: HookRecord) => {
    try {
      opts.onRecord?.(event, r);
    } catch {
      // a broken listener must not break the hook run
    }
  };

  const runnable = (h: ConfiguredHook): boolean => !h.disabledBy;

  function matchedCommands(event: HookEventName, spec: EventSpec, matchValue: string | undefined, payload: Record<string, unknown>) {
    const byKey = new Map<string, ConfiguredHook>();
    for (const h of configured) {
      if (h.event !== event || !runnable(h)) continue;
      if (spec.matchField && !matcherMatches(h.matcher, matchValue)) continue;
      if (h.handler.if !== undefined) {
        if (!spec.ifApplies) continue;
        const input = (payload.tool_input ?? {}) as Record<string, unknown>;
        if (opts.matchRule && !safeRule(opts.matchRule, h.handler.if, String(payload.tool_name ?? ""), input)) continue;
      }
      const key = (h.owner ? `${h.owner}\0` : "") + dedupeKey(h.handler);
      byKey.delete(key); // the last duplicate wins (internals §8.1)
      byKey.set(key, h);
    }
    return [...byKey.values()];
  }

  async function runCommand(
    event: HookEventName,
    spec: EventSpec,
    h: ConfiguredHook,
    hookName: string,
    stdin: string,
    n: number,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<HandlerResult> {
    const handler = h.handler as HookHandlerConfig;
    // A plugin hook's command is named with ${CLAUDE_PLUGIN_ROOT} and friends expanded; a settings hook's as written (observed in 2.1.332).
    const label = substituteVars(commandLabel(handler), h.extraEnv);
    const skipped = (source: string, error: string): HandlerResult => ({
      record: { source, hookName, exitCode: null, stdout: "", stderr: "", durationMs: 0, outcome: "non_blocking_error", error },
    });
    if (!SUPPORTED_TYPES.has(handler.type))
      return skipped(`${handler.type}: ${label} (${h.path})`, `hook type "${handler.type}" in ${h.path} is not supported by yoke yet; it was skipped`);
    if (handler.type === "mcp_tool") {
      const run = await runMcpToolHook({ handler, payload: JSON.parse(stdin) as Record<string, unknown>, call: opts.callMcpTool, timeoutMs, signal });
      return interpretCommandRun(run, { spec, hookName, label, path: h.path, timeoutMs, pluginId: h.pluginId, what: `mcp_tool hook ${label}`, onFailureBlock: handler.onFailure === "block" && spec.onFailureApplies });
    }
    if (handler.type === "http") {
      const run = await runHttpHook({ handler, body: stdin, env: { ...baseEnv, ...h.extraEnv }, timeoutMs, signal });
      return interpretCommandRun(run, { spec, hookName, label, path: h.path, timeoutMs, pluginId: h.pluginId, what: `http hook ${label}`, onFailureBlock: handler.onFailure === "block" && spec.onFailureApplies });
    }
    if (!handler.command) return skipped(`command: (none) (${h.path})`, `a ${event} command hook in ${h.path} has no "command"; it was skipped`);
    const env = { ...baseEnv, ...h.extraEnv };
    if (event === "SessionStart") {
      const file = sessionEnvFile(opts.yokeDir, opts.sessionId, n);
      try {
        mkdirSync(join(opts.yokeDir, "session-env", opts.sessionId), { recursive: true });
        env.CLAUDE_ENV_FILE = file;
      } catch {
        // without the dir the hook simply gets no CLAUDE_ENV_FILE
      }
    }
    const isAsync = handler.async === true;
    const run = await runHookCommand({
      command: substituteVars(substitute(handler.command ?? "", opts.projectDir), h.extraEnv),
      args: handler.args?.map((a) => substituteVars(substitute(a, opts.projectDir), h.extraEnv)),
      cwd: opts.cwd(),
      env,
      stdin,
      timeoutMs,
      signal,
      allowAsync: !isAsync,
    });
    const ctx = { spec, hookName, label, path: h.path, timeoutMs, pluginId: h.pluginId, onFailureBlock: handler.onFailure === "block" && spec.onFailureApplies && !isAsync };
    if (run.background || run.declaredAsync) {
      // contracts §1.6 async form: the hook said `{"async":true}` first, so it decides nothing now; its later
      // additionalContext and systemMessage arrive as an `async` hook's do (next turn).
      trackAsync(event, (run.background ?? Promise.resolve(run)).then((r) => interpretCommandRun(r, { ...ctx, onFailureBlock: false })));
      return {
        record: { source: `command: ${label} (${h.path})`, hookName, exitCode: null, stdout: run.background ? run.stdout : "", stderr: "", durationMs: run.durationMs, outcome: "success" },
      };
    }
    return interpretCommandRun(run, ctx);
  }

  async function runInProcess(spec: EventSpec, r: Registered, hookName: string, payload: Record<string, unknown>, signal?: AbortSignal) {
    const started = performance.now();
    const name = r.opts.source;
    const timeoutMs = r.opts.timeoutMs ?? spec.defaultTimeoutSec * 1000;
    const ac = new AbortController();
    // The step's abort settles the race too: a handler that ignores its signal must not hold the step until its timeout.
    let cancel!: (e: Error) => void;
    const cancelled = new Promise<never>((_, reject) => (cancel = reject));
    const onAbort = () => {
      ac.abort(signal?.reason);
      cancel(new Error("cancelled"));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const rec: HookRecord = { source: `plugin: ${name}`, command: `plugin:${name}`, hookName, exitCode: null, stdout: "", stderr: "", durationMs: 0, outcome: "success" };
    const result: HandlerResult = { record: rec };
    let failure: string | undefined;
    try {
      if (signal?.aborted) throw new Error("cancelled");
      const value = await Promise.race([
        Promise.resolve().then(() => r.handler(payload, { signal: ac.signal })),
        cancelled,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(Object.assign(new Error(`timed out after ${timeoutMs} ms`), { timeout: true })), clampTimerMs(timeoutMs));
        }),
      ]);
      if (value !== undefined && value !== null) {
        const v = validateOutput(spec, value);
        if (v.output) result.output = v.output;
        else failure = v.error;
      }
    } catch (e) {
      if ((e as { timeout?: boolean }).timeout) {
        rec.outcome = "timeout";
        ac.abort();
      }
      failure = e instanceof Error ? e.message : String(e);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }
    rec.durationMs = Math.round((performance.now() - started) * 1000) / 1000;
    if (failure !== undefined) {
      if (signal?.aborted) {
        rec.outcome = "cancelled";
        rec.error = `${spec.name} hook of plugin "${name}" was cancelled`;
        return result;
      }
      if (rec.outcome === "success") rec.outcome = "non_blocking_error";
      rec.error = `${spec.name} hook of plugin "${name}" failed: ${failure}`;
      if (spec.name === "PreToolUse") {
        if (rec.outcome !== "timeout") rec.outcome = "blocking";
        result.blockingError = `Blocked: the PreToolUse hook of plugin "${name}" failed (${failure}), and plugin hooks fail closed. Do not retry this exact call; tell the user the plugin hook is failing.`;
      }
    }
    return result;
  }

  async function emitInner(event: HookEventName, payload: Record<string, unknown>, o?: { matchValue?: string; signal?: AbortSignal }) {
    const spec = EVENT_SPECS[event] as EventSpec;
    if (payload.hook_event_name === undefined) payload = { ...payload, hook_event_name: event };
    const mv = o?.matchValue ?? (spec.matchField ? (payload[spec.matchField] as string | undefined) : undefined);
    const hookName = mv !== undefined && spec.matchField ? `${event}:${mv}` : event;
    const commands = matchedCommands(event, spec, mv, payload);
    const plugins = policy.allDisabled || policy.managedOnly ? [] : registered.filter((r) => r.event === event && (!spec.matchField || matcherMatches(r.opts.matcher, mv)));
    if (commands.length === 0 && plugins.length === 0) return emptyOutcome();
    const stdin = commands.length > 0 ? JSON.stringify(payload) : "";
    const sessionEndMs = event === "SessionEnd" ? sessionEndBudgetMs(commands.map((h) => h.handler.timeout), opts.env) : 0;
    const timeoutFor = (h: ConfiguredHook) =>
      event === "SessionEnd" ? sessionEndMs : (h.handler.timeout ?? spec.defaultTimeoutSec) * 1000;
    const sync: Promise<HandlerResult>[] = [];
    // Each handler is reported as it starts and as it ends, so listeners see parallel hooks as they run.
    const started = (p: Promise<HandlerResult>, recordWhenDone: boolean): Promise<HandlerResult> => {
      const id = randomUUID();
      try {
        opts.onStart?.(event, { id, hookName });
      } catch {
        // a broken listener must not break the hook run
      }
      return p.then((r) => {
        r.record.id = id;
        // What this handler's block told the model, for per-hook messages and the Stop summary.
        const jsonBlock = r.output?.decision === "block" ? (typeof r.output.reason === "string" && r.output.reason) || "Blocked by hook" : undefined;
        if (r.blockingError ?? jsonBlock) r.record.blockingError = capText((r.blockingError ?? jsonBlock)!);
        if (r.blockingError === undefined && jsonBlock) r.record.blockFromJson = true;
        if (recordWhenDone) record(event, r.record);
        return r;
      });
    };
    commands.forEach((h, i) => {
      // Background hooks outlive the step that fired them, so the step's abort does not reach them.
      const isAsync = h.handler.async === true;
      const p = started(runCommand(event, spec, h, hookName, stdin, i, timeoutFor(h), isAsync ? undefined : o?.signal), !isAsync);
      if (isAsync) trackAsync(event, p);
      else sync.push(p);
    });
    for (const r of plugins) sync.push(started(runInProcess(spec, r, hookName, payload, o?.signal), true));
    return spec.merge(await Promise.all(sync));
  }

  function trackAsync(event: HookEventName, p: Promise<HandlerResult>) {
    const done: Promise<void> = p
      .then((r) => {
        record(event, r.record);
        const hso = (r.output?.hookSpecificOutput ?? {}) as Record<string, unknown>;
        const item: string[] = [];
        if (typeof r.output?.systemMessage === "string" && r.output.systemMessage) {
          asyncOut.systemMessages.push(capText(r.output.systemMessage));
          item.push(capText(r.output.systemMessage));
        }
        if (typeof hso.additionalContext === "string" && hso.additionalContext) {
          asyncOut.additionalContext.push(capText(hso.additionalContext));
          item.push(capText(hso.additionalContext));
        }
        if (item.length) asyncOut.items.push(item);
      })
      .catch(() => {})
      .finally(() => pending.delete(done));
    pending.add(done);
  }

  return {
    addPluginHooks(hooks, meta) {
      const disabledBy = disabledByPolicy(policy, false);
      const added: typeof configured = [];
      for (const [event, groups] of Object.entries(hooks)) {
        for (const g of groups) {
          for (const handler of g.hooks) {
            added.push({ event, matcher: g.matcher, handler, level: "user", path: meta.path, extraEnv: meta.env, owner: meta.owner, pluginId: meta.pluginId ?? `${meta.owner}@inline`, ...(disabledBy ? { disabledBy } : {}) });
          }
        }
      }
      configured.push(...added);
      return () => {
        for (const h of added) {
          const i = configured.indexOf(h);
          if (i >= 0) configured.splice(i, 1);
        }
      };
    },
    sessionId: opts.sessionId,
    projectDir: opts.projectDir,
    cwd: () => opts.cwd(),

    async emit(event, payload, o) {
      if (!isHookEventName(event)) return emptyOutcome();
      try {
        return await emitInner(event, payload, o);
      } catch (e) {
        // A bug in the bus itself: fail closed where a hook could have blocked a tool.
        const out = emptyOutcome();
        const msg = `hook bus failed on ${event}: ${(e as Error)?.message ?? String(e)}`;
        out.records.push({ source: "yoke", hookName: event, exitCode: null, stdout: "", stderr: "", durationMs: 0, outcome: "non_blocking_error", error: msg });
        if (event === "PreToolUse") {
          out.blocked = true;
          out.permissionDecision = "deny";
          out.blockReason = out.permissionDecisionReason = `Blocked: ${msg}. Hooks fail closed on PreToolUse.`;
        }
        return out;
      }
    },

    has(event) {
      if (configured.some((h) => h.event === event && runnable(h))) return true;
      return !policy.allDisabled && !policy.managedOnly && registered.some((r) => r.event === event);
    },

    registerInProcess(event, handler, ro) {
      const entry: Registered = { event, handler, opts: ro };
      registered.push(entry);
      return () => {
        const i = registered.indexOf(entry);
        if (i >= 0) registered.splice(i, 1);
      };
    },

    list() {
      const rows: HookListing[] = configured.map((h) => {
        const notes = [
          h.disabledBy ? `disabled by ${h.disabledBy}` : undefined,
          !isHookEventName(h.event) ? `event ${h.event} is not fired by yoke` : undefined,
          !SUPPORTED_TYPES.has(h.handler.type) ? `type ${h.handler.type} is not supported by yoke yet` : undefined,
          h.handler.if !== undefined && isHookEventName(h.event) && !EVENT_SPECS[h.event].ifApplies ? `"if" on ${h.event} never matches` : undefined,
        ].filter(Boolean);
        return {
          event: h.event,
          matcher: h.matcher ?? "",
          type: h.handler.type,
          command: commandLabel(h.handler),
          source: h.owner ? `plugin: ${h.owner} (${h.path})` : h.path,
          level: h.level,
          ...(h.handler.async ? { async: true } : {}),
          ...(h.handler.timeout !== undefined ? { timeoutSec: h.handler.timeout } : {}),
          ...(h.handler.if !== undefined ? { if: h.handler.if } : {}),
          ...(notes.length ? { note: notes.join("; ") } : {}),
        };
      });
      for (const r of registered) {
        rows.push({
          event: r.event,
          matcher: r.opts.matcher ?? "",
          type: "in-process",
          command: "(function)",
          source: `plugin: ${r.opts.source}`,
          ...(policy.allDisabled || policy.managedOnly ? { note: "disabled by managed hook policy" } : {}),
        });
      }
      return rows;
    },

    async drainAsync(timeoutMs = 60_000) {
      if (pending.size === 0) return;
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([Promise.all([...pending]), new Promise<void>((r) => (timer = setTimeout(r, timeoutMs)))]);
      clearTimeout(timer);
    },

    takeAsyncOutput() {
      const out = { additionalContext: asyncOut.additionalContext.splice(0), systemMessages: asyncOut.systemMessages.splice(0), items: asyncOut.items.splice(0) };
      return out;
    },
  };
}

function safeRule(m: RuleMatcher, rule: string, tool: string, input: Record<string, unknown>): boolean {
  try {
    return m(rule, tool, input);
  } catch {
    // a rule we cannot evaluate fails open, as Claude Code does for unparsable Bash (contracts §1.2)
    return true;
  }
}

export type { HookOutcome };
