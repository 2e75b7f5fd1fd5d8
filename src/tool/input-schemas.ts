import schemas from "./input-schemas.json" with { type: "json" };

/**
 * The input JSON Schemas of yoke's own tools by tool name, generated from their zod inputs (gen-input-schemas.ts;
 * `bun run schemas`). A tool passes its entry to defineTool as `jsonSchema`, so the first request carries it without
 * building the zod schema, which is made only when the tool is first called (issue 21).
 */
export const INPUT_SCHEMAS: Record<string, Record<string, unknown>> = schemas;
