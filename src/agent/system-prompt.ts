import type { TextBlock } from "../provider/types.ts";
import type { AgentDefinition } from "./types.ts";

export type SubagentEnvironment = {
  cwd: string;
  platform: string;
  /** ISO date (YYYY-MM-DD). */
  date: string;
  /** Sections added after the agent's own prompt (instruction files, memory), in order. */
  extra?: string[];
};

/**
 * A subagent's system prompt: the agent's own prompt (a custom agent's file body replaces the
 * default, contracts §6.4), extra sections, then an environment block naming its role. Pure.
 */
export function buildSubagentSystem(agent: AgentDefinition, env: SubagentEnvironment): TextBlock[] {
  const own = agent.systemPrompt.trim() || `You are the "${agent.name}" agent. ${agent.description}`;
  const envBlock = [
    `You are running as a subagent of type "${agent.name}", started by another agent to do one task. Work only on that task with the tools you have, do not ask questions, and end with a concise, complete report.`,
    "",
    "Environment:",
    `- Working directory: ${env.cwd}`,
    `- Platform: ${env.platform}`,
    `- Today's date: ${env.date}`,
  ].join("\n");
  return [own, ...(env.extra ?? []).filter((s) => s.trim()), envBlock].map((text) => ({ type: "text" as const, text }));
}
