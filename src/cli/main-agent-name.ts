import type { AgentDefinition } from "../agent/types.ts";
import { UsageError } from "./args.ts";

/**
 * `--agent NAME` (issue 14 point 4) picks the agent the main conversation runs as: the exact name, else the same name
 * in another case. Throws UsageError naming the flag when no agent has that name. Its own light module: run-prelude.ts
 * checks the name before any MCP server is spawned, without loading main-agent.ts (zod).
 */
export function mainAgent(name: string, agents: AgentDefinition[]): AgentDefinition {
  const a = agents.find((x) => x.name === name) ?? agents.find((x) => x.name.toLowerCase() === name.toLowerCase());
  if (!a) throw new UsageError(`--agent: no agent named "${name}" (known: ${agents.map((x) => x.name).join(", ")})`);
  return a;
}
