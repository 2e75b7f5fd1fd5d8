import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { z } from "zod";
import { EVENT_SPECS, schemaEventKeys } from "./events/index.ts";
import { HOOK_EVENTS } from "./types.ts";

/**
 * The published wire contract: one JSON Schema per event for hook stdin (`<Event>.input.json`)
 * and hook stdout (`<Event>.output.json`), generated from the zod schemas in events/. Pure.
 */
export function generateSchemas(): Record<string, string> {
  const files: Record<string, string> = {};
  for (const [name, spec] of Object.entries(EVENT_SPECS)) {
    const input = z.toJSONSchema(spec.input(), { io: "input", target: "draft-2020-12" });
    const output = z.toJSONSchema(spec.output(), { io: "input", target: "draft-2020-12" });
    files[`${name}.input.json`] = `${JSON.stringify({ $schema: input.$schema, title: `${name} hook input (stdin)`, ...input }, null, 2)}\n`;
    files[`${name}.output.json`] = `${JSON.stringify({ $schema: output.$schema, title: `${name} hook output (stdout JSON)`, ...output }, null, 2)}\n`;
  }
  return files;
}

/** Each event's own payload fields in schema order, as src/hook/events/event-keys.json holds them. Pure. */
export const generateEventKeys = (): string => `${JSON.stringify(Object.fromEntries(HOOK_EVENTS.map((e) => [e, schemaEventKeys(e)])), null, 2)}\n`;

export const eventKeysFile = join(dirname(new URL(import.meta.url).pathname), "events", "event-keys.json");

/** Default output folder: `hooks/schemas` at the repository root. */
export const schemasDir = (root = join(dirname(new URL(import.meta.url).pathname), "..", "..")) => join(root, "hooks", "schemas");

if (import.meta.main) {
  const dir = schemasDir();
  mkdirSync(dir, { recursive: true });
  const files = generateSchemas();
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  console.log(`wrote ${Object.keys(files).length} schemas to ${dir}`);
  writeFileSync(eventKeysFile, generateEventKeys());
  console.log(`wrote ${eventKeysFile}`);
}
