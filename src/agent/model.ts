import { resolveModel } from "../provider/models.ts";

export type SubagentModelInput = {
  /** The Agent call's `model` input. */
  callModel?: string;
  /** The agent definition's `model` (frontmatter); `inherit` means the main model. */
  agentModel?: string;
  /** The main conversation's model (already resolved). */
  mainModel: string;
  env: Record<string, string | undefined>;
};

const truthy = (v: string | undefined) => v !== undefined && /^(1|true|yes|on)$/i.test(v.trim());

/**
 * The model a subagent runs on, in seed 000's order: the call's `model`, the agent's frontmatter
 * `model` (`inherit` = the main model), CLAUDE_CODE_SUBAGENT_MODEL, the main model.
 * CLAUDE_CODE_SUBAGENT_MODEL_FORCE=1 makes the env var win over everything. Aliases resolve through
 * provider/models.ts. Pure; never throws.
 */
export function resolveSubagentModel(i: SubagentModelInput): string {
  const envModel = i.env.CLAUDE_CODE_SUBAGENT_MODEL?.trim() || undefined;
  const pick = (m: string) => (m.trim().toLowerCase() === "inherit" ? i.mainModel : resolveModel(m));
  if (envModel && truthy(i.env.CLAUDE_CODE_SUBAGENT_MODEL_FORCE)) return pick(envModel);
  for (const m of [i.callModel, i.agentModel, envModel]) if (m?.trim()) return pick(m);
  return i.mainModel;
}
