/**
 * Host → CLI control requests after `initialize` (contracts §4.6, the Agent SDK's Query methods). Each either does
 * what Claude Code does or throws an Error naming the request and what yoke lacks; the stdin session turns a throw
 * into an error response, which the SDK rejects the call with.
 */
import { contextReport } from "../../context/index.ts";
import { modelInfo, resolveModel } from "../../provider/models.ts";
import { PERMISSION_MODES, type PermissionMode } from "../../permission/types.ts";
import type { Runtime } from "../compose.ts";
import { applyPermissionUpdates, ruleValue } from "./can-use-tool.ts";

export type ControlContext = {
  rt: Runtime;
  /** Aborts the running turn (if any). */
  interrupt(): void;
  /** The initialize answer, sent again to a repeated initialize. */
  initialize(): Record<string, unknown>;
  /** Changes the session's permission mode (evaluator, hooks, system/status). */
  setMode(mode: PermissionMode): void;
  warn(msg: string): void;
};

const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);

/** Context usage as the SDK's getContextUsage() reads it (estimated tokens, as `yoke context`). */
async function contextUsage(rt: Runtime): Promise<Record<string, unknown>> {
  const model = rt.models.current();
  const sections = await rt.context.sections(model, rt.tools.list().map((t) => t.name));
  const isMcp = (name: string) => name.startsWith("mcp__");
  const spec = (t: { name: string; description: string; jsonSchema?: unknown }) => ({ name: t.name, description: t.description, jsonSchema: t.jsonSchema });
  const report = contextReport({
    files: rt.context.startupFiles(),
    systemSections: sections,
    tools: rt.tools.list().filter((t) => !isMcp(t.name)).map(spec),
    messages: rt.convo.messages,
  });
  // MCP tools apart, as Claude Code shows them (category mcp_tools, one row per tool with its server).
  const mcpTools = rt.tools
    .list()
    .filter((t) => isMcp(t.name))
    .map((t) => ({ name: t.name, serverName: t.name.split("__")[1] ?? "", tokens: contextReport({ files: [], systemSections: [], tools: [spec(t)] }).total, isLoaded: true }));
  const mcpTokens = mcpTools.reduce((n, t) => n + t.tokens, 0);
  const b = report.breakdown;
  const maxTokens = modelInfo(model).contextWindow;
  const used = report.total + mcpTokens;
  const cat = (id: string, name: string, tokens: number, kind = "used") => ({ id, name, tokens, color: "", kind });
  const categories = [
    cat("system_prompt", "System prompt", b.system),
    cat("system_tools", "System tools", b.tools),
    cat("mcp_tools", "MCP tools", mcpTokens),
    cat("memory_files", "Memory files", b.instructions + b.memory),
    cat("messages", "Messages", b.messages),
    cat("free_space", "Free space", Math.max(0, maxTokens - used), "free"),
  ];
  return {
    categories,
    totalTokens: used,
    maxTokens,
    rawMaxTokens: maxTokens,
    percentage: Math.round((used / maxTokens) * 1000) / 10,
    gridRows: [],
    model,
    memoryFiles: report.files.filter((f) => f.status === "included" || f.status === "truncated").map((f) => ({ path: f.path, type: f.layer, tokens: f.tokens })),
    mcpTools,
    agents: [],
  };
}

/** `apply_flag_settings`: the keys yoke can change in a running session; any other key is an error naming it. */
function applyFlagSettings(c: ControlContext, settings: Record<string, unknown>): void {
  const unsupported: string[] = [];
  for (const [key, value] of Object.entries(settings)) {
    if (value === undefined) continue;
    if (key === "model") {
      c.rt.models.set(typeof value === "string" && value ? resolveModel(value) : c.rt.model);
    } else if (key === "permissions" && isObj(value)) {
      const updates: unknown[] = [];
      for (const b of ["allow", "deny"] as const) {
        const list = value[b];
        if (Array.isArray(list)) updates.push({ type: "addRules", behavior: b, destination: "session", rules: list.filter((r) => typeof r === "string").map(ruleValue) });
      }
      if (typeof value.defaultMode === "string") updates.push({ type: "setMode", mode: value.defaultMode, destination: "session" });
      applyPermissionUpdates(updates, { target: { addRules: (b, r) => c.rt.permissions.addRules(b, r), setMode: c.setMode }, projectDir: c.rt.cwd, warn: c.warn });
      for (const k of Object.keys(value)) if (!["allow", "deny", "defaultMode"].includes(k)) unsupported.push(`permissions.${k}`);
    } else unsupported.push(key);
  }
  if (unsupported.length) throw new Error(`apply_flag_settings: yoke cannot change ${unsupported.join(", ")} in a running session (model, permissions.allow, permissions.deny and permissions.defaultMode were applied)`);
}

export async function answerControl(c: ControlContext, req: Record<string, unknown>): Promise<Record<string, unknown>> {
  const { rt } = c;
  switch (req.subtype) {
    case "initialize":
      // A repeated initialize: the first one's hooks, prompt and servers stand (hooks_applied: false says so).
      return { ...c.initialize(), ...(req.hooks ? { hooks_applied: false } : {}) };
    case "interrupt":
      c.interrupt();
      return { still_queued: [] };
    case "set_permission_mode": {
      const mode = req.mode === "manual" ? "default" : req.mode;
      if (typeof mode !== "string" || !PERMISSION_MODES.includes(mode as PermissionMode))
        throw new Error(`set_permission_mode: unknown mode ${JSON.stringify(req.mode)} (one of ${PERMISSION_MODES.join(", ")})`);
      c.setMode(mode as PermissionMode);
      return { mode };
    }
    case "set_model": {
      if (req.model !== undefined && req.model !== null && typeof req.model !== "string") throw new Error('set_model: "model" must be a string or null');
      // null / "default": back to the model the session started with.
      const m = typeof req.model === "string" && req.model && req.model !== "default" ? resolveModel(req.model) : rt.model;
      rt.models.set(m);
      return {};
    }
    case "set_max_thinking_tokens": {
      const n = req.max_thinking_tokens;
      if (n !== null && n !== undefined && (typeof n !== "number" || !Number.isInteger(n) || n < 0))
        throw new Error('set_max_thinking_tokens: "max_thinking_tokens" must be a whole number of tokens or null');
      // 0 turns thinking off; null goes back to what the flags and MAX_THINKING_TOKENS say; omitted leaves it.
      if (n !== undefined) rt.setMaxThinkingTokens(typeof n === "number" ? n : null);
      if (req.thinking_display !== undefined && req.thinking_display !== null)
        c.warn(`set_max_thinking_tokens: thinking_display "${String(req.thinking_display)}" is not supported by yoke; thinking is not shown either way`);
      return {};
    }
    case "rewind_files": {
      if (typeof req.user_message_id !== "string" || !req.user_message_id) throw new Error('rewind_files: "user_message_id" must be the uuid of a user message');
      if (!rt.checkpoints) return { canRewind: false, error: "file checkpoints are off in this session (--no-session-persistence)" };
      const r = await rt.checkpoints.rewindFiles(req.user_message_id, { dryRun: req.dry_run === true });
      const filesChanged = [...r.restored, ...r.deleted];
      if (r.errors.length) return { canRewind: false, error: r.errors.join("; "), filesChanged };
      return { canRewind: true, filesChanged, insertions: 0, deletions: 0 };
    }
    case "mcp_status":
      return {
        mcpServers: rt.mcp.servers().map((s) => ({
          name: s.name,
          status: s.status,
          ...(s.serverInfo ? { serverInfo: s.serverInfo } : {}),
          ...(s.error ? { error: s.error } : {}),
          scope: s.scope,
          tools: s.tools.map((t) => ({ name: t.name, ...(t.description ? { description: t.description } : {}), ...(t.annotations ? { annotations: t.annotations } : {}) })),
        })),
      };
    case "get_context_usage":
      return contextUsage(rt);
    case "apply_flag_settings":
      if (!isObj(req.settings)) throw new Error('apply_flag_settings: "settings" must be an object');
      applyFlagSettings(c, req.settings);
      return {};
    default:
      throw new Error(`yoke does not support the control request "${String(req.subtype)}"`);
  }
}
