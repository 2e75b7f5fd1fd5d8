import type { ToolSpec } from "../provider/types.ts";
import { toolNames } from "./declarations.ts";
import type { Tool } from "./types.ts";

export type ToolRegistry = {
  list(): Tool[];
  get(name: string): Tool | undefined;
  /** Tools as the model sees them, in registration order; deferred tools only once loaded. */
  specs(): ToolSpec[];
  register(tool: Tool): void;
  /** Drops a tool (an MCP server's tool that went away). */
  remove(name: string): void;
  /** Deferred tools whose full schemas go to the model from the next request on (ToolSearch). */
  load(names: string[]): void;
  /** Names of deferred tools not loaded yet. */
  deferredNames(): string[];
  /** Drop tools by name (bare deny rules, --tools, subagent tool sets). Returns a new registry. */
  filter(keep: (t: Tool) => boolean): ToolRegistry;
};

/** A tool's names besides its own: the declaration table's (canonical and aliases) and any it gives itself. */
const namesOf = (t: Tool): string[] => [...toolNames(t.name), ...(t.aliases ?? [])].filter((n) => n !== t.name);

export function createToolRegistry(initial: Tool[] = []): ToolRegistry {
  const tools: Tool[] = [];
  const byName = new Map<string, Tool>();
  const register = (t: Tool) => {
    const existing = tools.findIndex((x) => x.name === t.name);
    if (existing >= 0) {
      // The replaced tool's aliases must not keep pointing at it.
      for (const a of namesOf(tools[existing]!)) if (byName.get(a) === tools[existing]) byName.delete(a);
      tools.splice(existing, 1, t);
    } else tools.push(t);
    byName.set(t.name, t);
    // Every declared name reaches the tool (Task → Agent, KillShell/KillBash → TaskStop), but never takes over another tool's own name.
    for (const a of namesOf(t)) if (!byName.has(a) || !tools.some((x) => x.name === a)) byName.set(a, t);
  };
  initial.forEach(register);
  const loaded = new Set<string>();
  return {
    list: () => [...tools],
    get: (name) => byName.get(name),
    specs: () =>
      tools.filter((t) => !t.deferred || loaded.has(t.name)).map((t) => ({ name: t.name, description: t.description, input_schema: t.jsonSchema })),
    register,
    remove(name) {
      const i = tools.findIndex((x) => x.name === name);
      if (i < 0) return;
      const [t] = tools.splice(i, 1);
      for (const n of [t!.name, ...namesOf(t!)]) if (byName.get(n) === t) byName.delete(n);
    },
    load: (names) => names.forEach((n) => loaded.add(n)),
    deferredNames: () => tools.filter((t) => t.deferred && !loaded.has(t.name)).map((t) => t.name),
    filter: (keep) => createToolRegistry(tools.filter(keep)),
  };
}
