import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createSkillTool } from "../extension/skill-tool.ts";
import { resourceTools } from "../mcp/resource-tools.ts";
import { createToolSearchTool } from "../mcp/tool-search.ts";
import { createAgentTool } from "./builtin/agent.ts";
import { fileTools } from "./builtin/file-tools.ts";
import { createWebFetchTool, searchTools } from "./builtin/search-tools.ts";
import { shellTools } from "./builtin/shell-tools.ts";
import { webSearchTool } from "./builtin/web-search.ts";
import { toolJsonSchema } from "./define-tool.ts";
import type { Tool } from "./types.ts";

/**
 * Tools whose model-facing schema is written by hand in their module on purpose (it differs from their zod input:
 * WebSearch and TaskStop hide an either-or check, Skill writes its two fields out).
 */
export const HAND_WRITTEN = new Set(["WebSearch", "TaskStop", "Skill"]);

/** Every tool yoke itself defines with defineTool, made with stand-in options (only their schemas are read). */
export function ownTools(): Tool[] {
  const none = undefined as never;
  return [
    ...shellTools,
    ...searchTools,
    ...fileTools,
    createWebFetchTool(),
    webSearchTool,
    createAgentTool({ agents: [] } as never, async () => none),
    createSkillTool(none),
    createToolSearchTool(none),
    ...resourceTools(none),
  ];
}

/**
 * The input JSON Schema of each of yoke's own tools, as zod makes it from the tool's zod input, in the order the tools
 * are listed. Committed as input-schemas.json so a start sends them without building a zod schema (issue 21);
 * `bun run schemas` rewrites it and test/tool/input-schemas.test.ts fails when it drifts. Pure.
 */
export function generateInputSchemas(): Record<string, Record<string, unknown>> {
  return Object.fromEntries(ownTools().filter((t) => !HAND_WRITTEN.has(t.name)).map((t) => [t.name, toolJsonSchema(t.inputSchema)]));
}

export const inputSchemasFile = join(import.meta.dir, "input-schemas.json");

if (import.meta.main) {
  const schemas = generateInputSchemas();
  writeFileSync(inputSchemasFile, `${JSON.stringify(schemas, null, 2)}\n`);
  console.log(`wrote ${Object.keys(schemas).length} tool input schemas to ${inputSchemasFile}`);
}
