import { z } from "zod";
import type { JsonToolDef } from "../plugin/types.ts";
import { defineTool } from "./define-tool.ts";
import type { Tool } from "./types.ts";

/**
 * A tool made from a plain JSON Schema (plugins' `tools.define`, `--json-schema`'s StructuredOutput): the input is
 * validated with zod's JSON Schema reader and the schema goes to the model as written. Throws, naming the tool,
 * when the schema cannot be read.
 */
export function jsonTool(def: JsonToolDef): Tool {
  let input: z.ZodType;
  try {
    input = z.fromJSONSchema(def.inputSchema as never) as z.ZodType;
  } catch (e) {
    throw new Error(`tool ${def.name}: inputSchema is not a usable JSON Schema (${(e as Error).message})`);
  }
  return defineTool({
    name: def.name,
    description: def.description,
    input,
    // The author's schema goes to the model as written.
    jsonSchema: def.inputSchema,
    readOnly: def.readOnly ?? false,
    async execute(i, ctx) {
      const out = await def.execute(i as Record<string, unknown>, ctx);
      return typeof out === "string" ? { content: out } : out;
    },
  });
}

