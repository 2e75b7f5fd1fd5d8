import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { serverSchemas } from "../mcp/config.ts";
import { settingsSchema } from "./schema.ts";

/**
 * The JSON Schemas zod makes of the settings schema and of an MCP server entry, which util/json-check.ts reads to
 * accept a plainly right settings file or server entry without loading zod (issue 21: the MCP servers are spawned
 * before it loads). `bun run schemas` rewrites them; test/config/check-schemas.test.ts fails when they drift. Pure.
 */
export function generateCheckSchemas(): { settings: unknown; servers: Record<string, unknown> } {
  const json = (s: z.ZodType) => z.toJSONSchema(s, { io: "input" });
  const { stdio, remote, sdk } = serverSchemas();
  return { settings: json(settingsSchema), servers: { stdio: json(stdio), remote: json(remote), sdk: json(sdk) } };
}

export const settingsSchemaFile = join(import.meta.dir, "settings-schema.json");
export const serverSchemasFile = join(import.meta.dir, "..", "mcp", "server-schemas.json");

if (import.meta.main) {
  const g = generateCheckSchemas();
  writeFileSync(settingsSchemaFile, `${JSON.stringify(g.settings, null, 2)}\n`);
  writeFileSync(serverSchemasFile, `${JSON.stringify(g.servers, null, 2)}\n`);
  console.log(`wrote ${settingsSchemaFile} and ${serverSchemasFile}`);
}
