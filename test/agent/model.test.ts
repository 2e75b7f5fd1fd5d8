// Subagent model resolution, seed 000 order: call → frontmatter → CLAUDE_CODE_SUBAGENT_MODEL → main; FORCE wins.
import { expect, test } from "bun:test";
import { resolveSubagentModel } from "../../src/agent/model.ts";
import { MODEL_ALIASES } from "../../src/provider/models.ts";

const MAIN = "claude-main-1";
const E = (v?: string, force?: string) => ({ ...(v ? { CLAUDE_CODE_SUBAGENT_MODEL: v } : {}), ...(force ? { CLAUDE_CODE_SUBAGENT_MODEL_FORCE: force } : {}) });

test.each([
  ["nothing set → main model", undefined, undefined, E(), MAIN],
  ["env only", undefined, undefined, E("haiku"), MODEL_ALIASES.haiku],
  ["frontmatter beats env", undefined, "opus", E("haiku"), MODEL_ALIASES.opus],
  ["frontmatter inherit = main model, beats env", undefined, "inherit", E("haiku"), MAIN],
  ["call beats frontmatter and env", "sonnet", "opus", E("haiku"), MODEL_ALIASES.sonnet],
  ["full ids pass through", undefined, "claude-custom-9", E(), "claude-custom-9"],
  ["FORCE=1: env beats the call", "sonnet", "opus", E("haiku", "1"), MODEL_ALIASES.haiku],
  ["FORCE=true works too", "sonnet", undefined, E("claude-x", "true"), "claude-x"],
  ["FORCE without the env var changes nothing", "sonnet", undefined, E(undefined, "1"), MODEL_ALIASES.sonnet],
  ["FORCE=0 is not force", "sonnet", undefined, E("haiku", "0"), MODEL_ALIASES.sonnet],
  ["env inherit = main", undefined, undefined, E("inherit"), MAIN],
] as const)("%s", (_l, call, agent, env, want) => {
  expect(resolveSubagentModel({ callModel: call, agentModel: agent, env, mainModel: MAIN })).toBe(want!);
});
