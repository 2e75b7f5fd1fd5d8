import type { Settings } from "../config/schema.ts";
import type { PermissionMode } from "../permission/types.ts";
import type { Message } from "../provider/types.ts";
import type { SideQuery, Tool, ToolContext, ToolResult } from "../tool/types.ts";

import type { InProcessHandler } from "../hook/bus.ts";
import type { HookOn } from "../hook/typed.ts";
export type { HookAnswer, HookHandler, HookOn } from "../hook/typed.ts";
/** What an in-process hook handler may answer: the same JSON a command hook prints (contracts §1.6). */
export type { HookJsonOutput } from "../hook/events/common.ts";

/** May throw: in PreToolUse a throw blocks the tool (fails closed); elsewhere it is logged with the plugin's name and skipped. */
export type InProcessHookHandler = InProcessHandler;

/** A read-only view of the running session. */
export type SessionView = {
  readonly sessionId: string;
  readonly cwd: string;
  readonly projectDir: string;
  readonly transcriptPath: string;
  readonly model: string;
  readonly permissionMode: PermissionMode;
  /** The validated auto-memory directory, or null when auto memory is off. */
  readonly memoryDir: string | null;
  /**
   * True in the interactive terminal session, false in `-p` and stream-json runs. Claude Code runs memory
   * extraction and session memory by default only outside `-p`; the first-party plugins follow this.
   */
  readonly interactive: boolean;
  /** The conversation so far, as sent to the model. Do not mutate. */
  messages(): readonly Message[];
  /** Token count of the last request's input (usage.input_tokens + cache tokens). */
  contextTokens(): number;
};

export type ForkOptions = {
  /** Used as the forked agent's type name in hooks and transcripts. */
  name: string;
  system: string;
  prompt: string;
  /** Tool names the fork may use (from the session's registry), plus any extra tools. */
  tools: string[];
  extraTools?: Tool[];
  maxTurns: number;
  model?: string;
  /** File tools may write only inside these directories; everything else that would write is denied. */
  writeDirs?: string[];
  /** Read-only Bash only (commands the permission engine counts as read-only). */
  readOnlyBash?: boolean;
  signal?: AbortSignal;
};

export type ForkResult = { text: string; isError: boolean; numTurns: number; toolUses: Array<{ name: string; input: Record<string, unknown> }> };

/**
 * The one door for first-party and user plugins (DESIGN rule 8). Methods never throw for bad input from
 * the plugin except where noted; failures are logged with the plugin's name.
 */
export type PluginHost = {
  readonly name: string;
  hooks: {
    /** A handler typed per event: a PreToolUse handler sees `tool_input` and may answer `permissionDecision`; a Stop handler may not. */
    on: HookOn;
  };
  tools: {
    register(tool: Tool): void;
    /**
     * Registers a tool described by a plain JSON Schema, for plugins that have no zod (a user's plugin file
     * loaded by the binary has no node_modules). Throws when the schema cannot be read; the input the model
     * sends is validated against it, and a throw from `execute` becomes an is_error result.
     */
    define(def: JsonToolDef): void;
  };
  systemPrompt: {
    /** A named section appended to the system prompt; the function is called for every request. */
    addSection(name: string, text: string | (() => string | null | undefined)): void;
  };
  /** `<yokeDir>/plugins-data/<name>/`, created on first use. */
  storageDir(): string;
  session: SessionView;
  /** Merged settings, read-only. */
  settings: Readonly<Settings>;
  /** The session's environment (process env with settings `env` applied), read-only. */
  env: Readonly<Record<string, string>>;
  log: { debug(msg: string): void; info(msg: string): void; warn(msg: string): void; error(msg: string): void };
  agents: {
    /** Runs a forked agent with a restricted tool set. Resolves even on failure (isError). */
    fork(opts: ForkOptions): Promise<ForkResult>;
  };
  sideQuery: SideQuery;
  /** A notice for the user: a `system`/`notification` line in stream-json, a stderr line with --verbose. */
  notify(message: string): void;
  compaction: {
    /** Offer summaries for compaction; the first provider that answers wins, else the model summarizes. */
    provideSummary(fn: SummaryProvider): void;
  };
  /**
   * Work that must not delay the user's next turn but should finish before a headless run exits
   * (awaited at exit up to a time cap).
   */
  background(name: string, work: () => Promise<void>): void;
};

/** A compaction summary offered by a plugin (session memory) instead of a summarizing model call. */
export type SummaryProvider = (req: {
  trigger: "manual" | "auto";
  focus?: string;
  messages: readonly Message[];
  signal: AbortSignal;
}) => Promise<{ summary: string; keepRecent?: number } | null>;

/** A tool made from a JSON Schema (`host.tools.define`). */
export type JsonToolDef = {
  name: string;
  description: string;
  /** JSON Schema of the input, `{ type: "object", properties, required }`. */
  inputSchema: Record<string, unknown>;
  /** Read-only tools run without a permission prompt in default mode (default false). */
  readOnly?: boolean;
  /** Returns the text for the model, or a full ToolResult. May throw: the message goes back as an is_error result. */
  execute(input: Record<string, unknown>, ctx: ToolContext): Promise<string | ToolResult> | string | ToolResult;
};

export type Plugin = {
  name: string;
  version: string;
  description?: string;
  setup(host: PluginHost): void | Promise<void>;
};

/** Identity, for type checking in TypeScript plugins. */
export const definePlugin = (p: Plugin): Plugin => p;
