/** Where an agent type was defined; also its precedence (contracts §6.4: project > user > built-in). */
export type AgentSource = "built-in" | "project" | "user" | "plugin" | "flag";

/**
 * One agent type the Agent tool can start. Frontmatter field names are Claude Code's (contracts §6.4).
 * Plain data: no behaviour, nothing throws.
 */
export type AgentDefinition = {
  /** The `subagent_type` value and hook matcher value. */
  name: string;
  description: string;
  /** The subagent's system prompt (the file body for custom agents). */
  systemPrompt: string;
  /** Tool names it may use; undefined = every tool the parent has (less the ones no subagent gets). */
  tools?: string[];
  /** Tool names removed after `tools` is applied. */
  disallowedTools?: string[];
  /** Built-in tool policy, used when `tools` is undefined: `read-only` or `read-only+bash`. */
  toolPolicy?: "all" | "read-only" | "read-only+bash";
  /** `sonnet|opus|haiku|fable|<id>|inherit`; undefined = fall through to CLAUDE_CODE_SUBAGENT_MODEL. */
  model?: string;
  maxTurns?: number;
  /** `permissionMode` for this agent's runs (ignored for plugin agents, contracts §6.1). */
  permissionMode?: string;
  /** Skills whose bodies are put before the agent's first prompt. */
  skills?: string[];
  /** Frontmatter `hooks` and `mcpServers`, kept as written (src/cli/main-agent.ts, src/mcp/agent-servers.ts use them). */
  hooks?: unknown;
  mcpServers?: unknown;
  source: AgentSource;
  /** Absolute path of the defining file (custom agents). */
  file?: string;
};
