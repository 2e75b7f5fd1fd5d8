import { expect, test } from "bun:test";
import { z } from "zod";
import { defineTool } from "../../src/tool/define-tool.ts";
import { createToolRegistry } from "../../src/tool/registry.ts";

const tool = (name: string, aliases?: string[]) =>
  defineTool({ name, aliases, description: name, input: z.object({}), readOnly: true, execute: () => ({ content: name }) });

test("lookup by name, own alias and the legacy table (contracts §7.1); specs keep registration order", () => {
  const reg = createToolRegistry([tool("Bash"), tool("KillShell", ["KillBash"]), tool("Agent")]);
  expect(reg.get("KillBash")?.name).toBe("KillShell");
  expect(reg.get("TaskStop")?.name).toBe("KillShell");
  expect(reg.get("Task")?.name).toBe("Agent");
  expect(reg.get("Nope")).toBeUndefined();
  expect(reg.specs().map((s) => s.name)).toEqual(["Bash", "KillShell", "Agent"]);
});

test("registering a tool under a taken name replaces it in place, old aliases included", () => {
  const old = tool("Search", ["Find"]);
  const reg = createToolRegistry([tool("Bash"), old, tool("Read")]);
  const replacement = tool("Search");
  reg.register(replacement);
  expect(reg.list().map((t) => t.name)).toEqual(["Bash", "Search", "Read"]);
  expect(reg.get("Search")).toBe(replacement);
  expect(reg.get("Find")).toBeUndefined();
});

test("filter returns a new registry and leaves the original whole", () => {
  const reg = createToolRegistry([tool("Bash"), tool("Read")]);
  const ro = reg.filter((t) => t.name !== "Bash");
  expect(ro.get("Bash")).toBeUndefined();
  expect(reg.get("Bash")?.name).toBe("Bash");
});
