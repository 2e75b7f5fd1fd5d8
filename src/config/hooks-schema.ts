import "../util/zod-setup.ts"; // first: zod reads the setting as each schema is made
import { z } from "zod";

/**
 * The `hooks` block of settings, plugins' hooks.json, agents' and skills' frontmatter (contracts §1). Apart from the
 * other settings schemas (schema.ts uses these): a run parses hooks with it, and need not make the rest. Made on first
 * use, not at import: settings' own hooks are read without zod (util/json-check.ts), so a run whose plugins, agents and
 * skills declare no hooks never makes them (issue 21).
 */
function make() {
  const hookHandlerSchema = z.looseObject({
    type: z.enum(["command", "http", "mcp_tool", "prompt", "agent"]),
    command: z.string().optional(),
    args: z.array(z.string()).optional(),
    timeout: z.number().positive().optional(),
    if: z.string().optional(),
    async: z.boolean().optional(),
    onFailure: z.enum(["continue", "block"]).optional(),
    statusMessage: z.string().optional(),
  });
  const hookMatcherGroupSchema = z.looseObject({
    matcher: z.string().optional(),
    hooks: z.array(hookHandlerSchema),
  });
  const hooksSchema = z.record(z.string(), z.array(hookMatcherGroupSchema));
  return { hookHandlerSchema, hookMatcherGroupSchema, hooksSchema };
}

let made: ReturnType<typeof make> | undefined;
/** The hooks' schemas, made once on the first call. */
export const hookSchemas = (): ReturnType<typeof make> => (made ??= make());

export type HookHandlerConfig = z.infer<ReturnType<typeof make>["hookHandlerSchema"]>;
