/**
 * The Agent SDK's `initialize` control request (contracts §4.6, §4.7): read before the session is composed, since
 * system prompt, agents, output schema, host hooks and in-process MCP servers travel in it rather than in argv, and
 * answered with what the SDK reads back (supportedCommands/Models/Agents, accountInfo, initializationResult).
 */
import { isHookEventName } from "../../hook/events/index.ts";
import { MODEL_ALIASES } from "../../provider/models.ts";
import { VERSION } from "../../version.ts";
import type { ParsedArgs } from "../args.ts";
import type { Runtime } from "../compose.ts";

export type HostHookMatcher = { matcher?: string; hookCallbackIds: string[]; timeout?: number; onFailure?: string };

export type HostInit = {
  /** Event → matchers, events yoke knows only (the others are in `unknownEvents`). */
  hooks: Record<string, HostHookMatcher[]>;
  unknownEvents: string[];
  sdkMcpServers: string[];
  systemPrompt?: string[];
  appendSystemPrompt?: string;
  agents?: Record<string, unknown>;
  jsonSchema?: Record<string, unknown>;
};

/**
 * The SDK's default (no `systemPrompt` option) is an empty custom prompt, `[""]`; Claude Code 2.1.332 then sends the
 * model this one line instead of its coding prompt (observed in 2.1.332).
 */
export const SDK_DEFAULT_SYSTEM_PROMPT = "You are a Claude agent, built on Anthropic's Claude Agent SDK.";

const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);

/** Validates an initialize request. Throws an Error naming the field when it cannot be used. */
export function readInitialize(req: Record<string, unknown>): HostInit {
  const bad = (field: string, want: string) => new Error(`initialize: "${field}" must be ${want}`);
  const init: HostInit = { hooks: {}, unknownEvents: [], sdkMcpServers: [] };
  if (req.hooks !== undefined && req.hooks !== null) {
    if (!isObj(req.hooks)) throw bad("hooks", "an object of event name → matchers");
    for (const [event, list] of Object.entries(req.hooks)) {
      if (!Array.isArray(list)) throw bad(`hooks.${event}`, "an array of matchers");
      const matchers = list.map((m, i): HostHookMatcher => {
        const at = `hooks.${event}[${i}]`;
        if (!isObj(m)) throw bad(at, "an object");
        if (!Array.isArray(m.hookCallbackIds) || !m.hookCallbackIds.every((x) => typeof x === "string")) throw bad(`${at}.hookCallbackIds`, "an array of strings");
        if (m.matcher !== undefined && m.matcher !== null && typeof m.matcher !== "string") throw bad(`${at}.matcher`, "a string");
        if (m.timeout !== undefined && m.timeout !== null && (typeof m.timeout !== "number" || !(m.timeout > 0))) throw bad(`${at}.timeout`, "a positive number of seconds");
        return {
          hookCallbackIds: m.hookCallbackIds as string[],
          ...(typeof m.matcher === "string" ? { matcher: m.matcher } : {}),
          ...(typeof m.timeout === "number" ? { timeout: m.timeout } : {}),
          ...(typeof m.onFailure === "string" ? { onFailure: m.onFailure } : {}),
        };
      });
      if (isHookEventName(event)) init.hooks[event] = matchers;
      else init.unknownEvents.push(event);
    }
  }
  if (req.sdkMcpServers !== undefined && req.sdkMcpServers !== null) {
    if (!Array.isArray(req.sdkMcpServers) || !req.sdkMcpServers.every((x) => typeof x === "string")) throw bad("sdkMcpServers", "an array of server names");
    init.sdkMcpServers = req.sdkMcpServers as string[];
  }
  if (req.systemPrompt !== undefined && req.systemPrompt !== null) {
    const sp = typeof req.systemPrompt === "string" ? [req.systemPrompt] : req.systemPrompt;
    if (!Array.isArray(sp) || !sp.every((x) => typeof x === "string")) throw bad("systemPrompt", "a string or an array of strings");
    init.systemPrompt = sp as string[];
  }
  if (req.appendSystemPrompt !== undefined && req.appendSystemPrompt !== null) {
    if (typeof req.appendSystemPrompt !== "string") throw bad("appendSystemPrompt", "a string");
    init.appendSystemPrompt = req.appendSystemPrompt;
  }
  if (req.agents !== undefined && req.agents !== null) {
    if (!isObj(req.agents)) throw bad("agents", "an object of agent name → definition");
    init.agents = req.agents;
  }
  if (req.jsonSchema !== undefined && req.jsonSchema !== null) {
    if (!isObj(req.jsonSchema)) throw bad("jsonSchema", "a JSON Schema object");
    init.jsonSchema = req.jsonSchema;
  }
  return init;
}

/**
 * Puts what initialize carries where compose reads it: the flags the CLI would have had. A flag given on the
 * command line too is kept for the system prompt and schema; agents from both are merged, initialize's last.
 */
export function applyInitialize(init: HostInit, args: ParsedArgs): void {
  const f = args.flags;
  if (init.systemPrompt && f["system-prompt"] === undefined && f["system-prompt-file"] === undefined) {
    const text = init.systemPrompt.filter((s) => s.trim()).join("\n\n");
    f["system-prompt"] = text || SDK_DEFAULT_SYSTEM_PROMPT;
  }
  if (init.appendSystemPrompt?.trim())
    f["append-system-prompt"] = [typeof f["append-system-prompt"] === "string" ? f["append-system-prompt"] : "", init.appendSystemPrompt].filter(Boolean).join("\n\n");
  if (init.agents) {
    let fromFlag: Record<string, unknown> = {};
    try {
      if (typeof f.agents === "string") fromFlag = JSON.parse(f.agents);
    } catch {
      // --agents reports its own parse error when compose reads it
    }
    f.agents = JSON.stringify({ ...fromFlag, ...init.agents });
  }
  if (init.jsonSchema && f["json-schema"] === undefined) f["json-schema"] = JSON.stringify(init.jsonSchema);
}

const MODEL_NAMES: Record<string, string> = { opus: "Opus", sonnet: "Sonnet", haiku: "Haiku", fable: "Fable", default: "Default" };

/** supportedModels(): the aliases yoke resolves, as the SDK's ModelInfo. */
export function modelList(): Array<Record<string, unknown>> {
  return Object.entries(MODEL_ALIASES).map(([alias, id]) => ({
    value: alias,
    resolvedModel: id,
    displayName: MODEL_NAMES[alias] ?? alias,
    description: alias === "default" ? `Recommended model (${id})` : id,
  }));
}

/** What the SDK reads from the initialize answer (SDKControlInitializeResponse). */
export function initializeResponse(rt: Runtime, init: HostInit | null, mode: string): Record<string, unknown> {
  const hooksSent = !!init && (Object.keys(init.hooks).length > 0 || init.unknownEvents.length > 0);
  return {
    commands: [
      { name: "compact", description: "Summarize the conversation so far to free context", argumentHint: "[focus]" },
      // Skills and custom commands (issue 14), as the SDK's supportedCommands() lists them.
      ...rt.extensions.list().map((c) => ({ name: c.name, description: c.description, argumentHint: c.argumentHint ?? "" })),
    ],
    agents: rt.agentDefs.map((a) => ({ name: a.name, description: a.description, ...(a.model ? { model: a.model } : {}) })),
    output_style: rt.outputStyle?.name ?? "default",
    available_output_styles: ["default", ...rt.outputStyles.map((s) => s.name)],
    models: modelList(),
    account: { apiKeySource: rt.apiKeySource, apiProvider: "firstParty" },
    pid: process.pid,
    claude_code_version: VERSION,
    current_permission_mode: mode,
    ...(hooksSent ? { hooks_applied: true, hook_on_failure_supported: true } : {}),
  };
}
