import type { QuestionPrompter } from "./builtin/ask-user-question.ts";
import type { BackgroundShell } from "./builtin/background-shells.ts";
import type { z } from "zod";
import type { ContentBlock, ImageBlock, TextBlock } from "../provider/types.ts";
import type { FileState } from "./file-state.ts";
import type { BashSandbox } from "../sandbox/runtime.ts";

/** What a tool returns. `content` goes to the model; `details` to hooks (`tool_response`), stream-json and the transcript (`toolUseResult`). */
export type ToolResult = {
  content: string | Array<TextBlock | ImageBlock>;
  details?: unknown;
  isError?: boolean;
};

/** Side query to a small model (WebFetch, memory selection). Resolves to the answer text; rejects on failure. */
export type SideQuery = (args: {
  system: string;
  prompt: string;
  maxTokens?: number;
  signal?: AbortSignal;
  /** Server tools for this request (WebSearch's `web_search`), sent as given. */
  tools?: Array<Record<string, unknown>>;
  /** Gets the answer's content blocks (server tool results included) before the text is returned. */
  onMessage?: (content: ContentBlock[]) => void;
}) => Promise<string>;

/** Everything a tool may touch, passed in per call (no globals). */
export type ToolContext = {
  /** The session's working directory; Bash may move it within the allowed directories. */
  cwd: string;
  /** The directory the session started in (CLAUDE_PROJECT_DIR). */
  projectDir: string;
  /** cwd plus additional directories: where file writes and Bash `cd` are allowed. */
  workingDirectories: string[];
  sessionId: string;
  signal: AbortSignal;
  /** Settings `env` merged over process.env; what subprocesses get. */
  env: Record<string, string>;
  fileState: FileState;
  /** Shared mutable state of one session, for stateful tools (Bash cwd, background shells, todos). */
  session: SessionToolState;
  sideQuery?: SideQuery;
  toolUseId: string;
  /** Globs (ripgrep style, `!x`) that whole-tree searches must leave out: files Read deny rules cover. */
  searchExcludes?: (searchDir: string) => string[];
  /** Whether a found file stays out of search results (a Read deny rule covers it): the evaluator decides, tools filter. */
  searchHides?: (absPath: string) => boolean;
  /** The kernel sandbox Bash runs its commands in, when the session has one (src/sandbox). */
  sandbox?: BashSandbox;
  /** Called by tools that change a file, before the change, for checkpoints. */
  beforeFileChange?: (absPath: string) => Promise<void> | void;
  /** Output as the tool produces it (Bash), for a mode that shows a live tail; absent when no one listens. Never throws. */
  progress?: (chunk: Uint8Array) => void;
};

export type SessionToolState = {
  cwd: string;
  todos: Array<{ content: string; status: string; activeForm: string }>;
  /** Files with `export` lines sourced before every Bash command (CLAUDE_ENV_FILE). */
  envFiles: string[];
  /** A UI's answerer for AskUserQuestion; absent in headless runs. */
  prompter?: QuestionPrompter;
  /** A plan file the host names; ExitPlanMode presents it when called without `plan`. */
  planFilePath?: string;
  /** The plan ExitPlanMode presented in this turn; the main loop takes it (and ends a plan-mode run with it). */
  presentedPlan?: string;
  /** The session's scratch directory, once made (or as the host set it). */
  tmpDir?: string;
  /** `run_in_background` commands by ID, made on first use. */
  shells?: Map<string, BackgroundShell>;
  /** Process groups of foreground commands whose background children outlived them; they die with the session. */
  lingeringGroups?: Set<number>;
  /** The effort level set during the session (`/effort`, a host's request); wins over settings and env. */
  effort?: string;
};

/** A fresh session state for a conversation that starts in cwd. */
export const newSessionState = (cwd: string): SessionToolState => ({ cwd, todos: [], envFiles: [] });

export type Tool<I = any> = {
  name: string;
  /** Other names for a tool with no entry in tool/declarations.ts (Claude Code's tools have theirs there). */
  aliases?: string[];
  description: string;
  inputSchema: z.ZodType<I>;
  /** JSON schema sent to the model. */
  jsonSchema: Record<string, unknown>;
  readOnly: boolean | ((input: I) => boolean);
  concurrencySafe: boolean | ((input: I) => boolean);
  /** Only the name goes to the model until ToolSearch loads the schema (seed 000: deferred MCP tools). */
  deferred?: boolean;
  /** Set for tools served by an MCP server (hooks' `mcp_server`, `yoke mcp`). */
  mcp?: { server: string; tool: string; /** The server's config scope (`dynamic` for --mcp-config …), hooks' `mcp_server.source`. */ source?: string };
  /** Validates, runs, and converts every failure to an is_error result. Never throws. */
  run(rawInput: unknown, ctx: ToolContext): Promise<ToolResult>;
  /** Validation alone, for the tool runner (hooks see validated input). */
  parse(rawInput: unknown): { ok: true; input: I } | { ok: false; error: string };
};
