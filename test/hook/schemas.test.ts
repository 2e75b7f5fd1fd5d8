import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { generateSchemas, schemasDir } from "../../src/hook/gen-schemas.ts";
import { HOOK_EVENTS } from "../../src/hook/types.ts";

describe("published hook schemas (DESIGN rule 6)", () => {
  const dir = schemasDir(join(import.meta.dir, "..", ".."));
  const files = generateSchemas();
  test("one input and one output schema per event", () => {
    expect(Object.keys(files).sort()).toEqual(HOOK_EVENTS.flatMap((e) => [`${e}.input.json`, `${e}.output.json`]).sort());
  });
  test("committed hooks/schemas match src/hook/events (run `bun run schemas` after changing an event)", () => {
    expect(readdirSync(dir).sort()).toEqual(Object.keys(files).sort());
    for (const [name, text] of Object.entries(files)) expect(readFileSync(join(dir, name), "utf8"), name).toBe(text);
  });
  test("input schema lists fields in Claude Code's order (contracts §1.4)", () => {
    const s = JSON.parse(files["PreToolUse.input.json"]!);
    expect(Object.keys(s.properties)).toEqual([
      "session_id", "transcript_path", "cwd", "prompt_id", "permission_mode", "agent_id", "agent_type", "effort", "hook_event_name", "tool_name", "tool_input", "tool_use_id", "mcp_server",
    ]);
    expect(s.required).toEqual(["session_id", "transcript_path", "cwd", "hook_event_name", "tool_name", "tool_input", "tool_use_id"]);
  });
});
