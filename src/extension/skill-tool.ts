import { z } from "zod";
import { defineTool } from "../tool/define-tool.ts";
import type { Tool, ToolResult } from "../tool/types.ts";
import description from "./skill-tool.md" with { type: "text" };

/** What the Skill tool asks of the session's extensions (src/extension/runtime.ts). */
export type SkillInvoker = (name: string, args: string, signal: AbortSignal) => Promise<ToolResult>;

const input = z.object({
  skill: z.string().min(1).describe('The skill or command name, e.g. "review" or "my-plugin:deploy"'),
  args: z.string().optional().describe("Arguments for it, as typed after the command name"),
});

/**
 * The `Skill` tool (contracts §7.2: `{skill, args?}`): the model loads a skill's or command's body on use.
 * Starting a skill only reads its file (and runs its `!` commands through the permission engine), so the call
 * itself is read-only; `Skill(name)` rules still match it. Never throws.
 */
export function createSkillTool(invoke: SkillInvoker): Tool {
  return defineTool({
    name: "Skill",
    description,
    input,
    readOnly: true,
    concurrencySafe: false,
    execute: (inp, ctx) => invoke(inp.skill, inp.args ?? "", ctx.signal),
  });
}
