import { randomUUID } from "node:crypto";
import { execSync } from "node:child_process";
import { join } from "node:path";
import { sessionAgentTool } from "../agent/session-tool.ts";
import { loadSettings, type LoadedSettings, type SettingsLevel } from "../config/load.ts";
import { projectStateDir } from "../config/paths.ts";
import type { HookBus, HookEventName } from "../hook/types.ts";
import { nullHookBus } from "../hook/types.ts";
import type { Conversation, LoopDeps } from "../loop/run-turn.ts";
import { createUsageTracker } from "../loop/usage.ts";
import { modeOnlyEvaluator } from "../permission/mode-only.ts";
import { PERMISSION_MODES, type PermissionEvaluator, type PermissionMode } from "../permission/types.ts";
import { createAnthropicProvider, anthropicConfigFromEnv } from "../provider/anthropic/provider.ts";
import { resolveModel, SMALL_MODEL_ALIAS } from "../provider/models.ts";
import type { Provider, TextBlock } from "../provider/types.ts";
import { createJsonlStore } from "../session/jsonl-store.ts";
import { createTranscript, type Transcript } from "../session/transcript.ts";
import { nullStore } from "../session/types.ts";
import { createFileState, type FileState } from "../tool/file-state.ts";
import { createToolRegistry, type ToolRegistry } from "../tool/registry.ts";
import type { SessionToolState, SideQuery, Tool } from "../tool/types.ts";
import { VERSION } from "../version.ts";
import type { ParsedArgs } from "./args.ts";
import { splitRules, UsageError } from "./args.ts";

export type Runtime = {
  cwd: string;
  sessionId: string;
  settings: LoadedSettings;
  env: Record<string, string>;
  model: string;
  permissionMode: PermissionMode;
  tools: ToolRegistry;
  hooks: HookBus;
  permissions: PermissionEvaluator;
  transcript: Transcript;
  provider: Provider;
  convo: Conversation;
  session: SessionToolState;
  fileState: FileState;
  deps: LoopDeps;
  apiKeySource: string;
  hookPayload: (event: HookEventName, fields: Record<string, unknown>) => Record<string, unknown>;
  /** Kill background work and close files. Never throws. */
  shutdown(): Promise<void>;
};

const flagStr = (a: ParsedArgs, k: string) => (typeof a.flags[k] === "string" ? (a.flags[k] as string) : undefined);
const flagList = (a: ParsedArgs, k: string) => (Array.isArray(a.flags[k]) ? (a.flags[k] as string[]) : []);

export function parsePermissionMode(raw: string | undefined, where: string): PermissionMode | undefined {
  if (raw === undefined) return undefined;
  const m = raw === "manual" ? "default" : raw;
  if (!(PERMISSION_MODES as readonly string[]).includes(m))
    throw new UsageError(`error: ${where} must be one of ${PERMISSION_MODES.join(", ")} (got '${raw}')`);
  return m as PermissionMode;
}

function apiKeyFromHelper(helper: string | undefined, env: Record<string, string>): string | undefined {
  if (!helper) return undefined;
  try {
    return execSync(helper, { env, encoding: "utf8", timeout: 30_000, stdio: ["ignore", "pipe", "pipe"] }).trim() || undefined;
  } catch (err) {
    throw new UsageError(`apiKeyHelper failed (${helper}): ${(err as Error).message.split("\n")[0]}`);
  }
}

export type ComposeOptions = {
  args: ParsedArgs;
  cwd: string;
  /** Built-in tools; the caller decides which families are present. */
  builtinTools: Tool[];
};

/** The composition root's work: settings → env → provider, tools, hooks, permissions, transcript. Throws SettingsError / UsageError. */
export async function compose(o: ComposeOptions): Promise<Runtime> {
  const { args, cwd } = o;
  const sources = flagStr(args, "setting-sources");
  const settings = loadSettings({
    cwd,
    flagSettings: flagStr(args, "settings"),
    settingSources: sources !== undefined ? (sources.split(",").map((s) => s.trim()).filter(Boolean) as SettingsLevel[]) : undefined,
  });
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  Object.assign(env, settings.merged.env ?? {});

  const model = resolveModel(flagStr(args, "model") ?? env.ANTHROPIC_MODEL ?? settings.merged.model ?? "default");
  let permissionMode =
    parsePermissionMode(flagStr(args, "permission-mode"), "--permission-mode") ??
    parsePermissionMode(settings.merged.permissions?.defaultMode, "permissions.defaultMode") ??
    "default";
  if (args.flags["dangerously-skip-permissions"]) permissionMode = "bypassPermissions";

  const sessionId = flagStr(args, "session-id") ?? randomUUID();
  const persist = !args.flags["no-session-persistence"];
  const transcriptPath = join(projectStateDir(cwd, env), `${sessionId}.jsonl`);
  const store = persist ? createJsonlStore(transcriptPath, sessionId) : nullStore(sessionId);
  const session: SessionToolState = { cwd, todos: [], envFiles: [], bag: new Map() };
  const transcript = createTranscript(store, {
    cwd: () => session.cwd,
    version: VERSION,
    entrypoint: "sdk-cli",
    uuid: randomUUID,
    now: () => new Date(),
  });

  const disallowed = splitRules(flagList(args, "disallowedTools"));
  const permissions = modeOnlyEvaluator(permissionMode, disallowed.filter((r) => !r.includes("(")));
  // Subagents: the Agent tool reads the parent's deps at call time (deps is built below).
  const agentTool = sessionAgentTool({
    cwd, env, sessionId, persist, version: VERSION,
    parent: () => deps,
    mainModel: () => model,
    warn: (m) => process.stderr.write(`yoke: ${m}\n`),
  });
  let tools = createToolRegistry([...o.builtinTools, agentTool.tool]).filter((t) => !permissions.isToolHidden(t.name));
  const only = flagList(args, "tools");
  if (only.length && !(only.length === 1 && only[0] === "default")) {
    const keep = new Set(splitRules(only));
    tools = tools.filter((t) => keep.has(t.name));
  }

  const apiKey = env.ANTHROPIC_API_KEY || apiKeyFromHelper(settings.merged.apiKeyHelper, env);
  const apiKeySource = env.ANTHROPIC_API_KEY ? "ANTHROPIC_API_KEY" : apiKey ? "apiKeyHelper" : "none";
  if (!apiKey && !env.ANTHROPIC_AUTH_TOKEN && !env.ANTHROPIC_BASE_URL)
    throw new UsageError(
      "no credentials: set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN, or apiKeyHelper in settings), or ANTHROPIC_BASE_URL for a gateway or local server that needs no key",
    );
  const providerCfg = anthropicConfigFromEnv({ ...env, ANTHROPIC_API_KEY: apiKey }, VERSION);
  const provider = createAnthropicProvider(providerCfg);
  const hooks: HookBus = nullHookBus;
  const fileState = createFileState();
  const usage = createUsageTracker();

  const hookPayload = (event: HookEventName, fields: Record<string, unknown>) => ({
    session_id: sessionId,
    transcript_path: store.path,
    cwd: session.cwd,
    permission_mode: permissionMode,
    hook_event_name: event,
    ...fields,
  });

  const sideQuery: SideQuery = async ({ system, prompt, maxTokens, signal }) => {
    const ctrl = signal ?? new AbortController().signal;
    for await (const ev of provider.stream(
      { model: resolveModel(env.ANTHROPIC_SMALL_FAST_MODEL ?? SMALL_MODEL_ALIAS), system: [{ type: "text", text: system }], messages: [{ role: "user", content: prompt }], tools: [], maxTokens: maxTokens ?? 1024 },
      ctrl,
    )) {
      if (ev.type === "error") throw new Error(ev.error.message);
      if (ev.type === "done") {
        usage.add(ev.message.model, ev.message.usage, ev.durationMs);
        return ev.message.content.map((b) => (b.type === "text" ? b.text : "")).join("");
      }
    }
    throw new Error("side query ended without an answer");
  };

  const systemText = flagStr(args, "system-prompt") ?? "You are yoke, a coding agent. Work in the user's repository with the tools given.";
  const append = flagStr(args, "append-system-prompt");
  const system = (): TextBlock[] => [{ type: "text", text: append ? `${systemText}\n\n${append}` : systemText }];

  const convo: Conversation = { messages: [] };
  const workingDirectories = [cwd, ...flagList(args, "add-dir")];
  const maxTurnsRaw = flagStr(args, "max-turns");
  let maxTurns: number | undefined;
  if (maxTurnsRaw !== undefined) {
    maxTurns = Number(maxTurnsRaw);
    if (!Number.isInteger(maxTurns) || maxTurns < 1) throw new UsageError(`error: --max-turns must be a positive whole number (got '${maxTurnsRaw}')`);
  }

  const deps: LoopDeps = {
    provider,
    tools,
    hooks,
    permissions,
    hookPayload,
    clock: () => Date.now(),
    model: () => model,
    maxTokens: 32_000,
    maxTurns,
    system,
    transcript,
    usage,
    context: (toolUseId, signal) => ({
      cwd: session.cwd,
      projectDir: cwd,
      workingDirectories,
      sessionId,
      signal,
      env,
      fileState,
      session,
      sideQuery,
      toolUseId,
    }),
    takePlan: () => {
      const plan = session.bag.get("plan.exit") as string | undefined;
      session.bag.delete("plan.exit");
      return plan;
    },
  };

  return {
    cwd,
    sessionId,
    settings,
    env,
    model,
    permissionMode,
    tools,
    hooks,
    permissions,
    transcript,
    provider,
    convo,
    session,
    fileState,
    deps,
    apiKeySource,
    hookPayload,
    async shutdown() {
      (store as { close?: () => void }).close?.();
    },
  };
}
