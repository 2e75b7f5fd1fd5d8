import type { ToolSpec } from "../provider/types.ts";
import type { Tool } from "./types.ts";

/** Legacy names Claude Code still accepts (contracts §7.1). */
export const LEGACY_TOOL_ALIASES: Record<string, string> = {
  Task: "Agent",
  KillBash: "KillShell",
  TaskStop: "KillShell",
};

export type ToolRegistry = {
  list(): Tool[];
  get(name: string): Tool | undefined;
  /** Tools as the model sees them, in registration order. */
  specs(): ToolSpec[];
  register(tool: Tool): void;
  /** Drop tools by name (bare deny rules, --tools, subagent tool sets). Returns a new registry. */
  filter(keep: (t: Tool) => boolean): ToolRegistry;
};

export function createToolRegistry(initial: Tool[] = []): ToolRegistry {
  const tools: Tool[] = [];
  const byName = new Map<string, Tool>();
  const register = (t: Tool) => {
    const existing = tools.findIndex((x) => x.name === t.name);
    if (existing >= 0) {
      // The replaced tool's aliases must not keep pointing at it.
      for (const a of tools[existing]!.aliases ?? []) if (byName.get(a) === tools[existing]) byName.delete(a);
      tools.splice(existing, 1, t);
    } else tools.push(t);
    byName.set(t.name, t);
    for (const a of t.aliases ?? []) byName.set(a, t);
  };
  initial.forEach(register);
  return {
    list: () => [...tools],
    get: (name) => byName.get(name) ?? byName.get(LEGACY_TOOL_ALIASES[name] ?? ""),
    specs: () => tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.jsonSchema })),
    register,
    filter: (keep) => createToolRegistry(tools.filter(keep)),
  };
}
