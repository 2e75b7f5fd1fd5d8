import { z } from "zod";

/**
 * zod's JSON Schema reader (`z.fromJSONSchema`, ~25 KB of zod), apart so json-tool.ts loads it only when a JSON
 * Schema tool is made (a plugin's `tools.define`, `--json-schema`): a start without one never reads it (issue 21).
 */
export const readJsonSchema = (schema: unknown): z.ZodType => z.fromJSONSchema(schema as never) as z.ZodType;
