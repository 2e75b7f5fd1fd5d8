import { z } from "zod";
import { defineTool } from "../tool/define-tool.ts";
import type { Tool, ToolResult } from "../tool/types.ts";
import description from "./skill-tool.md" with { type: "text" };

/** What the Skill tool asks of the session's extensions (src/extension/runtime.ts). */
export type SkillInvoker = (name: string, args: string, signal: AbortSignal) => Promise<ToolResult>;

const SKILL_DESCRIPTION = 'The skill or command name, e.g. "review" or "my-plugin:deploy"';
const ARGS_DESCRIPTION = "Arguments for it, as typed after the command name";
export const skillInput = () => z.object({
  skill: z.string().min(1).describe(SKILL_DESCRIPTION),
  args: z.string().optional().describe(ARGS_DESCRIPTION),
});
/** skillInput as JSON Schema, written out: the tool is made at startup whenever a skill exists (issue 14 point 7). */
export const SKILL_JSON_SCHEMA: Record<string, unknown> = {
  type: "object",
  properties: { skill: { type: "string", minLength: 1, description: SKILL_DESCRIPTION }, args: { description: ARGS_DESCRIPTION, type: "string" } },
  required: ["skill"],
};

/**
 * The `Skill` tool (contracts §7.2: `{skill, args?}`): the model loads a skill's or command's body on use.
 * Starting a skill only reads its file (and runs its `!` commands through the permission engine), so the call
 * itself is read-only; `Skill(name)` rules still match it. Never throws.
 */
export function createSkillTool(invoke: SkillInvoker): Tool {
  return defineTool({
    name: "Skill",
    description,
    input: skillInput,
    jsonSchema: SKILL_JSON_SCHEMA,
    readOnly: true,
    concurrencySafe: false,
    execute: (inp, ctx) => invoke(inp.skill, inp.args ?? "", ctx.signal),
  });
}
