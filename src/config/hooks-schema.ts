import "../util/zod-setup.ts"; // first: zod reads the setting as each schema is made, and these are made at import
import { z } from "zod";

/**
 * The `hooks` block of settings, plugins' hooks.json, agents' and skills' frontmatter (contracts §1). Apart from the
 * other settings schemas (schema.ts re-exports these): a run parses hooks with it, and need not make the rest.
 */
export const hookHandlerSchema = z.looseObject({
  type: z.enum(["command", "http", "mcp_tool", "prompt", "agent"]),
  command: z.string().optional(),
  args: z.array(z.string()).optional(),
  timeout: z.number().positive().optional(),
  if: z.string().optional(),
  async: z.boolean().optional(),
  onFailure: z.enum(["continue", "block"]).optional(),
  statusMessage: z.string().optional(),
});

export const hookMatcherGroupSchema = z.looseObject({
  matcher: z.string().optional(),
  hooks: z.array(hookHandlerSchema),
});

export const hooksSchema = z.record(z.string(), z.array(hookMatcherGroupSchema));
